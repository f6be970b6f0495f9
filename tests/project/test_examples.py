"""The scripts in ``examples/`` run end to end at tiny sizes: what they print and write is
checked, not their numbers (far too few hands to mean anything).

The strategy study runs every question, and ``train_ppo.py`` trains, only in the slow suite
(each compiles programs of its own); the default run redraws the study's plots from the JSON
shipped in ``docs/``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import load_script

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _load(name: str) -> ModuleType:
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))  # (the study's package, examples/study)
    return load_script(EXAMPLES / f"{name}.py")


def test_million_hands_runs_at_a_tiny_size() -> None:
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "million_hands.py"), "--hands", "3000", "--players", "4"],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    assert "3,000 hands" in out and "hands/s" in out
    assert (
        len([ln for ln in out.splitlines() if ln.split()[:1] in (["0"], ["1"], ["2"], ["3"])]) == 4
    )


@pytest.mark.slow  # (its own PPO programs: half a minute of compiles; tests/rl trains one too)
def test_train_ppo_trains_saves_and_reports_a_tiny_agent(tmp_path: Path) -> None:
    pytest.importorskip("flax")
    pytest.importorskip("optax")
    from spoilfive_jax.rl.agent import load_policy

    argv = ["--updates", "2", "--num-envs", "8", "--num-steps", "4", "--num-players", "4"]
    argv += ["--hidden", "16", "--eval-every", "1", "--eval-hands", "32", "--final-hands", "16"]
    argv += ["--tournament-hands", "0", "--out", str(tmp_path), "--name", "tiny"]
    _load("train_ppo").main(argv)
    meta = json.loads((tmp_path / "tiny.json").read_text())
    assert meta["game"] == "spoil_five" and meta["num_players"] == 4
    assert (tmp_path / "history.json").is_file() and (tmp_path / "eval.json").is_file()
    policy = load_policy(str(tmp_path / "tiny.npz"))
    assert callable(policy)


def test_strategy_study_redraws_its_plots_from_the_shipped_json(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    shutil.copy(ROOT / "docs" / "strategy_study.json", tmp_path)
    assert _load("strategy_study").main(["--only", "plots", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.png")) == sorted(
        p.name for p in (ROOT / "docs").glob("strategy_q*.png")
    )


@pytest.mark.slow
def test_strategy_study_answers_every_question_at_a_tiny_size(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    study = _load("strategy_study")
    assert study.main(["--size", "tiny", "--out", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "strategy_study.json").read_text())
    assert set(study.QUESTIONS) <= set(results)
    assert results["meta"]["consistent"]
    assert list(tmp_path.glob("*.png"))
