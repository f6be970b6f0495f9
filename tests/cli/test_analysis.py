"""The command line's position analysis: ``pimc`` / ``pimc:K`` wherever a
policy is named, ``hint`` (or ``?``) in terminal play, and ``spoilfive analyze``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

import spoilfive_jax as sf
from spoilfive_jax import cli
from spoilfive_jax.cli.errors import CliError
from spoilfive_jax.cli.policies import builtin_or_agent, resolve, seat_policies
from spoilfive_jax.core.terminal import Quit, prompt_action
from spoilfive_jax.tools.pimc import DEFAULT_SAMPLES, PimcPolicy

# The README's worked example (the eldest hand holds 5♦ J♥ A♥ and leads).
POSITION = "players=5; dealer=0; turnup=7D; player=1; hand=5D JH AH KC 4S; history="
# A small late position: 3 players, trick 2 (cheap to analyse).
SMALL = "players=3; dealer=0; turnup=7D; player=2; hand=8H QS JS 2H; history=1:QC 2:5C 0:2S 1:3C"
# A Forty-Five position (4 players, seat 3 to follow a club lead).
FAMILY = "players=4; dealer=0; turnup=7D; player=3; hand=8H QS JS 2H 3C; history=1:QC 2:5C"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = cli.main(list(argv))
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def one_line_error(rc: int, out: str, err: str, fragment: str) -> None:
    assert rc == 2, err
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("spoilfive: error: ") and fragment in lines[0], lines[0]


# ---------------------------------------------------------------------------- pimc as a policy


def test_pimc_names_resolve_to_the_search_bot() -> None:
    env = sf.spoil_five.SpoilFive(3)
    bot = resolve("pimc", env, {})
    assert isinstance(bot, PimcPolicy) and bot.num_samples == DEFAULT_SAMPLES and bot.env == env
    assert resolve(" pimc:8 ", env, {}).num_samples == 8
    assert builtin_or_agent("pimc:4", env).num_samples == 4  # play --bots
    family = sf.make("forty_five")
    assert resolve("pimc:2", family, {}).env == family
    policies, names = seat_policies("pimc:2,heuristic,random", env)
    assert isinstance(policies[0], PimcPolicy) and names == ["pimc:2", "heuristic", "random"]
    for bad in ("pimc:0", "pimc:x", "pimc:", "pimcx", "pimc:-3"):
        with pytest.raises(CliError, match="pimc"):
            resolve(bad, env, {})


def test_unknown_policy_names_pimc(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "rollout", "--policy", "pimc:zero", "--hands", "2")
    one_line_error(rc, out, err, "pimc or pimc:K")
    rc, out, err = run(capsys, "tournament", "nonsense", "random", "--hands", "2")
    one_line_error(rc, out, err, "pimc[:K]")


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_rollout_with_pimc(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(
        capsys, "rollout", "--players", "3", "--policy", "pimc:2,heuristic,random",
        "--hands", "4", "--json", "-", "--quiet",
    )  # fmt: skip
    assert rc == 0, err
    data = json.loads(out)
    assert data["policies"] == ["pimc:2", "heuristic", "random"]


@pytest.mark.slow
def test_tournament_and_score_with_pimc(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(
        capsys, "tournament", "pimc:2", "heuristic", "--players", "3", "--hands", "2",
        "--json", "-", "--quiet",
    )  # fmt: skip
    assert rc == 0, err
    names = [p["policy"] for p in json.loads(out)["policies"]]
    assert sorted(names) == ["heuristic", "pimc:2"]
    rc, out, err = run(
        capsys, "score", "5H JC AH KD 2S", "--turnup", "7D", "--players", "3",
        "--policy", "pimc:2", "--rollouts", "4", "--json", "-",
    )  # fmt: skip
    assert rc == 0, err
    assert json.loads(out)


# ---------------------------------------------------------------------------- hint in play


def _prompt(script: str, hint: object) -> tuple[int | None, str]:
    out = io.StringIO()
    try:
        action = prompt_action(
            io.StringIO(script), out, [(7, "7C"), (8, "8C")], "HELP TEXT", int, {7, 8},
            lambda a: "no", hint=hint,  # type: ignore[arg-type]
        )  # fmt: skip
    except Quit:
        return None, out.getvalue()
    return action, out.getvalue()


def test_hint_and_help_at_the_prompt() -> None:
    action, text = _prompt("hint\n?\nhelp\n8\n", lambda: "THE ANALYSIS")
    assert action == 8
    assert text.count("THE ANALYSIS") == 2 and text.count("HELP TEXT") == 1
    action, text = _prompt("?\nq\n", None)  # no analysis: ? is the help
    assert action is None and "HELP TEXT" in text


def test_hint_in_spoil_five_play(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("hint\n" + "1\n" * 40))
    rc, out, err = run(capsys, "play", "--players", "3", "--bots", "random", "--seat", "1")
    assert rc == 0, err
    assert "Type hint (or ?) for advice" in out
    head = next(line for line in out.splitlines() if line.startswith("action"))
    assert "chips" in head and "win %" in head and "±" in out
    assert "samples per action, player 1)" in out
    assert "Your chips this hand:" in out


@pytest.mark.slow
def test_pimc_bots_and_a_family_hint(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 40))
    rc, out, err = run(capsys, "play", "--players", "3", "--bots", "pimc:2", "--seat", "0")
    assert rc == 0, err
    assert "against pimc:2 bots" in out and "Your chips this hand:" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO("?\nq\n"))
    rc, out, err = run(capsys, "play", "--game", "forty_five", "--bots", "random")
    assert rc == 0, err
    assert "points" in next(line for line in out.splitlines() if line.startswith("action"))
    assert "best: " in out and "the best bot's choice from these samples" in out


@pytest.mark.slow
def test_best_bots_in_play_and_a_tournament(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 40))
    rc, out, err = run(capsys, "play", "--players", "3", "--bots", "best", "--seat", "0")
    assert rc == 0, err
    assert "against best bots" in out and "Your chips this hand:" in out
    rc, out, err = run(capsys, "tournament", "best", "random", "--players", "3", "--hands", "2")
    assert rc == 0, err
    assert any(line.startswith("best ") for line in out.splitlines())


# ---------------------------------------------------------------------------- spoilfive analyze


def test_analyze_a_position(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, out, err = run(capsys, "analyze", SMALL, "--samples", "16", "--quiet")
    assert rc == 0, err
    assert "Spoil Five" in out and "player 2 to act" in out and SMALL in out
    assert "win %" in out and "chips" in out
    rc, out, err = run(capsys, "analyze", SMALL, "--samples", "16", "--json", "-", "--quiet")
    assert rc == 0, err
    data = json.loads(out)
    moves = data["moves"]
    assert data["samples"] == 16 and data["positions"] == [SMALL]
    assert {m["text"] for m in moves} <= {"8H", "QS", "JS", "2H"} and moves  # machine text
    chips = [m["expected_chips"] for m in moves]
    assert chips == sorted(chips, reverse=True)  # best first
    assert [m["rank"] for m in moves] == list(range(1, len(moves) + 1))
    assert all(m["player"] == 2 and m["expected_chips_se"] >= 0 for m in moves)
    # the same seed gives the same numbers, from --file (comments skipped) and to --csv
    f = tmp_path / "positions.txt"
    f.write_text(f"# two positions\n{SMALL}\n\n{SMALL}  # again\n", encoding="utf-8")
    target = tmp_path / "out.csv"
    rc, out, err = run(
        capsys, "analyze", "--file", str(f), "--samples", "16", "--csv", str(target), "--quiet"
    )
    assert rc == 0, err
    rows = target.read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("position,game,player,rank,action,text,expected_chips")
    assert len(rows) == 1 + 2 * len(moves)
    first = [r for r in rows[1:] if r.startswith("1,")]
    assert [float(r.split(",")[6]) for r in first] == pytest.approx(chips)


def test_analyze_a_family_position(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("analyze", "--game", "forty_five", FAMILY, "--samples", "8", "--json", "-", "--quiet")
    argv += ("--policy", "random")  # (the legal move, not the playouts, is checked)
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    moves = json.loads(out)["moves"]
    assert {m["text"] for m in moves} == {"3C"}  # it holds a club and no trump: follow
    assert all(m["player"] == 3 and "expected_points" in m for m in moves)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["analyze", SMALL.replace("8H QS", "8H QC")], "the position: card QC seen twice"),
        (["analyze", SMALL.replace("1:QC 2:5C", "2:5C 1:QC")], "out of turn"),
        (["analyze", SMALL.replace("JS 2H", "JS")], "wrong number of cards"),
        (["analyze", "players=3; nonsense=1"], "unknown position field"),
        (["analyze"], "give one position or --file"),
        (["analyze", SMALL, "--file", "x.txt"], "give one position or --file"),
        (["analyze", "--file", "/nonexistent/positions.txt"], "no such file"),
        (["analyze", SMALL, "--json", "/nonexistent/dir/out.json"], "--json: cannot write"),
        (["analyze", SMALL, "--samples", "1"], "expected an integer >= 2"),
        (["analyze", SMALL, "--policy", "pimc"], "pimc cannot play out"),
        (["analyze", SMALL, "--policy", "greedy"], "unknown policy 'greedy'"),
        (["analyze", "--game", "forty_five", "player=0"], "needs player= and hand="),
        (["analyze", "--game", "forty_five", FAMILY.replace("1:QC", "2:QC")], "out of turn"),
    ],
)
def test_analyze_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    rc, out, err = run(capsys, *argv, "--quiet")
    one_line_error(rc, out, err, fragment)


def test_analyze_bad_line_of_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "p.txt"
    f.write_text(f"{SMALL}\n# comment\n{SMALL.replace('1:3C', '1:3C 2:3C')}\n", encoding="utf-8")
    rc, out, err = run(capsys, "analyze", "--file", str(f), "--quiet")
    one_line_error(rc, out, err, f"{f}:3: ")


def test_a_position_names_its_table() -> None:
    env = sf.spoil_five.SpoilFive(5)
    table = sf.position_env(env, SMALL.replace("players=3;", "players=3; rules=seed,renege=trick;"))
    assert table.num_players == 3 and table.rules.renege == "trick"
    assert sf.position_env(env, POSITION) is env
    with pytest.raises(ValueError, match="the position has 3 players"):
        sf.position_from_history(env, SMALL)
    with pytest.raises(ValueError, match="position_env"):
        sf.position_from_history(
            sf.spoil_five.SpoilFive(3), SMALL.replace("dealer=0;", "rules=traditional;")
        )
