"""Regressions of the command-line defects a new user hit and the shape of the CLI
package: each test would have caught its defect."""

from __future__ import annotations

import ast
import io
import json
import re
import sys
import types
from pathlib import Path

import jax
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax import cli
from spoilfive_jax.cli import output
from spoilfive_jax.core.present import Table
from spoilfive_jax.games.spoil_five.play import TerminalGame

CLI_DIR = Path(cli.__file__).parent
SMALL = ["--players", "3", "--hands", "300", "--batch", "128", "--seed", "3", "--quiet"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = cli.main(list(argv))
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def error_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == "", (rc, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("spoilfive: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def no_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any rollout, score or tournament started fails the test: checks must come first."""

    def ran(*args: object, **kwargs: object) -> None:
        raise AssertionError("the work started before the options were checked")

    for name in ("rollout", "score_hands", "evaluate"):
        monkeypatch.setattr(sf, name, ran)


# ---------------------------------------------------------------------------- item 1


def test_plot_without_matplotlib_is_refused_before_the_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, no_run: None, tmp_path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    line = error_of(capsys, "rollout", "--plot", str(tmp_path / "seats.png"))
    assert "--plot needs matplotlib: pip install 'spoilfive-jax[plot]'" in line


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--plot", "{tmp}/seats.txt"], "--plot: cannot draw"),
        (["--plot", "{tmp}/seats"], "no extension"),
        (["--json", "/nonexistent/dir/x.json"], "--json: cannot write /nonexistent/dir/x.json"),
        (["--csv", "{tmp}"], "it is a directory"),
        (["--csv", "/proc/version"], "--csv: cannot write /proc/version"),
    ],
)
def test_unusable_outputs_are_refused_before_the_run(
    capsys: pytest.CaptureFixture[str], no_run: None, tmp_path: Path, argv, fragment
) -> None:
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert fragment in error_of(capsys, "rollout", *argv)
    assert list(tmp_path.iterdir()) == []  # the check leaves no file behind


def test_score_and_tournament_check_outputs_first(
    capsys: pytest.CaptureFixture[str], no_run: None
) -> None:
    bad = ["--json", "/nonexistent/dir/x.json"]
    assert "--json: cannot write" in error_of(capsys, "score", "5H JH AH KD 2C 9H", *bad)
    assert "--json: cannot write" in error_of(capsys, "tournament", *bad)
    assert "--json: cannot write" in error_of(capsys, "bench", "--quick", *bad)


# ---------------------------------------------------------------------------- items 6, 7


def test_score_file_that_is_not_utf8_names_the_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "hands.txt"
    f.write_bytes(b"# hands\n5H JH AH KD 2C 9H\n7C 8C 9S KS 2D \xff 9H\n")
    line = error_of(capsys, "score", "--file", str(f))
    assert f"{f}:3: not UTF-8 text (byte 0xff" in line


def test_garbage_agent_file_is_named_not_an_agent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "garbage.npz"
    agent.write_bytes(b"not an agent at all")

    def load_policy(path: str) -> object:  # what numpy says about such a file
        raise ValueError("Cannot load file containing pickled data when allow_pickle=False")

    fake = types.ModuleType("spoilfive_jax.rl.agent")
    fake.load_policy = load_policy  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spoilfive_jax.rl.agent", fake)
    line = error_of(capsys, "rollout", "--policy", f"agent:{agent}")
    assert f"{agent} is not an agent saved by this project" in line
    assert "allow_pickle" not in line


# ---------------------------------------------------------------------------- items 8, 9


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["rollout", "--jink", "--no-jink"], "--jink and --no-jink contradict each other"),
        (["rollout", "--no-jink", "--jink"], "--no-jink and --jink contradict each other"),
        (["rules", "--game", "forty_five", "--joker", "--no-joker"], "contradict each other"),
        (
            ["rules", "--renege", "led", "--renege", "deal"],
            "--renege led and --renege deal contradict",
        ),
        (["score", "5H JH AH KD 2C 9H", "--turnup", "8H"], "the sixth card 9♥ is a turn-up"),
        (["rules", "--players", "4"], "unrecognized arguments: --players"),
        (["rules", "--game", "auction"], "invalid choice: 'auction'"),
    ],
)
def test_conflicts_and_unknown_options_are_named(
    capsys: pytest.CaptureFixture[str], no_run: None, argv: list[str], fragment: str
) -> None:
    assert fragment in error_of(capsys, *argv)


def test_the_same_flag_twice_with_the_same_value_is_fine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc, out, _ = run(capsys, "rules", "C", "--jink", "--jink", "--renege", "led", "--renege", "led")
    assert rc == 0 and "jink=on" in out and "renege=led" in out


def test_help_texts_print_percent_signs_once(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("tournament", "score", "rollout"):
        rc, out, _ = run(capsys, command, "--help")
        assert rc == 0 and "%%" not in out
    rc, out, _ = run(capsys, "tournament", "--help")
    assert "95% confidence" in out
    rc, out, _ = run(capsys, "--help")
    assert "win %, spoil %" in out


# ---------------------------------------------------------------------------- items 10, 11, 12


def test_one_hand_prints_na_for_the_standard_error(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rollout", "--players", "3", "--hands", "1", "--batch", "128", "--quiet"]
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    assert "± n/a" in out and "± 0.00" not in out


def test_json_writes_the_rules_in_force(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "rollout", *SMALL, "--ante", "2", "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert data["game"] == "spoil_five"
    assert data["rules"]["jink_bonus"] == 2  # the ante, in force; not null
    words = sf.capabilities.Presentation
    env = sf.forty_five.FortyFive(4)
    assert env.capability(words).rules_in_force(env)["target"] == 45
    env = sf.make("auction_forty_fives")
    assert env.capability(words).rules_in_force(env)["target"] == 120


def test_cards_with_suit_symbols_are_read_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["score", "5♥ J♥ A♥ K♦ 10♣", "--turnup", "9♥", "--players", "3", "--rollouts", "64"]
    rc, out, err = run(capsys, *argv, "--json")
    assert rc == 0, err
    hand = json.loads(out)["hands"][0]
    assert (hand["hand"], hand["turnup"]) == ("5H JH AH KD TC", "9H")  # machine text in JSON
    game = TerminalGame(
        sf.spoil_five.SpoilFive(3), io.StringIO(), io.StringIO(), bots=sf.spoil_five.RANDOM
    )
    options = [(sf.card_id("7C"), "7♣")]
    assert game._parse("10♥", options) == sf.card_id("10H")
    assert game._parse("j♠", options) == sf.card_id("JS")
    assert sf.spoil_five.action_str(sf.card_id("TD")) == "10♦"  # one notation for people


def test_checked_step_speaks_the_people_notation() -> None:
    env = sf.spoil_five.SpoilFive(3)
    state = env.init(jax.random.PRNGKey(0))
    bad = next(a for a in range(52) if a not in env.legal_actions(state))
    with pytest.raises(ValueError, match=re.escape(f"({sf.card_symbol(bad)})")):
        env.checked_step(state, bad)


# ---------------------------------------------------------------------------- item 15


def test_rich_tables_have_no_padding(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("rich")
    output.show_table(Table("title line", ["seat", "value"], [["0", "1.5"], ["1", "12.25"]]))
    out = capsys.readouterr().out
    lines = out.split("\n")
    assert lines[0] == "title line" and lines[-1] == ""  # ends with one newline
    assert all(line == line.rstrip() for line in lines)
    assert "" not in lines[:-1]  # no blank padding lines


def test_family_trick_distribution_has_a_column_per_count() -> None:
    env = sf.forty_five.FortyFive(4)
    t = np.array([[0.04, 0.14, 0.34, 0.30, 0.14, 0.04], [0.04, 0.14, 0.30, 0.34, 0.14, 0.04]])
    summary = {
        "hands": 50,
        "hands_per_s": 10.0,
        "mean_points": np.full(4, 15.0),
        "mean_points_se": np.ones(4),
        "mean_team_points": np.full(2, 15.0),
        "mean_team_points_se": np.ones(2),
        "team_win_rate": np.full(2, 0.4),
        "team_win_rate_se": np.full(2, 0.07),
        "mean_team_tricks": np.full(2, 2.5),
        "team_tricks": t,
        "rob_rate": 0.4,
        "mean_decisions": 20.0,
    }
    report = env.capability(sf.capabilities.Presentation).rollout_report(
        env, summary, ["random"] * 4, 1.0
    )
    teams = report.tables[1]
    assert list(teams.columns[-6:]) == [f"{k} tricks" for k in range(6)]
    assert all(len(r) == len(teams.columns) for r in teams.rows)
    plain = output.plain_table(teams.columns, teams.rows, teams.left).splitlines()
    head, row = plain[0], plain[2]
    for k, value in enumerate(["4.0", "14.0", "34.0", "30.0", "14.0", "4.0"]):
        end = head.index(f"{k} tricks") + len(f"{k} tricks")
        assert row[end - len(value) : end] == value  # each value right under its heading


# ---------------------------------------------------------------------------- the package


def test_cli_modules_are_small_and_never_name_a_game() -> None:
    for path in CLI_DIR.glob("*.py"):
        text = path.read_text("utf-8")
        assert len(text.splitlines()) <= 600, path
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                names += [a.name for a in node.names]
                assert not any(n.startswith("spoilfive_jax.games") for n in names), (path, names)
            if isinstance(node, (ast.Name, ast.Attribute)):  # no game class, so no isinstance
                name = node.id if isinstance(node, ast.Name) else node.attr
                assert name not in ("SpoilFive", "FortyFive", "Rules", "FortyFiveRules"), path


def test_game_takes_exactly_the_registry_ids(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "rules", "--help")
    assert rc == 0
    assert "{" + ",".join(sf.available_games()) + "}" in out


def test_presentation_modules_of_the_games_are_peers() -> None:
    """The family's play, render and report share only core (``core.present``,
    ``core.terminal``) with Spoil Five's, never import them."""
    games = CLI_DIR.parent / "games"
    for own, other in (("forty_five", "spoil_five"), ("spoil_five", "forty_five")):
        for name in ("play", "render", "report"):
            path = games / own / f"{name}.py"
            if path.exists():
                assert f"spoilfive_jax.games.{other}" not in path.read_text("utf-8"), path
