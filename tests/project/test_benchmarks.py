"""Smoke tests of the scripts in ``benchmarks/``: they run end to end at tiny sizes and report
positive rates; ``tables.py``'s batch-size sweep and table layout.

Timings are never asserted (a shared machine is too noisy for that): only that every requested
row comes back, sane.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import load_script

import spoilfive_jax as sf
from spoilfive_jax.core import deal

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "throughput.py"


def _load_script() -> ModuleType:
    return load_script(SCRIPT)


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
        assert r["bytes_per_state"] == sf.spoil_five.state_bytes(5)
        assert r["ratio_vs_oh_hell"] is None
    assert json.loads(out.read_text())["rows"] == rows


def test_rollout_speed_smoke() -> None:
    """``benchmarks/rollout_speed.py`` runs on the public tools (``sf.rollout``, the fast kernel
    of Spoil Five through them) and reports positive rates."""
    path = SCRIPT.parent / "rollout_speed.py"
    module = load_script(path)
    argv = ["--players", "3", "--batch", "256", "--hands", "256", "--reps", "1"]
    rows = module.main([*argv, "--policies", "random", "--no-peers", "--no-scorer"])
    assert [(r["players"], r["policy"], r["batch"]) for r in rows] == [(3, "random", 256)]
    assert rows[0]["decisions_per_s"] > 0 and rows[0]["hands_per_s"] > 0


def _load(name: str) -> ModuleType:
    return load_script(SCRIPT.parent / f"{name}.py")


def test_tables_sweep_stops_when_growth_stops_or_memory_runs_out() -> None:
    """``tables.sweep`` keeps the fastest size, stops after two sizes without 5% growth, stops at
    an out-of-memory error (recorded) and raises any other error."""
    tables = _load("tables")
    rates = {64: 1.0, 128: 2.0, 256: 2.05, 512: 1.5, 1024: 9.0}  # 256, 512 do not grow 5%
    best, trace = tables.sweep(lambda b: rates[b], [64, 128, 256, 512, 1024])
    assert best == 256 and [t["batch"] for t in trace] == [64, 128, 256, 512]

    def oom(b: int) -> float:
        if b >= 256:
            raise RuntimeError("RESOURCE_EXHAUSTED: Out of memory allocating 123 bytes")
        return float(b)

    best, trace = tables.sweep(oom, [64, 128, 256, 512])
    assert best == 128 and trace[-1] == {
        "batch": 256,
        "decisions_per_s": None,
        "note": "out of memory",
    }
    with pytest.raises(ZeroDivisionError):
        tables.sweep(lambda b: 1 / 0, [64])
    with pytest.raises(RuntimeError, match="no size ran"):
        tables.sweep(oom, [256])
    assert tables.sweep_sizes("6:8") == [64, 128, 256]
    with pytest.raises(ValueError, match="LO:HI"):
        tables.sweep_sizes("8")
    assert tables.device_counts(["1", "all", "1"])[0] == 1
    with pytest.raises(ValueError, match="--cores"):
        tables.device_counts(["0"])


@pytest.mark.slow
def test_tables_one_table_per_game_without_pyspiel(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In this process (no workers), tiny sizes, pyspiel made unimportable: a table per game
    with a row per built-in policy, the public step and the analysis, each with positive
    decisions/s and an ``n/a`` ratio."""
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # `import pyspiel` raises ImportError
    tables = _load("tables")
    argv = ["--in-process", "--games", "spoil_five", "--hands", "256", "--reps", "1"]
    argv += ["--rollout-batch", "64", "--step-batch", "64", "--positions", "2", "--samples", "2"]
    result = tables.main([*argv, "--analysis-batch", "64", "--peer-seconds", "0.01"])
    (setting,) = result["settings"]
    assert setting["peer"]["mean"] is None and setting["label"] == "1 core"
    assert setting["sweeps"] == []
    paths = ["rollout random", "rollout heuristic", "public step", "analysis heuristic"]
    assert [(r["game"], r["path"], r["batch"]) for r in setting["rows"]] == [
        ("spoil_five", p, 64) for p in paths
    ]
    for r in setting["rows"]:
        assert r["decisions_per_s"] > 0 and r["ratio_vs_oh_hell"] is None
    out = capsys.readouterr().out
    table = out[out.index("spoil_five, 5 players") :].splitlines()
    cells = [re.split(r"\s{2,}", line.strip()) for line in table[1:7]]
    assert cells[0] == ["path", "batch", "dec/s 1 core", "x oh_hell 1 core"]
    assert [c[:2] for c in cells[2:]] == [[p, "64"] for p in paths]
    assert all(len(c) == 4 and c[2][0].isdigit() and c[3] == "n/a" for c in cells[2:])
    assert "pyspiel oh_hell" in table[7] and "n/a" in table[7]


@pytest.mark.slow
def test_tables_tiny_sweep_chooses_the_batch() -> None:
    """``--sweep 6:7`` on CPU: both sizes are measured for each path and the rows are timed at
    the size the sweep chose (the rollout's, swept with random, serves every policy)."""
    tables = _load("tables")
    argv = ["--in-process", "--games", "spoil_five", "--paths", "rollout,step", "--reps", "1"]
    result = tables.main([*argv, "--hands", "256", "--sweep", "6:7", "--no-peers"])
    (setting,) = result["settings"]
    chosen = {s["path"]: s["chosen"] for s in setting["sweeps"]}
    assert set(chosen) == {"rollout", "step"} and set(chosen.values()) <= {64, 128}
    for s in setting["sweeps"]:
        assert [t["batch"] for t in s["trace"]] == [64, 128]
        assert all(t["decisions_per_s"] > 0 for t in s["trace"])
    assert [(r["path"], r["batch"]) for r in setting["rows"]] == [
        ("rollout random", chosen["rollout"]),
        ("rollout heuristic", chosen["rollout"]),
        ("public step", chosen["step"]),
    ]


def test_tables_spawns_a_worker_per_core_setting(tmp_path: Path) -> None:
    """Without --in-process each core setting runs in its own process (here: 1 core), and the
    markdown table comes back with the worker's rows."""
    out = tmp_path / "tables.json"
    cmd = [sys.executable, str(SCRIPT.parent / "tables.py"), "--cores", "1", "--games"]
    cmd += ["twenty_five", "--paths", "step", "--step-batch", "64", "--reps", "1", "--no-peers"]
    done = subprocess.run(
        [*cmd, "--markdown", "--json", str(out)], capture_output=True, text=True, check=True
    )
    result = json.loads(out.read_text())
    (setting,) = result["settings"]
    assert setting["devices"] == 1 and setting["label"] == "1 core"
    assert [(r["path"], r["batch"]) for r in setting["rows"]] == [("public step", 64)]
    assert "| path | batch | dec/s 1 core | x oh_hell 1 core |" in done.stdout
    assert "| public step | 64 |" in done.stdout


def test_gpu_script_is_valid_bash() -> None:
    """``benchmarks/gpu.sh`` parses (``bash benchmarks/gpu.sh --dry-run`` runs it on CPU)."""
    subprocess.run(["bash", "-n", str(SCRIPT.parent / "gpu.sh")], check=True)


@pytest.mark.slow
def test_step_profile_takes_the_loop_apart(tmp_path: Path) -> None:
    """``benchmarks/step_profile.py`` times the four variants of the public step's loop and
    writes JSON that the docs' renderer reads."""
    out = tmp_path / "profile.json"
    argv = ["--batch", "64", "--reps", "1", "--no-peers", "--json", str(out)]
    result = _load("step_profile").main(argv)
    assert [r["variant"] for r in result["rows"]] == ["loop", "null step", "draws", "engine"]
    assert all(r["ms"] > 0 and r["decisions_per_s"] > 0 for r in result["rows"])
    # the step does something: a hand of 5 players takes at least 15 decisions
    assert result["rows"][0]["decisions"] >= 15 * 64
    assert result["state_bytes"] == sf.spoil_five.state_bytes(5)
    assert result["step_instructions"] > 100
    docs = load_script(Path(__file__).resolve().parents[2] / "scripts" / "docs.py")
    text = docs.figure_step_profile(json.loads(out.read_text()))
    assert "27 steps of 64 hands" in text and "HLO instructions" in text


@pytest.mark.slow
def test_pimc_strength_plays_a_tiny_tournament(tmp_path: Path) -> None:
    """``benchmarks/pimc_strength.py``: seat-rotated pimc against another policy, as JSON."""
    out = tmp_path / "pimc.json"
    argv = ["--opponent", "random", "--samples", "2", "--deals", "3", "--json", str(out)]
    result = _load("pimc_strength").main(argv)
    (r,) = result["rows"]
    assert (r["game"], r["opponent"], r["samples"], r["hands"]) == ("spoil_five", "random", 2, 15)
    assert r["bot_decisions"] > 0 and r["ms_per_decision"] > 0
    assert json.loads(out.read_text())["rows"] == result["rows"]
    docs = load_script(Path(__file__).resolve().parents[2] / "scripts" / "docs.py")
    assert "| Spoil Five, 5 players | pimc 2 | 4 random |" in docs.figure_pimc(result)


@pytest.mark.slow
def test_ismcts_baseline_plays_and_reports_by_time(tmp_path: Path) -> None:
    """``benchmarks/ismcts_baseline.py``: OpenSpiel's ISMCTS against pimc, timed in one harness."""
    pytest.importorskip("pyspiel")
    out = tmp_path / "ismcts.json"
    argv = ["--players", "3", "--deals", "2", "--times", "1", "--json", str(out)]
    result = _load("ismcts_baseline").main([*argv, "--against", "pimc:4"])
    (r,) = result["rows"]
    assert r["simulations"] >= 2 and r["hands"] == 6 and r["ismcts_ms"] > 0 < r["other_ms"]
    docs = load_script(Path(__file__).resolve().parents[2] / "scripts" / "docs.py")
    assert "| 1× pimc:4's | " in docs.figure_ismcts(json.loads(out.read_text()))


@pytest.mark.slow
def test_ismcts_baseline_takes_the_best_bot_and_the_forty_five_partnerships(
    tmp_path: Path,
) -> None:
    """``--against best`` plays ``sf.best_policy``; ``--game forty_five`` (and
    ``twenty_five``, at 4 players only) seats ISMCTS as a partnership (two seatings a deal)."""
    pytest.importorskip("pyspiel")
    docs = load_script(Path(__file__).resolve().parents[2] / "scripts" / "docs.py")
    base = ["--deals", "2", "--times", "1"]
    best = _load("ismcts_baseline").main([*base, "--players", "3", "--against", "best"])
    assert best["against"] == "best" and best["rows"][0]["hands"] == 6
    out = tmp_path / "ff.json"
    family = ["--game", "forty_five", "--players", "4", "--against", "pimc:4", "--json", str(out)]
    result = _load("ismcts_baseline").main([*base, *family])
    (r,) = result["rows"]
    assert result["game"] == "forty_five" and r["hands"] == 4 and np.isfinite(r["diff"])
    text = docs.figure_ismcts(json.loads(out.read_text()))
    assert "ISMCTS pair − the others" in text and "Forty-Five, partnerships, 4 players" in text
    twenty_five = _load("ismcts_baseline").main([*base, "--game", "twenty_five"])
    assert twenty_five["players"] == 4 and twenty_five["rows"][0]["hands"] == 4
    assert "Twenty-Five, partnerships, 4 players" in docs.figure_ismcts(twenty_five)
    with pytest.raises(SystemExit):
        _load("ismcts_baseline").main([*base, "--game", "twenty_five", "--players", "3"])


@pytest.mark.slow
def test_analysis_speed_compares_each_games_analysis_with_its_kernel(tmp_path: Path) -> None:
    """``benchmarks/analysis_speed.py --rates``: playouts a second over kernel hands a second,
    per game, in one process, on mid-hand positions (Auction's before the play too)."""
    out = tmp_path / "rates.json"
    argv = ["--rates-only", "--rate-hands", "1024", "--rate-positions", "8", "--rate-samples"]
    games = "forty_five,auction_forty_fives"
    argv += ["2", "--rate-repeats", "2", "--games", games, "--json", str(out)]
    result = _load("analysis_speed").main(argv)
    assert [r["game"] for r in result["rates"]] == games.split(",")
    for r in result["rates"]:
        assert r["repeats"] == 2  # each rate the best of two timings
        assert r["kernel_hands_per_s"] > 0 < r["analysis_playouts_per_s"]
        assert r["ratio"] == pytest.approx(r["analysis_playouts_per_s"] / r["kernel_hands_per_s"])
        assert sum(r["phases"].values()) == 8
    docs = load_script(Path(__file__).resolve().parents[2] / "scripts" / "docs.py")
    text = docs.figure_analysis(json.loads(out.read_text()))
    assert "| auction_forty_fives, 4 players |" in text and "analysis / kernel" in text


@pytest.mark.slow
def test_best_bot_measures_each_lever_against_pimc(tmp_path: Path) -> None:
    """``benchmarks/best_bot.py``: the levers alone and together, and ``--merge`` keeps the
    rows it does not rerun."""
    out = tmp_path / "best.json"
    script = _load("best_bot")
    argv = ["--deals", "2", "--json", str(out)]
    first = script.main([*argv, "--rows", "tie", "carry", "best"])
    assert [r["row"] for r in first["rows"]] == ["tie", "carry", "best"]
    assert [r["bot_name"] for r in first["rows"]] == ["pimc64+tie", "pimc64+carry", "best"]
    assert all(r["hands"] == 10 and r["against"] == "pimc64" for r in first["rows"])
    script.main([*argv, "--rows", "sees-all", "carry", "--merge"])
    rows = json.loads(out.read_text())["rows"]
    assert [r["row"] for r in rows] == ["tie", "carry", "best", "sees-all"]
    assert rows[3]["bot_name"] == "best-sees-all" and rows[3]["against"] == "best"
    docs = load_script(Path(__file__).resolve().parents[2] / "scripts" / "docs.py")
    text = docs.figure_best(json.loads(out.read_text()))
    assert "| Spoil Five, 5 players | best, seeing every hand | 4 × best | 10 |" in text
    assert "--merge" in text  # both commands are named
    solved = script.main(["--game", "forty_five", *argv, "--rows", "solve", "--merge"])
    row = solved["rows"][-1]  # (merged after the Spoil Five rows)
    assert [r["row"] for r in solved["rows"]] == ["tie", "carry", "best", "sees-all", "solve"]
    assert row["bot_name"] == "pimc64+solve2" and row["hands"] == 4 and row["against"] == "pimc64"
    text = docs.figure_best(json.loads(out.read_text()))
    assert "| Forty-Five, 4 players | pimc 64, the last two tricks solved (a pair) |" in text


def test_best_bot_refuses_the_levers_a_game_does_not_have(capsys) -> None:
    script = _load("best_bot")
    for argv, why in (
        (["--rows", "infer"], "no inference"),
        (["--rows", "infer-ppo"], "no inference"),
        (["--game", "forty_five", "--rows", "carry"], "carried"),
    ):
        with pytest.raises(SystemExit):
            script.main(argv)
        assert why in capsys.readouterr().err
    assert script.env_for("twenty_five") == sf.make("twenty_five", 4)  # (the family at 4)
    ff = script.env_for("forty_five")
    bot, other = script.players(ff, "solve-all16-vs-best")  # (the equal-time comparison)
    assert bot == sf.pimc(ff, 16, solve_tricks="all", name="pimc16+solve-all")
    assert other == sf.best_policy(ff)
    docs = load_script(Path(__file__).resolve().parents[2] / "scripts" / "docs.py")
    assert set(script.ROWS) <= set(docs._LEVERS)  # (every row has its words in the docs)
    for game in ("forty_five", "twenty_five"):  # each game's own agent weighs its worlds
        path = script.agent_path(game)
        assert path.name == f"{game}_ppo.npz" and path.is_file()
    row = {"game": "twenty_five", "players": 4, "row": "infer-ppo", "hands": 4, "bot": 1.0}
    row |= {"diff": 0.5, "diff_ci": 0.1, "ms_per_decision": 9.0, "against": "pimc64"}
    machine = {"processor": "x", "cores": 2, "python": "3", "jax": "0"}
    text = docs.figure_best({"rows": [row], "command": "c", "date": "d", "machine": machine})
    weighed = "pimc 64 of 128 worlds weighed by the PPO agent (a pair)"
    assert f"| Twenty-Five, 4 players | {weighed} | pimc 64 (a pair) |" in text
    bound = row | {"game": "auction_forty_fives", "row": "solver-sees-all", "against": "best"}
    text = docs.figure_best({"rows": [bound], "command": "c", "date": "d", "machine": machine})
    assert "| Auction Forty-Fives, 4 players | the solver seeing every hand" in text
    assert "| best (a pair) |" in text


def test_the_ladder_seats_best_where_it_is_not_pimc_itself(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ladder = _load("ladder")
    spoil = ladder.players(sf.make("spoil_five"))
    assert "best" in spoil and spoil["best"] == sf.best_policy(sf.make("spoil_five"))
    forty_five = sf.make("forty_five")  # its best weighs the worlds by the shipped agent
    assert ladder.players(forty_five)["best"] == sf.best_policy(forty_five)
    auction = sf.make("auction_forty_fives")
    assert "best" not in ladder.players(auction)  # there the best is pimc
    with pytest.raises(ValueError, match="auction_forty_fives has no player 'best' in the"):
        ladder.ladder("auction_forty_fives", 2, 0, only="best")
    with pytest.raises(SystemExit):  # (refused before any game's pairs are played)
        ladder.main(["--games", "forty_five", "auction_forty_fives", "--only", "best"])
    assert "--only best: auction_forty_fives has no such player" in capsys.readouterr().err
    for argv, why in (
        (["--ismcts", "1"], "--ismcts must be 0 (none) or at least 2 simulations, got 1"),
        (["--ismcts", "4", "--ismcts-deals", "1"], "--ismcts-deals must be at least 2, got 1"),
        (["--only", "ismcts"], "--only ismcts needs --ismcts SIMS"),  # (left out by default)
        (["--only", "solver"], "--only solver needs --solver"),
    ):
        with pytest.raises(SystemExit):
            ladder.main(argv)
        assert why in capsys.readouterr().err
    with pytest.raises(ValueError, match="no player 'ismcts'"):  # (ISMCTS left out)
        ladder.ladder("auction_forty_fives", 2, 0, only="ismcts", ismcts=0)
    with pytest.raises(ValueError, match="no player 'solver'"):  # (the true bound left out)
        ladder.ladder("auction_forty_fives", 2, 0, only="solver")
    # the true bound: one world, every hand in view, the whole play solved; against the
    # strongest fair player
    spoil_five = sf.make("spoil_five")
    bounds = ladder.bounds(spoil_five, spoil, solver=True)
    assert [(name, fair) for name, _, fair in bounds] == [
        ("pimc", "pimc"), ("best", "best"), ("solver", "best")
    ]  # fmt: skip
    exact = sf.pimc(spoil_five, 1, see_all=True, solve_tricks="all", name="solver")
    assert bounds[-1][1] == exact
    auction_entrants = ladder.players(auction)
    assert ladder.bounds(auction, auction_entrants, solver=True)[-1][2] == "pimc"
    assert [b[0] for b in ladder.bounds(auction, auction_entrants, solver=False)] == ["pimc"]
    old = {"command": "a", "games": [{"game": "x", "pairs": [1]}, {"game": "y", "pairs": [2]}]}
    new = {"command": "b", "date": "d", "games": [{"game": "y", "pairs": [3]}]}
    out = _load("provenance").merged(old, new, "games", lambda g: g["game"])
    assert [g["pairs"] for g in out["games"]] == [[1], [3]] and out["command"] == "a; b"


@pytest.mark.slow
def test_the_ladder_plays_every_pair_head_to_head(tmp_path: Path) -> None:
    """``benchmarks/ladder.py``: every pair of a game's players, paired over the same deals,
    and OpenSpiel's ISMCTS against each."""
    pytest.importorskip("pyspiel")
    out = tmp_path / "ladder.json"
    argv = ["--games", "auction_forty_fives", "--hands", "8", "--json", str(out)]
    result = _load("ladder").main([*argv, "--ismcts", "2", "--ismcts-deals", "3"])
    (g,) = result["games"]
    names = [(r["a"], r["b"]) for r in g["pairs"]]
    assert len(names) == 16 and ("pimc", "random") in names and ("heuristic", "greedy") in names
    assert ("ppo", "heuristic") in names and ("pimc", "ppo") in names  # the shipped agent
    assert names[-1] == ("pimc, sees all", "pimc")  # the cheating bound, last
    batched, searched = g["pairs"][:10] + g["pairs"][-1:], g["pairs"][10:-1]
    assert all(r["hands"] == 16 and np.isfinite(r["diff"]) for r in batched)
    # OpenSpiel's ISMCTS against every player, over its own deals (3 deals, 2 seatings)
    entrants = ["random", "greedy", "heuristic", "ppo", "pimc"]
    assert [(r["a"], r["b"]) for r in searched] == [("ismcts", b) for b in entrants]
    assert all(r["hands"] == 6 and r["simulations"] == 2 and r["ismcts_ms"] > 0 for r in searched)
    assert all(np.isfinite(r["diff"]) for r in searched)
    docs = load_script(Path(__file__).resolve().parents[2] / "scripts" / "docs.py")
    text = docs.figure_ladder(result)
    assert "| auction forty fives, 4 players | pimc | random | 16 |" in text
    assert "| auction forty fives, 4 players | ISMCTS, 2 simulations | pimc | 6 |" in text


@pytest.mark.slow
def test_the_ladder_reruns_one_players_pairs_and_keeps_the_others(tmp_path: Path) -> None:
    """``--only PLAYER --merge``: that player's pairs and cheating bound replaced or added, the
    game's other pairs kept, the cheating bounds last."""
    out = tmp_path / "ladder.json"
    old_pairs = [
        {"a": "heuristic", "b": "random", "diff": 1.0, "diff_ci": 0.1, "hands": 2},
        {"a": "pimc", "b": "random", "diff": 999.0, "diff_ci": 0.1, "hands": 2},
        {"a": "pimc, sees all", "b": "pimc", "diff": 999.0, "diff_ci": 0.1, "hands": 2},
    ]
    game = {"game": "auction_forty_fives", "players": 4, "unit": "points", "pairs": old_pairs}
    out.write_text(json.dumps({"command": "an old run", "date": "d", "games": [game]}))
    argv = ["--games", "auction_forty_fives", "--only", "pimc", "--hands", "4"]
    argv += ["--ismcts", "0", "--json", str(out)]
    result = _load("ladder").main([*argv, "--merge"])
    assert json.loads(out.read_text()) == result
    (g,) = result["games"]
    names = [(r["a"], r["b"]) for r in g["pairs"]]
    assert names[0] == ("heuristic", "random") and g["pairs"][0]["diff"] == 1.0  # kept
    assert set(names[1:-1]) == {("pimc", b) for b in ("random", "greedy", "heuristic", "ppo")}
    assert names[-1] == ("pimc, sees all", "pimc")  # the cheating bound, last
    assert all(r["diff"] != 999.0 and r["hands"] == 8 for r in g["pairs"][1:])  # rerun
    assert result["command"].startswith("an old run; ") and "--only pimc" in result["command"]


@pytest.mark.slow
def test_the_ladder_plays_the_true_bound(tmp_path: Path) -> None:
    """``--only solver --solver``: the solver seeing every hand against the strongest fair
    player, added after the game's other rows."""
    out = tmp_path / "ladder.json"
    pairs = [{"a": "pimc, sees all", "b": "pimc", "diff": 1.0, "diff_ci": 0.1, "hands": 2}]
    game = {"game": "auction_forty_fives", "players": 4, "unit": "points", "pairs": pairs}
    out.write_text(json.dumps({"command": "an old run", "date": "d", "games": [game]}))
    argv = ["--games", "auction_forty_fives", "--only", "solver", "--solver", "--hands", "3"]
    result = _load("ladder").main([*argv, "--json", str(out), "--merge"])
    (g,) = result["games"]
    assert [(r["a"], r["b"]) for r in g["pairs"]] == [
        ("pimc, sees all", "pimc"), ("solver, sees all", "pimc")
    ]  # fmt: skip
    bound = g["pairs"][-1]
    assert bound["hands"] == 6 and np.isfinite(bound["diff"]) and bound["diff"] != 1.0


@pytest.mark.slow
def test_ppo_cores_times_the_update_on_one_device_and_on_every_core(tmp_path: Path) -> None:
    """``benchmarks/ppo_cores.py``: fresh processes, one device against one a core."""
    out = tmp_path / "cores.json"
    argv = ["--games", "twenty_five", "--updates", "1", "--envs", "32", "--json", str(out)]
    result = _load("ppo_cores").main(argv)
    (r,) = result["rows"]
    assert r["devices"] >= 1 and r["one_device"] > 0 < r["every_core"]
    docs = load_script(Path(__file__).resolve().parents[2] / "scripts" / "docs.py")
    assert "| twenty five | " in docs.figure_ppo_cores(json.loads(out.read_text()))


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_ppo_collect_times_the_collection_and_merges_labelled_runs(tmp_path: Path) -> None:
    """``benchmarks/ppo_collect.py``: learner decisions a second of PPO's collection alone; a
    second label merged into the same JSON keeps the first's rows, and the docs' figure shows
    one column a label."""
    out = tmp_path / "collect.json"
    base = ["--games", "twenty_five", "--envs", "8", "--steps", "2", "--reps", "1"]
    script = _load("ppo_collect")
    script.main([*base, "--hidden", "8", "--label", "before", "--json", str(out)])
    result = script.main(
        [*base, "--hidden", "8", "--label", "after", "--merge", "--json", str(out)]
    )
    saved = json.loads(out.read_text())
    assert [r["label"] for r in saved["rows"]] == ["before", "after"]
    assert all(r["learner_decisions_per_s"] > 0 for r in saved["rows"])
    assert result["rows"][-1]["label"] == "after"
    assert "--label" not in saved["command"] and "merged" in saved["command"]
    docs = load_script(Path(__file__).resolve().parents[2] / "scripts" / "docs.py")
    figure = docs.figure_ppo_collect(saved)
    assert "| game | before | after |" in figure and "| twenty five | " in figure


@pytest.mark.slow
def test_solve_speed_times_whole_hand_solves_and_a_pimc_decision(tmp_path: Path) -> None:
    """``benchmarks/solve_speed.py --quick``: solves a second at the first lead and after a
    trick (one world: the mean and largest over two worlds), the nodes searched against the
    full tree's, and pimc's decision time."""
    out = tmp_path / "solve.json"
    result = _load("solve_speed").main(["--quick", "--reps", "1", "--json", str(out)])
    assert [(r["tricks_left"], r["batch"]) for r in result["rows"]] == [(5, 8), (4, 8), (3, 8)]
    for r in result["rows"]:
        assert r["one_world_solves_per_s"] > 0 < r["batch_solves_per_s"]
        assert r["one_world_positions"] == 2  # (--quick: two worlds each solved alone)
        assert r["one_world_max_s"] >= 1 / r["one_world_solves_per_s"]  # (the largest >= mean)
        assert 0 < r["nodes_mean"] <= r["nodes_max"]
        assert r["nodes_mean"] < r["full_nodes_mean"] <= r["enumeration_leaves"] * 2
    assert [p["seat_in_trick"] for p in result["pimc"]] == [0, 1]
    assert all(0 < p["decision_s"] <= p["decision_max_s"] for p in result["pimc"])
    assert all(p["positions"] == 2 for p in result["pimc"])
    assert json.loads(out.read_text())["rows"] == result["rows"]


def _fusion_profile(*argv: str) -> str:
    """``benchmarks/fusion_profile.py argv`` in a process of its own (XLA reads its dump flag
    when the backend starts): its output, the run having succeeded."""
    script = SCRIPT.parent / "fusion_profile.py"
    out = subprocess.run(
        [sys.executable, str(script), *argv], capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


@pytest.mark.slow  # (10 s: a process of its own, with JAX's start)
def test_fusion_profile_names_the_functions_behind_the_loops_time() -> None:
    """``benchmarks/fusion_profile.py`` profiles a tiny step loop and splits its operations'
    time among the package functions that wrote them: the step's own functions are named."""
    text = _fusion_profile(
        "--game", "spoil_five", "--path", "step", "--batch", "64", "--top", "100"
    )  # fmt: skip
    assert "spoil_five, step, first_legal, 64 hands" in text and "by function" in text
    shares = text.split("by function")[1]
    assert re.search(r"%\s+game__apply_action", shares), shares  # the step's own work, named
    assert re.search(r"%\s+bits__lowest", shares), shares  # the picker's


@pytest.mark.slow  # (a process of its own, with JAX's start)
def test_fusion_profile_names_the_exact_solvers_functions_in_a_pimc_decision() -> None:
    """``--path pimc``: a pimc decision with whole-hand solves is profiled, and its time is
    split among the search's own functions and the game's (the child, its bounds)."""
    text = _fusion_profile(
        "--game", "forty_five", "--path", "pimc", "--batch", "1", "--worlds", "4", "--top", "80"
    )  # fmt: skip
    assert "forty_five, pimc, first_legal, 1 hands" in text and "by function" in text
    shares = text.split("by function")[1]
    assert re.search(r"%\s+search___advance", shares), shares  # the search's bookkeeping
    assert re.search(r"%\s+fast_play__play_step", shares), shares  # the game's child


@pytest.mark.slow  # (a process of its own, with JAX's start)
def test_fusion_profile_names_a_plugins_own_functions() -> None:
    """A game written outside the package (the Oh Hell example): its own package's functions
    are scoped and named too, not lumped with the operations of no package function."""
    pytest.importorskip("spoilfive_oh_hell")
    text = _fusion_profile(
        "--game", "oh_hell", "--path", "rollout", "--policy", "random", "--batch", "64",
        "--top", "60",
    )  # fmt: skip
    shares = text.split("by function")[1]
    assert re.search(r"%\s+spoilfive_oh_hell__game__apply_action", shares), shares


@pytest.mark.slow  # (its patch clears JAX's caches: the worker's later tests compile anew)
def test_deal_speed_times_the_deal_both_ways_and_compares_their_hands(tmp_path: Path) -> None:
    """``benchmarks/deal_speed.py``: the old draws it puts back are ``jax.random.bits`` of the
    key (and only inside its context), both ways are timed, and ``--agree`` plays the same
    number of hands both ways (the built-in rollouts: the same hands)."""
    script = _load("deal_speed")
    env = sf.make("spoil_five", num_players=3)
    key = jax.random.PRNGKey(3)
    now = env.init(key)
    with script.threefry_draws() as patched:
        assert patched >= 2  # (both game modules that deal: Spoil Five's and the family's)
        old = env.init(key)
    again = env.init(key)
    top = deal.draw_deck(jax.random.bits(key, (16,), jnp.uint32) >> 8).tolist()
    want = env.init_from_deck(np.array(top + [c for c in range(52) if c not in top]))
    dealt = [(np.asarray(s.dealt.lo), np.asarray(s.dealt.hi), int(s.turnup)) for s in (old, want)]
    np.testing.assert_equal(dealt[0], dealt[1])  # the old deal of this key
    assert not np.array_equal(np.asarray(now.dealt.lo), dealt[0][0])  # not today's
    np.testing.assert_array_equal(np.asarray(again.dealt.lo), np.asarray(now.dealt.lo))
    out = tmp_path / "deal.json"
    argv = ["--games", "spoil_five", "--batch", "64", "--reps", "1", "--json", str(out)]
    result = script.main(argv)
    assert [r["path"] for r in result["rows"]] == ["init", "auto-reset loop"]
    assert all(r["threefry_per_s"] > 0 < r["hash_per_s"] for r in result["rows"])
    assert json.loads(out.read_text())["rows"] == result["rows"]
    agreed = script.main(["--games", "spoil_five", "--agree", "512"])["agree"]
    init, roll = agreed
    assert init["threefry"] != init["hash"]  # other deals ...
    assert roll["threefry"] == roll["hash"]  # ... but the kernel's rollouts deal as before
