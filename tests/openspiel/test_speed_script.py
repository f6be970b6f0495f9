"""``benchmarks/openspiel_speed.py`` runs end to end at a tiny size: a row a game, OpenSpiel's
own Python games beside ours, positive rates and the ratio to liars_poker.  Timings are never
asserted (a shared machine is too noisy for that)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import load_script

pytest.importorskip("pyspiel")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "openspiel_speed.py"


def test_the_speed_script_measures_every_game_it_is_given(tmp_path, capsys):
    out = tmp_path / "speed.json"
    games = ["python_kuhn_poker", "python_liars_poker", "python_oh_hell"]
    argv = ["--games", *games, "--seconds", "0.05", "--rounds", "2", "--json", str(out)]
    result = load_script(SCRIPT).main(argv)
    rows = result["rows"]
    assert [r["game"] for r in rows] == games
    for r in rows:
        assert r["games_per_s"] > 0 and len(r["rates"]) == 2 and r["games"] >= 2
        assert r["games_per_s"] == max(r["rates"]) and r["players"] >= 2
    assert rows[1]["x_liars_poker"] == 1.0
    assert json.loads(out.read_text())["rows"] == rows
    assert result["command"] == "python benchmarks/openspiel_speed.py " + " ".join(argv[:-2])
    printed = capsys.readouterr().out
    assert "| python_oh_hell | 4 |" in printed


def test_the_speed_script_refuses_a_bad_option():
    with pytest.raises(SystemExit):
        load_script(SCRIPT).main(["--seconds", "0"])
