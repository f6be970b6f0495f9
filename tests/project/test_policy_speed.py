"""``benchmarks/policy_speed.py`` runs end to end at a tiny size, and ``benchmarks/gpu.sh``
(which runs it) installs nothing from the network.  Timings are never asserted."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "policy_speed.py"


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_the_policy_script_times_every_path_of_a_game(tmp_path, capsys):
    out = tmp_path / "policy.json"
    # (Oh Hell: the plugin's programs are the smallest to compile of the five games')
    argv = ["--games", "oh_hell", "--hands", "64", "--batch", "32", "--reps", "1"]
    result = load_script(SCRIPT).main([*argv, "--peer-seconds", "0.05", "--json", str(out)])
    rows = result["rows"]
    paths = [r["path"] for r in rows]
    assert paths == [
        "rollout, random",
        "rollout, heuristic",
        "rollout, user first-legal",
        "rollout, user one-uniform",
        "rollout, user pgx categorical",
        "rollout, user sf.first_legal",
        "rollout, user sf.random_legal",
        "rollout, user sf.first_legal vs heuristic",
        "step loop, first legal",
        "step loop, pgx categorical",
        "step loop, sf.first_legal",
    ]
    assert rows[0]["x_random"] == 1.0 and all(r["game"] == "oh_hell" for r in rows)
    for r in rows:  # every hand of Oh Hell at 5 seats and 5 tricks takes 30 decisions
        assert r["hands_per_s"] > 0 and r["decisions_per_s"] == pytest.approx(30 * r["hands_per_s"])
    assert json.loads(out.read_text())["rows"] == rows
    printed = capsys.readouterr().out
    assert "| oh_hell | 5 | rollout, user pgx categorical |" in printed


def test_the_policy_script_refuses_a_bad_option():
    with pytest.raises(SystemExit):
        load_script(SCRIPT).main(["--batch", "0"])


def test_the_gpu_script_installs_nothing_from_the_network():
    """Every pip install in ``gpu.sh`` is ``--no-index`` (local wheels): the device has no
    network, and a CUDA build of jax must already be there."""
    text = (ROOT / "benchmarks" / "gpu.sh").read_text()
    installs = [line for line in text.splitlines() if re.search(r"pip\s+install", line)]
    assert installs and all("--no-index" in line for line in installs)
    assert "benchmarks/policy_speed.py" in text and "benchmarks/tables.py" in text


def test_the_gpu_script_stops_where_jax_sees_no_accelerator():
    import subprocess

    import jax

    if jax.default_backend() != "cpu":
        pytest.skip("an accelerator is here: the script would run the real benchmark")
    done = subprocess.run(
        ["bash", str(ROOT / "benchmarks" / "gpu.sh")], capture_output=True, text=True
    )
    assert done.returncode == 1 and "jax sees no accelerator" in done.stderr


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_the_kernel_written_for_one_hand_and_vmapped_plays_the_same_hands():
    """``benchmarks/vmap_layout.py`` (the redesign's premise): it raises if the vmapped one-hand
    kernel plays other hands than the batch-major one."""
    rates = load_script(ROOT / "benchmarks" / "vmap_layout.py").main(
        ["--hands", "64", "--reps", "1"]
    )
    assert set(rates) == {"batch-major kernel", "one hand, vmapped"}
    assert all(r > 0 for r in rates.values())


@pytest.mark.parametrize("script", ["ladder", "best_bot", "policy_speed"])
def test_a_merge_without_a_json_file_is_refused(script, capsys):
    """``--merge`` keeps the other rows of ``--json FILE``; without the file a run would print
    its figures and keep them nowhere (an hour of measurements was lost so)."""
    with pytest.raises(SystemExit):
        load_script(ROOT / "benchmarks" / f"{script}.py").main(["--merge"])
    assert "--merge keeps the other rows of --json FILE" in capsys.readouterr().err
