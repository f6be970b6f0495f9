"""The behaviour fingerprint (``benchmarks/fingerprint.py``): a subset of its cases reproduces
``benchmarks/fingerprint_baseline.json`` bit for bit (slow: it compiles), and its comparison
fails on a changed value, honours renames and reports missing and new fields."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import load_script

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
BASELINE = BENCH / "fingerprint_baseline.json"
SUBSET = [  # one engine case, two built-in rollouts, the public-step path, the family's scorer
    "spoil_five/n3/playout",
    "spoil_five/n3/rollout_heuristic",
    "spoil_five/n3/rollout_callable",
    "forty_five/n4/legal_actions",
    "forty_five/n4/rollout_greedy",
    "forty_five/n4/score",
]


def _script() -> ModuleType:
    return load_script(BENCH / "fingerprint.py")


def _compare(fp: ModuleType, base: dict, new: dict, **kw) -> tuple[int, str]:
    out = io.StringIO()
    rc = fp.compare(base, new, out=out, **kw)
    return rc, out.getvalue()


def test_compare_fails_on_a_changed_value_and_maps_renames() -> None:
    fp = _script()
    d = "float32 [4,3] " + "ab" * 32
    base = {"_meta": {"commit": "x"}, "a/b": {"summary.mean_chips": d, "fields.rewards": d}}
    assert _compare(fp, base, copy.deepcopy(base)) == (0, "1 cases: 1 identical; identical\n")
    changed = copy.deepcopy(base)
    changed["a/b"]["fields.rewards"] = d.replace("ab", "cd", 1)
    rc, text = _compare(fp, base, changed)
    assert rc == 1 and "differ   fields.rewards" in text
    renamed = {"a/b": {"summary.mean_reward": d, "rewards": d}}
    rc, text = _compare(fp, base, renamed)  # without the renames: only names changed
    assert rc == 0 and "missing  summary.mean_chips" in text and "new      rewards" in text
    assert _compare(fp, base, renamed, strict=True)[0] == 1
    renames = fp.load_renames(["mean_chips=mean_reward", "fields="])
    assert _compare(fp, base, renamed, renames=renames, strict=True)[0] == 0
    renamed["a/b"]["rewards"] = d.replace("ab", "cd", 1)  # renamed and changed
    assert _compare(fp, base, renamed, renames=renames)[0] == 1
    assert fp.rename_field("policies[0].ci95", [("policies[0]", "rows[0]")]) == "rows[0].ci95"
    assert _compare(fp, base, {"a/b": {"error": "boom"}})[0] == 1  # a case that now fails
    assert _compare(fp, base, {}, only=["a/b"])[0] == 1  # a case meant to run that did not
    assert _compare(fp, base, {}, only=["c/d"])[0] == 0  # baseline cases not run: not compared


def test_a_failing_case_is_recorded_and_the_others_run(monkeypatch: pytest.MonkeyPatch) -> None:
    fp = _script()

    def boom() -> dict:
        raise ValueError("no such hook")

    fake = [("x/boom", boom), ("x/fine", lambda: fp.digest({"a": np.arange(3), "seconds": 1.5}))]
    monkeypatch.setattr(fp, "cases", lambda: fake)
    got = fp.run(["x/boom", "x/fine"], verbose=False)
    assert got["x/boom"] == {"error": "ValueError: no such hook"}
    assert list(got["x/fine"]) == ["a"]  # (timing fields are left out)
    assert got["x/fine"]["a"].startswith("int64 [3] ")


@pytest.mark.slow
def test_fingerprint_subset_matches_the_baseline(tmp_path: Path) -> None:
    fp = _script()
    base = json.loads(BASELINE.read_text())
    assert set(SUBSET) <= set(base)
    argv = [x for case in SUBSET for x in ("--only", case)]
    assert fp.main([*argv, "--compare", str(BASELINE), "--quiet"]) == 0
    # ... and the same run fails against a baseline with one value altered
    tampered = copy.deepcopy(base)
    field = next(iter(tampered[SUBSET[0]]))
    digest = tampered[SUBSET[0]][field]
    tampered[SUBSET[0]][field] = digest[:-1] + ("0" if digest[-1] != "0" else "1")
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(tampered))
    assert fp.main(["--only", SUBSET[0], "--compare", str(path), "--quiet"]) == 1
