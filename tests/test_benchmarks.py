"""Smoke test of ``benchmarks/throughput.py``: it runs end to end and reports positive rates.

Timings are never asserted (STYLE.md): only that every requested row comes back, sane.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import spoilfive_jax as sf

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "throughput.py"


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("throughput", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_throughput_smoke(tmp_path: Path) -> None:
    out = tmp_path / "rows.json"
    argv = ["--quick", "--no-peers", "--batch", "64", "--reps", "1", "--json", str(out)]
    result = _load_script().main(argv)
    rows = result["rows"]
    assert [(r["players"], r["batch"], r["picker"]) for r in rows] == [
        (5, 64, "bits"),
        (5, 64, "mask"),
    ]
    for r in rows:
        assert r["hands_per_s"] > 0 and r["decisions_per_s"] > 0 and r["compile_s"] > 0
        # a 5-player hand ends within 27 decisions (a rob, 25 plays, a jink); a claim ends it early
        assert 15 <= r["decisions_per_hand"] <= 27
        assert r["bytes_per_state"] == sf.state_bytes(5)
        assert r["ratio_vs_oh_hell"] is None
    assert json.loads(out.read_text())["rows"] == rows


def test_rollout_speed_smoke() -> None:
    """``benchmarks/rollout_speed.py`` runs on the public tools (``sf.rollout``, the fast kernel
    of Spoil Five through them) and reports positive rates."""
    path = SCRIPT.parent / "rollout_speed.py"
    spec = importlib.util.spec_from_file_location("rollout_speed", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    argv = ["--players", "3", "--batch", "256", "--hands", "256", "--reps", "1"]
    rows = module.main([*argv, "--policies", "random", "--no-peers", "--no-scorer"])
    assert [(r["players"], r["policy"], r["batch"]) for r in rows] == [(3, "random", 256)]
    assert rows[0]["decisions_per_s"] > 0 and rows[0]["hands_per_s"] > 0
