"""Regression tests of the defects a new user hit (the command line, the wrappers, the
interface's contracts).  Elsewhere: the tournament that hung on several host devices
(``tests/tools/test_many_devices.py``), runs of several processes
(``tests/tools/test_distributed.py``), PPO's stop and resume (``tests/rl/test_ppo.py``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax import cli
from spoilfive_jax.core.deprecation import SpoilFiveDeprecationWarning

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from tiny_game import HighCard  # noqa: E402


@pytest.fixture
def high_card():
    """High Card registered for the test (a game with the core ``Env`` alone)."""
    sf.register("high_card", HighCard)
    yield sf.make("high_card")
    sf.unregister("high_card")


def error_of(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert cli.main(argv) == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["rollout", "--hands", "10", "--hands", "20"], "--hands 10 and --hands 20"),
        (["rollout", "--seed", "1", "--seed", "2"], "--seed 1 and --seed 2"),
        (["rollout", "--players", "4", "-n", "5"], "--players 4 and -n 5"),
        (["rollout", "--policy", "random", "--policy", "heuristic"], "--policy random and"),
        (["tournament", "random", "heuristic", "--hands", "9", "--hands", "8"], "--hands 9 and"),
        (["score", "5H JH AH KD 2C", "--rollouts", "8", "--rollouts", "9"], "--rollouts 8 and"),
    ],
)
def test_a_flag_given_twice_with_different_values_is_an_error(
    capsys: pytest.CaptureFixture[str], argv: list[str], shown: str
) -> None:
    err = error_of(capsys, argv)
    assert shown in err and "contradict each other; give one" in err, err


def test_a_flag_given_twice_with_the_same_value_is_accepted() -> None:
    args = cli.build_parser().parse_args(["rollout", "--hands", "10", "--hands", "10"])
    assert args.hands == 10


@pytest.mark.parametrize("game", ["forty_five", "twenty_five", "auction_forty_fives", "oh_hell"])
def test_pettingzoo_plays_each_game_at_its_own_table(game: str) -> None:
    from spoilfive_jax.rl import pettingzoo

    assert len(pettingzoo.env(game=game).possible_agents) == sf.make(game).num_players
    assert len(pettingzoo.raw_env(game=game).possible_agents) == sf.make(game).num_players
    assert len(pettingzoo.env(num_players=3, game=game).possible_agents) == 3


@pytest.mark.parametrize(
    ("suit", "name"), [("C", "clubs"), ("D", "diamonds"), ("H", "hearts"), ("S", "spades")]
)
def test_oh_hell_rules_name_the_trump_suit_asked_for(
    capsys: pytest.CaptureFixture[str], suit: str, name: str
) -> None:
    assert cli.main(["rules", suit, "--game", "oh_hell"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == f"Trump: {name}"


@pytest.mark.parametrize("bad", [7, 5, -1])
def test_observe_refuses_a_seat_outside_the_table(bad: int) -> None:
    env = sf.make("spoil_five", 5)
    state = env.init(0)
    with pytest.raises(ValueError, match=f"player must be 0..4, got {bad}"):
        env.observe(state, bad)
    with pytest.raises(ValueError, match=f"player must be 0..4, got {bad}"):
        env.observe(state, player=bad)


def test_observe_under_jit_gives_a_seat_outside_the_table_an_all_zero_view() -> None:
    env = sf.make("forty_five", 4)
    state = env.init(1)
    seen = jax.jit(env.observe)
    for bad in (4, -1, 9):
        assert not np.asarray(seen(state, jnp.int32(bad))).any()
    for p in range(4):
        assert np.array_equal(seen(state, jnp.int32(p)), env.observe(state, p))


def test_oh_hell_bid_menu_shows_the_number_that_bids() -> None:
    run = _cli(["play", "--game", "oh_hell", "--seed", "3"], input="1\nq\n")
    menu = next(line for line in run.stdout.splitlines() if line.startswith("[0] bid 0"))
    for item in menu.split("  "):
        number, label = item.split("] ")
        assert label == f"bid {number[1:]}"  # the number shown is the bid a bare number makes
    assert "You bid 1." in run.stdout


def test_api_test_of_a_game_whose_action_str_knows_only_its_actions(high_card: sf.Env) -> None:
    with pytest.raises(IndexError):  # (the game's own action_str, as its author wrote it)
        high_card.action_str(high_card.num_actions)
    sf.testing.api_test(high_card, num=4)
    with pytest.raises(ValueError, match=r"not an action id 0\.\.5"):
        high_card.checked_step(high_card.init(0), -1)


def test_the_command_line_runs_a_game_that_declares_only_the_core(
    capsys: pytest.CaptureFixture[str], high_card: sf.Env
) -> None:
    assert cli.main(["rollout", "--game", "high_card", "--hands", "600", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("High Card · 600 hands · 3 players")
    assert "mean_rewards" in out and "decisions 1,800" in out
    argv = ["tournament", "random", "highest", "--game", "high_card", "--hands", "300"]
    assert cli.main([*argv, "--quiet", "--json", "-"]) == 0
    assert '"highest"' in capsys.readouterr().out
    assert cli.main(["rules", "--game", "high_card"]) == 0
    assert capsys.readouterr().out.startswith("Rules (High Card, 3 players)")


def _cli(argv: list[str], input: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """``spoilfive ARGV`` in a fresh process (without the suite's compilation cache)."""
    keep = {k: v for k, v in os.environ.items() if k != "JAX_COMPILATION_CACHE_DIR"}
    return subprocess.run(
        [sys.executable, "-m", "spoilfive_jax", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        input=input,
        env={**keep, **env},
    )


def test_the_command_line_keeps_compiled_programs_between_runs(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    argv = ["rollout", "--hands", "100", "--quiet", "--players", "3"]
    assert _cli(argv, SPOILFIVE_COMPILE_CACHE=str(cache)).returncode == 0
    assert any(cache.iterdir())  # the programs compiled, on disk for the next run
    home = tmp_path / "home"
    assert _cli(argv, SPOILFIVE_COMPILE_CACHE="off", XDG_CACHE_HOME=str(home)).returncode == 0
    assert not home.exists()
    assert cli.compile_cache_dir() is not None


def test_a_key_of_the_wrong_shape_is_a_value_error() -> None:
    env = sf.make("spoil_five")
    with pytest.raises(ValueError, match=r"uint32\[3\] \(a raw key is uint32\[2\]\)"):
        env.init(jnp.array([1, 2, 3], jnp.uint32))
    with pytest.raises(ValueError, match="a batch of keys"):
        env.init(jnp.zeros((4, 2), jnp.uint32))


def test_progress_in_a_log_is_one_whole_line_with_one_time() -> None:
    run = _cli(["rollout", "--hands", "300000", "--players", "3"], COLUMNS="80")
    assert run.returncode == 0
    (line,) = [x for x in run.stderr.splitlines() if x.startswith("rollout")]
    assert re.search(r"300000/300000 hands · [\d,]+ hands/s · took \d+:\d\d$", line), line
    assert line.count("took") == 1 and "ETA" not in line and len(line) > 80


@pytest.mark.parametrize(
    "argv",
    [
        ["rollout", "--hands", "10", "--seed", "99999999999999999999999"],
        ["rollout", "--hands", "10", "--checkpoint", "/proc/nope"],
    ],
)
def test_an_error_during_a_run_is_one_line_with_no_blank_line(argv: list[str]) -> None:
    run = _cli(argv)
    assert run.returncode == 2
    assert run.stderr.splitlines()[0].startswith("spoilfive: error: "), run.stderr


def test_analysis_tables_show_probabilities_in_percent_and_no_empty_columns() -> None:
    env = sf.make("forty_five")
    columns, _ = sf.analyze(0, env, env.init(2), 64).cells()
    assert columns == ["action", "points", "±"]  # (make % is Auction's alone)
    oh = sf.make("oh_hell")
    res = sf.analyze(0, oh, oh.init(0), 64)
    columns, rows = res.cells()
    assert columns == ["action", "points", "±", "P(bid made) %", "±"]
    made = [float(r[3]) for r in rows]
    assert all(0 <= m <= 100 for m in made) and max(made) > 1  # percentages, not fractions


def test_the_package_s_deprecated_names_are_errors_in_its_own_tests() -> None:
    with pytest.raises(SpoilFiveDeprecationWarning):
        _ = sf.SpoilFive  # type: ignore[attr-defined]
    with pytest.deprecated_call(match="spoil_five.SpoilFive"):  # (where the warning is the point)
        _ = sf.SpoilFive  # type: ignore[attr-defined]


def test_more_devices_than_cores_is_said_once(capsys: pytest.CaptureFixture[str]) -> None:
    from spoilfive_jax.tools.cores import cpu_count

    many = cpu_count() + 62
    assert cli.main(["rollout", "--devices", str(many), "--hands", "10", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count(f"--devices {many} is more than the {cpu_count()} core") == 1


def test_the_docs_say_never_to_use_openspiel_s_cpp_bots() -> None:
    text = " ".join((ROOT / "docs" / "analysis.md").read_text(encoding="utf-8").split())
    said = text[text.index("Never hand these games to OpenSpiel's C++ bots") :][:400]
    assert "`pyspiel.ISMCTSBot`" in said and "segmentation fault" in said
    assert "ismcts_bot(game, simulations)" in said
