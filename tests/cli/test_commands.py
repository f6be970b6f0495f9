"""The ``spoilfive`` command line and terminal play.

Every subcommand runs once through a real subprocess (``python -m spoilfive_jax``), ``play`` with
scripted input.  The subprocesses start together when this module starts (each pays the JAX
import and its compiles) and run while the in-process tests below drive ``cli.main(argv)`` and
the terminal game with captured streams; the subprocess tests at the end collect them.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import shutil
import subprocess
import sys
import types
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
import spoilfive_jax.rl
from spoilfive_jax import cli
from spoilfive_jax.games.spoil_five.play import Quit, TerminalGame, explain_illegal, play_terminal
from spoilfive_jax.games.spoil_five.render import view

ROOT = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------------------- subprocesses

PLAY_SCRIPT = "xx\n" + "1\n" * 60


def _commands(tmp: Path) -> dict[str, tuple[list[str], str]]:
    """name -> (argv after ``python -m spoilfive_jax``, stdin)."""
    return {
        "rollout": (
            [
                *("rollout", "--hands", "2000", "--batch", "1024", "--players", "4"),
                *("--policy", "heuristic,random,random,random", "--json", "-"),
                *("--csv", str(tmp / "summary.csv"), "--plot", str(tmp / "plot.png")),
            ],
            "",
        ),
        "score": (
            [
                *("score", "5H JH AH KD 2C", "--turnup", "9H", "--seat", "2"),
                *("--players", "5", "--rollouts", "500"),
            ],
            "",
        ),
        "tournament": (
            ["tournament", "heuristic", "random", "--hands", "300", "--players", "3", "--quiet"],
            "",
        ),
        "bench": (
            ["bench", "--quick", "--no-peers", "--batch", "64", "--reps", "1", "--pickers", "bits"],
            "",
        ),
        "play": (["play", "--players", "3", "--hands", "2", "--seed", "1"], PLAY_SCRIPT),
        "rules": (["rules", "H", "--preset", "traditional"], ""),
        "bad": (["score", "5H 5H AH KD 2C", "--turnup", "9H"], ""),
    }


def installed_copy(tmp: Path) -> Path:
    """A folder holding the package alone, as a normal (non-editable) install lays it out in
    site-packages: no ``benchmarks/``, ``docs/`` or ``tests/`` beside it."""
    site = tmp / "site-packages"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "spoilfive_jax", site / "spoilfive_jax", ignore=ignore)
    return site


class Proc:
    def __init__(
        self, name: str, argv: list[str], stdin: str, tmp: Path, path: Path = ROOT
    ) -> None:
        self.out_path, self.err_path = tmp / f"{name}.out", tmp / f"{name}.err"
        env = dict(os.environ, PYTHONPATH=str(path), COLUMNS="160", PYTHONIOENCODING="utf-8")
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.popen = subprocess.Popen(
                [sys.executable, "-m", "spoilfive_jax", *argv],
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=err,
                text=True,
                env=env,
                cwd=tmp,
            )
        assert self.popen.stdin is not None
        self.popen.stdin.write(stdin)
        self.popen.stdin.close()

    def result(self, timeout: float = 240) -> tuple[int, str, str]:
        rc = self.popen.wait(timeout)
        return rc, self.out_path.read_text("utf-8"), self.err_path.read_text("utf-8")


@pytest.fixture(scope="module", autouse=True)
def procs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Proc]]:
    tmp = tmp_path_factory.mktemp("cli")
    # ``bench`` runs from the package alone: it must not need a source checkout
    site = installed_copy(tmp)
    started = {
        name: Proc(name, argv, stdin, tmp, site if name == "bench" else ROOT)
        for name, (argv, stdin) in _commands(tmp).items()
    }
    yield started
    for p in started.values():
        if p.popen.poll() is None:
            p.popen.kill()
            p.popen.wait()


# ---------------------------------------------------------------------------- in-process helpers


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = cli.main(list(argv))
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def assert_one_line_error(rc: int, out: str, err: str, fragment: str) -> None:
    assert rc == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("spoilfive: error: ")
    assert fragment in lines[0], lines[0]
    assert "Traceback" not in err


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["score", "5H JH XX KD 2C", "--turnup", "9H"], "not a card: 'XX'"),
        (["score", "5H JH 5H KD 2C", "--turnup", "9H"], "duplicate card 5♥"),
        (["score", "5H JH KD 2C", "--turnup", "9H"], "a hand has 5 cards"),
        (["score", "5H JH AH KD 2C 3C 4C"], "got 7"),
        (["score", "5H JH AH KD 2C", "--turnup", "5H"], "turn-up 5♥ is also in the hand"),
        (["score", "5H JH AH KD 2C"], "no turn-up"),
        (["score", "5H JH AH KD 2C", "--turnup", "9H 8H"], "--turnup takes one card"),
        (["score", "5H JH AH KD 2C", "--turnup", "1H"], "--turnup: not a card: '1H'"),
        (["score", "5H JH AH KD 2C 9H", "--seat", "5"], "seat must be 0..4"),
        (["score"], "give one or more hands"),
        (["score", "--file", "/nonexistent/hands.txt"], "No such file"),
        (["rollout", "--players", "1"], "2 to 10 players"),
        (["rollout", "--players", "11"], "2 to 10 players"),
        (["rollout", "--hands", "0"], "--hands: expected an integer >= 1"),
        (["rollout", "--hands", "many"], "--hands: expected an integer"),
        (["rollout", "--ante", "-1"], "--ante: expected an integer >= 0"),
        (["rollout", "--deal-packets", "4,1"], "expected 2,3 or 3,2"),
        (["rollout", "--follow", "sideways"], "invalid choice: 'sideways'"),
        (["rollout", "--preset", "modern"], "invalid choice: 'modern'"),
        (["rollout", "--policy", "smart"], "unknown policy 'smart'"),
        (["rollout", "--policy", "heuristic,random"], "one per seat (5)"),
        (["rollout", "--policy", "agent:model.pt"], "must end in .npz or .msgpack"),
        (["rollout", "--policy", "agent:/nonexistent/a.npz"], "agent file not found"),
        (["rollout", "--per-hand"], "--per-hand needs --json, --csv or --parquet"),
        (["rollout", "--json", "--csv"], "cannot both go to stdout"),
        (["rollout", "--plot", "/nonexistent/dir/p.png"], "--plot: cannot write"),
        (["rollout", "--dealer", "7"], "--dealer must be a seat 0..4"),
        (["tournament", "heuristic"], "at least two policies"),
        (["tournament", "random", "random"], "each policy may appear once"),
        (["play", "--seat", "5"], "--seat must be a seat 0..4"),
        (["play", "--bots", "clever"], "unknown policy 'clever'"),
        (["rollout", "--jink", "--no-jink"], "--jink and --no-jink contradict each other"),
        (
            ["rollout", "--follow", "seed", "--follow", "traditional"],
            "--follow seed and --follow traditional contradict each other",
        ),
        (["score", "5H JH AH KD 2C 9H", "--turnup", "8H"], "sixth card 9♥ is a turn-up"),
        (["rollout", "--game", "spoilfive"], "invalid choice: 'spoilfive'"),
        (["rollout", "--threshold", "3"], "unrecognized arguments: --threshold"),
        (["score", "5H JH AH KD 2C 9H", "--threshold", "3"], "--threshold: --game spoil_five"),
        (["bench", "--pickers", "fast"], "pickers are bits and/or mask"),
        (["rules", "Z"], "unknown suit 'Z'"),
        (["rules", "--players", "4"], "unrecognized arguments: --players"),
        ([], "required: COMMAND"),
        (["deal"], "invalid choice: 'deal'"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    assert_one_line_error(*run(capsys, *argv), fragment)


def test_score_file_errors_name_the_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "hands.txt"
    f.write_text("# my hands\n5H JH AH KD 2C 9H\n\n7C 8C 9S KS\n")
    assert_one_line_error(*run(capsys, "score", "--file", str(f)), f"{f}:4: a hand has 5 cards")


def test_missing_agent_module(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "a.npz"
    agent.write_bytes(b"")
    monkeypatch.setitem(sys.modules, "spoilfive_jax.rl.agent", None)  # as if not installed
    monkeypatch.delattr(spoilfive_jax.rl, "agent", raising=False)
    rc, out, err = run(capsys, "rollout", "--policy", f"agent:{agent}")
    assert_one_line_error(rc, out, err, "agent policies need spoilfive_jax.rl.agent")


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "--help")
    assert rc == 0 and all(c in out for c in ("rollout", "score", "tournament", "bench", "play"))
    rc, out, _ = run(capsys, "rollout", "--help")
    assert rc == 0 and "--deal-packets" in out and "--ante-after-spoil" in out
    rc, out, _ = run(capsys, "--version")
    assert rc == 0 and sf.__version__ in out


# ---------------------------------------------------------------------------- rules


def test_rules_ranking(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "rules", "spades", "--renege", "led", "--no-jink", "--ante", "2")
    assert rc == 0
    assert "Trump spades ♠: 14 trumps, highest first" in out
    assert "5♠ J♠ A♥ A♠ K♠ Q♠ 2♠ 3♠ 4♠ 6♠ 7♠ 8♠ 9♠ 10♠" in out
    assert "K♦ Q♦ J♦ 10♦ 9♦ 8♦ 7♦ 6♦ 5♦ 4♦ 3♦ 2♦ A♦" in out  # red plain: ace lowest
    assert "renege=led" in out and "jink=off" in out and "ante=2" in out
    assert "outranks the trump led" in out
    rc, out, _ = run(capsys, "rules")
    assert out.count("Trump ") == 4
    assert "5♥ J♥ A♥ K♥ Q♥ 10♥ 9♥ 8♥ 7♥ 6♥ 4♥ 3♥ 2♥" in out  # 13 trumps, no second A♥


# ---------------------------------------------------------------------------- rollout, score, ...

SMALL = ["--players", "3", "--hands", "300", "--batch", "128", "--seed", "3"]


def test_rollout_per_hand_json_and_csv(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    j, c = tmp_path / "hands.json", tmp_path / "hands.csv"
    argv = ["rollout", *SMALL, "--policy", "heuristic,random,random", "--per-hand"]
    rc, out, err = run(capsys, *argv, "--json", str(j), "--csv", str(c), "--quiet")
    assert rc == 0, err
    data = json.loads(j.read_text())
    assert data["policies"] == ["heuristic", "random", "random"]
    assert data["rules"]["follow"] == "seed"
    hands = data["hands"]
    assert len(hands) == 300
    for h in hands:  # no chips carried in: the pot is won or carried out
        assert sum(h["chips"]) == -h["carried_out"]
        assert (h["winner"] >= 0) == (h["carried_out"] == 0)
    rows = list(csv.DictReader(c.open()))
    assert len(rows) == 300
    assert [int(rows[i]["chips_0"]) for i in range(5)] == [h["chips"][0] for h in hands[:5]]
    assert "seat" in out and "heuristic" in out  # the summary table still shows


def test_rollout_table_rich_and_plain(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["rollout", *SMALL, "--policy", "heuristic,random,random"]
    rc, out, err = run(capsys, *argv)
    assert rc == 0
    assert "300 hands · 3 players" in out
    assert re.search(r"0\s+heuristic\s+\d+\.\d\d ± \d\.\d\d\s+[+-]\d\.\d{3} ± \d\.\d{3}", out)
    assert "hands/s" in err  # the progress bar, on stderr
    monkeypatch.setattr(cli.output, "rich_module", lambda: None)  # as if rich were not installed
    rc, out2, err2 = run(capsys, *argv)
    assert rc == 0
    assert re.search(r"seat\s+policy\s+win %\s+chips/hand\n-+", out2)
    assert re.search(r"rollout: 300/300 hands, [\d,]+ hands/s", err2)
    assert out.splitlines()[-1] == out2.splitlines()[-1]  # same hands, same spoil line


def test_agent_policy_resolves_through_load_policy(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "agent.msgpack"
    agent.write_bytes(b"")
    loaded: list[str] = []

    def load_policy(path: str) -> object:
        loaded.append(path)
        return sf.spoil_five.RANDOM

    fake = types.ModuleType("spoilfive_jax.rl.agent")
    fake.load_policy = load_policy  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spoilfive_jax.rl.agent", fake)
    monkeypatch.setattr(spoilfive_jax.rl, "agent", fake, raising=False)
    spec = f"agent:{agent}"
    argv = ["rollout", *SMALL, "--policy", f"heuristic,{spec},{spec}", "--json", "-"]
    rc, out, err = run(capsys, *argv, "--quiet")
    assert rc == 0, err
    assert loaded == [str(agent)]  # loaded once for both seats
    data = json.loads(out)
    assert data["policies"] == ["heuristic", spec, spec]
    # the same table as heuristic,random,random (RANDOM is what the fake agent loads)
    rc, out2, _ = run(capsys, "rollout", *SMALL, "--policy", "heuristic,random,random", "--json")
    assert json.loads(out2)["win_rate"] == data["win_rate"]


def test_tournament_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tournament", "heuristic", "random", *SMALL, "--json", "-", "--quiet"]
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    data = json.loads(out)
    assert data["deals"] == 300 and data["seatings"] == 6
    names = [p["policy"] for p in data["policies"]]
    assert names == ["heuristic", "random"]
    for p in data["policies"]:
        assert p["ci95"] > 0 and 0 <= p["win_rate"] <= 1


def test_score_file_and_outputs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "hands.txt"
    f.write_text("# hand, turn-up, seat\n5H JH AH KD 2C 9H 2\n\n7c 8c 9s ks 2d  # weak\n")
    argv = ["score", "--file", str(f), "--turnup", "9H", "--players", "3", "--rollouts", "64"]
    rc, out, err = run(capsys, *argv, "--json", "-")
    assert rc == 0, err
    rows = json.loads(out)["hands"]
    assert [(r["hand"], r["turnup"], r["seat"]) for r in rows] == [
        ("5H JH AH KD 2C", "9H", 2),
        ("7C 8C 9S KS 2D", "9H", 1),
    ]
    assert rows[0]["win_prob"] == 1.0  # the three top trumps win three tricks
    assert rows[0]["expected_chips"] == 2.0  # a 3-chip pot less the ante
    assert rows[1]["win_prob"] < rows[0]["win_prob"]
    rc, out, _ = run(capsys, *argv)
    assert "5♥ J♥ A♥ K♦ 2♣" in out and "100.00 ± 0.00" in out


# ---------------------------------------------------------------------------- terminal play

PLAY_ENV = sf.spoil_five.SpoilFive(3)
DEAL = jax.jit(PLAY_ENV.init_from_deal)


def lowest_legal(key: jax.Array, state: sf.spoil_five.State, player: jax.Array) -> jax.Array:
    """A predictable bot: the legal action with the lowest id."""
    return jnp.argmax(state.legal_action_mask).astype(jnp.int32)


def deal(hands: list[str], turnup: str, dealer: int = 0) -> sf.spoil_five.State:
    ids = np.array([sf.parse_cards(h) for h in hands], np.int32)
    return DEAL(ids, jnp.int32(sf.card_id(turnup)), jnp.int32(dealer), jnp.int32(0))


def play_scripted(state: sf.spoil_five.State, script: str, human: int = 2) -> tuple[str, bool]:
    """Play ``state`` with the human at ``human``; (output, whether the human quit)."""
    out = io.StringIO()
    game = TerminalGame(PLAY_ENV, io.StringIO(script), out, human=human, bots=lowest_legal)
    try:
        game.play_hand(state, jax.random.PRNGKey(0))
    except Quit:
        return out.getvalue(), True
    return out.getvalue(), False


# Hearts are trumps (9♥ turned up, A♥ in the stock: nobody robs); seat 0 deals, seat 1 leads its
# lowest card id; the human is seat 2.
LEADS_2C = "2C 7S 8S 9S KS"  # 2♣ (id 1) is its lowest card
LEADS_2H = "2H 7S 8S 9S KS"  # 2♥ (id 27) is its lowest card
DEALER = "KC QC 3D 4D 5S"


def test_play_explains_follow_suit() -> None:
    state = deal([DEALER, LEADS_2C, "7C 6D 2S AS 8D"], "9H")
    out, quit_ = play_scripted(state, "6D\nKD\n9\nhelp\n1\nq\n")
    assert quit_
    assert "Seat 1 leads 2♣." in out
    assert "[1] 7♣\n" in out  # the only legal card is offered
    assert "Not allowed: you must follow clubs or trump: you hold 7♣." in out
    assert "Not allowed: you do not hold K♦" in out
    assert "choose a number from 1 to 1" in out
    assert "Type a card (5H, 10h, 10♥, TD), a number from the list" in out
    assert "You play 7♣." in out
    assert "Seat 0 plays Q♣." in out
    assert "Trick 1: seat 0 wins with Q♣." in out  # black plain: Q above 2 above 7


def test_play_explains_renege() -> None:
    # 2♥ led: 7♥ may not be reneged, so a trump must be played (J♥ included).
    state = deal([DEALER, LEADS_2H, "7H JH 6D 2S AS"], "9H")
    out, _ = play_scripted(state, "6D\nJH\nq\n")
    assert (
        "you hold a trump that may not be reneged: the 2 of trumps (2♥) was led and you hold 7♥"
        in out
    )
    assert "only the 5 and jack of trumps and A♥ may be withheld" in out
    assert "You play J♥." in out
    # Holding only J♥, it may be withheld from the 2♥ lead: 6♦ is accepted.
    state = deal([DEALER, LEADS_2H, "JH 6D 2S AS 8C"], "9H")
    out, _ = play_scripted(state, "6D\nq\n")
    assert "Not allowed" not in out and "You play 6♦." in out


def test_play_rob_and_jink() -> None:
    # The human (seat 1, eldest) holds A♥, the ace of trumps with hearts trump: a rob question.
    state = deal(["KC QC 3D 4D 5S", "5H JH AH 2C 3C", "7S 8S 9S KS 8D"], "9H")
    out, quit_ = play_scripted(state, "jink\npass\n5H\nJH\nAH\nclaim\n", human=1)
    assert not quit_
    assert "Rob? You hold the ace of trumps (A♥), so you may take the turn-up 9♥" in out
    assert "Not allowed: jink and claim come after winning the first three tricks" in out
    assert "You decline to rob." in out
    assert "Jink? You have won the first three tricks." in out
    assert "You claim the pot of 3 chips." in out
    assert "You won the pot of 3 chips (net +2)." in out
    state = deal(["KC QC 3D 4D 5S", "5H JH AH 2C 3C", "7S 8S 9S KS 8D"], "9H")
    out, _ = play_scripted(state, "7C\n2C\n5H\nJH\nAH\njink\n1\n1\n", human=1)
    assert "You rob: take the turn-up 9♥ and discard 2♣ face down." in out
    assert "Not allowed: you do not hold 7♣: discard one of" in out
    assert "You jink: playing on for all five tricks." in out
    assert re.search(r"after a successful jink|jinked and failed", out)


def test_forced_rob_explanation() -> None:
    state = deal(["KC QC 3D 4D 5S", "5H JH AH 2C 3C", "7S 8S 9S KS 8D"], "9H")
    v = view(state)
    forced = dataclasses.replace(v, legal=tuple(a for a in v.legal if a != sf.spoil_five.PASS))
    text = explain_illegal(forced, sf.spoil_five.PASS, sf.spoil_five.Rules(rob="forced"))
    assert "the rob is forced under these rules" in text


def test_session_carries_the_pot_and_quits() -> None:
    out = io.StringIO()
    result = play_terminal(PLAY_ENV, io.StringIO("1\n" * 80), out, hands=3, seed=7)
    text = out.getvalue()
    assert result.hands_played == 3 and not result.quit
    assert sum(result.chips) + result.pot == 0  # chips are conserved: lost ones sit in the pot
    for h, dealer in ((1, "you"), (2, "seat 1"), (3, "seat 2")):
        assert f"=== Hand {h} of 3 · {dealer} dealt" in text
    assert "Chips after 3 hands:" in text
    out = io.StringIO()
    result = play_terminal(PLAY_ENV, io.StringIO("q\n"), out, hands=3)
    assert result.quit and result.hands_played == 0
    assert "You left the table." in out.getvalue()
    result = play_terminal(PLAY_ENV, io.StringIO(""), io.StringIO(), hands=1)  # end of input
    assert result.quit


def test_play_command_in_process(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 40))
    rc, out, err = run(capsys, "play", "--players", "3", "--bots", "random", "--seat", "1")
    assert rc == 0, err
    assert "you are seat 1 of 3, against random bots" in out
    assert "Your chips this hand:" in out


# ---------------------------------------------------------------------------- the subprocesses


def test_subprocess_rollout(procs: dict[str, Proc]) -> None:
    rc, out, err = procs["rollout"].result()
    assert rc == 0, err
    data = json.loads(out)
    assert data["hands"] == 2000 and len(data["win_rate"]) == 4
    assert data["policies"] == ["heuristic", "random", "random", "random"]
    tmp = procs["rollout"].out_path.parent
    rows = list(csv.DictReader((tmp / "summary.csv").open()))
    assert {r["stat"] for r in rows} >= {"win_rate", "mean_chips", "spoil_rate", "jink_rate"}
    assert (tmp / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_subprocess_score(procs: dict[str, Proc]) -> None:
    rc, out, err = procs["score"].result()
    assert rc == 0, err
    assert re.search(r"5♥ J♥ A♥ K♦ 2♣\s+9♥\s+2\s+100\.00 ± 0\.00\s+0\.00 ± 0\.00\s+\+4\.000", out)


def test_subprocess_tournament(procs: dict[str, Proc]) -> None:
    rc, out, err = procs["tournament"].result()
    assert rc == 0, err
    assert "Spoil Five · 300 deals × 6 seatings · 3 players" in out
    assert re.search(r"heuristic\s+[+-]\d\.\d{4}\s+± \d\.\d{4}\s+\d+\.\d\d", out)
    assert re.search(r"random\s+[+-]\d\.\d{4}\s+± \d\.\d{4}", out)


def test_subprocess_bench(procs: dict[str, Proc]) -> None:
    """The installed package alone (no ``benchmarks/`` beside it) prints the table."""
    rc, out, err = procs["bench"].result()
    assert rc == 0, err
    assert "hands/s" in out and "decisions/s" in out
    assert re.search(r"\n\s+5\s+64\s+bits\s+[\d,]+\s+[\d,]+", out)


def test_subprocess_play(procs: dict[str, Proc]) -> None:
    rc, out, err = procs["play"].result()
    assert rc == 0, err
    assert "not a card or a move: 'xx'" in out
    assert "=== Hand 2 of 2" in out
    assert re.search(r"Trick 1: (you|seat \d) wins? with ", out)
    assert "Chips after 2 hands:" in out
    assert "Traceback" not in err


def test_subprocess_rules(procs: dict[str, Proc]) -> None:
    rc, out, err = procs["rules"].result()
    assert rc == 0, err
    assert "Rules (Spoil Five)" in out and "follow=traditional" in out
    assert "5♥ J♥ A♥ K♥ Q♥ 10♥ 9♥ 8♥ 7♥ 6♥ 4♥ 3♥ 2♥" in out


def test_subprocess_bad_input(procs: dict[str, Proc]) -> None:
    rc, out, err = procs["bad"].result()
    assert_one_line_error(rc, out, err, "duplicate card 5♥")


@pytest.mark.skipif(shutil.which("spoilfive") is None, reason="console script not installed")
def test_console_script() -> None:
    done = subprocess.run(
        ["spoilfive", "rules", "C"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0 and "Trump clubs ♣" in done.stdout


def test_svg_of_a_played_hand() -> None:
    """The picture of a state reached through the terminal game parses as XML."""
    state = deal([DEALER, LEADS_2C, "7C 6D 2S AS 8D"], "9H")
    root = ET.fromstring(sf.spoil_five.render_svg(state))
    shown = {g.attrib["data-card"] for g in root.iter("{http://www.w3.org/2000/svg}g")}
    assert {"7C", "6D", "2C", "KC", "9H"} <= shown
