"""Regressions of the command-line defects found by trying the project as a new user
would (items 1, 15, 16, 18, 20, 22 and 23): each test would have caught its defect."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spoilfive_jax import _interrupt, cli
from spoilfive_jax.cli import output

ROOT = Path(__file__).resolve().parents[2]
AGENT = f"agent:{ROOT / 'examples' / 'agents' / 'ppo_seat.npz'}"  # 5-player Spoil Five
POSITION = "players=3; dealer=0; turnup=9D; player=0; hand=6H 8C 10D JH 4S; history=1:KS 2:4H"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = cli.main(list(argv))
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def error_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    rc, out, err = run(capsys, *argv)
    assert rc == 2, (rc, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("spoilfive: error: "), err
    return lines[0].removeprefix("spoilfive: error: ")


# ---------------------------------------------------------------------------- item 1: agents


COMMANDS = {
    "rollout": ["--hands", "100", "--policy", AGENT],
    "tournament": ["--hands", "100", AGENT, "random"],
    "score": ["--policy", AGENT, "5H JH AH KD 2C 9H"],
    "play": ["--bots", AGENT],
}


@pytest.mark.parametrize("command", [*COMMANDS, "analyze"])
@pytest.mark.parametrize("players", ["5", "4"])
def test_an_agent_of_another_game_is_one_line_naming_both(capsys, command, players) -> None:
    pytest.importorskip("flax")
    if command == "analyze":  # the position names its table
        hand = "5D JH AH KC 4S"
        position = f"players={players}; dealer=0; turnup=7D; player=1; hand={hand}"
        argv = ["analyze", "--policy", AGENT, position]
    else:
        argv = [command, *COMMANDS[command], "--players", players]
    line = error_of(capsys, *argv, "--game", "forty_five")
    assert line == "this agent plays spoil_five, not forty_five"


def test_an_agent_at_another_table_size_names_both_sizes(capsys) -> None:
    pytest.importorskip("flax")
    line = error_of(capsys, "rollout", "--players", "4", "--hands", "10", "--policy", AGENT)
    assert line == "this agent plays 5-player spoil_five tables, not 4-player ones"


# ---------------------------------------------------------------------------- item 15: Ctrl-C


def test_the_command_is_told_apart_from_a_library_user() -> None:
    assert _interrupt.is_command(["/venv/bin/spoilfive", "rollout"], ["python", "x"])
    assert _interrupt.is_command(["-m"], ["python", "-m", "spoilfive_jax", "rollout"])
    assert _interrupt.is_command(["-m"], ["python", "-mspoilfive_jax"])
    assert not _interrupt.is_command(["my_script.py"], ["python", "my_script.py"])
    assert not _interrupt.is_command(["spoilfive.py"], ["python", "spoilfive.py"])
    assert not _interrupt.is_command([""], ["python", "-c", "import spoilfive_jax"])
    assert not _interrupt.guard(["pytest"], ["python", "-m", "pytest"])  # not here


def test_the_guard_prints_one_line_and_exits_130(capsys, monkeypatch) -> None:
    def exit_(code: int) -> None:
        raise SystemExit(code)

    monkeypatch.setattr(_interrupt, "_exit", exit_)  # os._exit would end pytest too
    before = signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        assert _interrupt.guard(["spoilfive"], [])
        with pytest.raises(SystemExit) as e:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the handler runs here
        assert e.value.code == 130
        assert capsys.readouterr().err == "\nspoilfive: interrupted\n"
        _interrupt.release()  # what cli.main does first
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc (Linux)")
def test_ctrl_c_while_the_command_imports_is_one_line() -> None:
    """The signal is sent once JAX's libraries are loading, well before ``cli.main``."""
    command = [sys.executable, "-m", "spoilfive_jax", "rollout", "--hands", "10", "--quiet"]
    # Ctrl-C as in a terminal: a process started in the background ignores SIGINT, and so
    # would its children; a small launcher restores the default and becomes the command.
    launcher = (
        "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
        f"os.execv(sys.executable, {command!r})"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", launcher],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if "jaxlib" in Path(f"/proc/{proc.pid}/maps").read_text():
                break
        except OSError:
            pass
        time.sleep(0.002)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err == "\nspoilfive: interrupted\n" and out == ""


# ---------------------------------------------------------------------------- item 16: --players


def test_analyze_refuses_flags_that_contradict_the_position(capsys) -> None:
    line = error_of(capsys, "analyze", POSITION, "--players", "5", "--samples", "2")
    assert line == (
        "the position: the position has 3 players but --players 5 was given; drop one of them"
    )
    ruled = POSITION + "; rules=renege=led"
    line = error_of(capsys, "analyze", ruled, "--renege", "trick", "--samples", "2")
    assert "the position's rules= differ from the rule flags given (--renege)" in line


# ---------------------------------------------------------------------------- item 18: analysis


def test_analysis_output_is_machine_text_short_floats_and_names_its_rules(
    capsys, tmp_path: Path
) -> None:
    target = tmp_path / "moves.csv"
    argv = ["analyze", POSITION, "--samples", "16", "--quiet"]
    rc, out, err = run(capsys, *argv, "--csv", str(target))
    assert rc == 0, err
    assert "rules: follow=seed renege=deal rob=optional" in out  # the rules in force
    text = target.read_text()
    assert "♠" not in text and "♦" not in text and "99999" not in text and "00000" not in text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["text"] for r in rows} == {"4S", "TD"}  # card_str, as every other JSON and CSV
    rc, out, err = run(capsys, *argv, "--json", "-")
    data = json.loads(out)
    assert data["rules"][0]["renege"] == "deal" and data["rules"][0]["follow"] == "seed"
    assert [m["text"] for m in data["moves"]] == [r["text"] for r in rows]
    assert all(len(repr(m["expected_chips"])) <= 12 for m in data["moves"]), data["moves"]


# ---------------------------------------------------------------------------- item 20: formats


@pytest.mark.parametrize(
    ("flag", "name", "words"),
    [
        ("--csv", "out.xlsx", "--csv writes CSV text: name a file ending in .csv or .txt (got .x"),
        ("--csv", "out", "(got no extension"),
        ("--json", "out.csv", "--json writes JSON text: name a file ending in .json or .txt"),
    ],
)
def test_output_files_must_be_named_for_what_they_hold(capsys, tmp_path, flag, name, words):
    line = error_of(capsys, "rollout", "--hands", "10", flag, str(tmp_path / name))
    assert words in line
    assert list(tmp_path.iterdir()) == []  # refused before any work, no file left behind


def test_output_names_that_fit_pass_the_check(tmp_path: Path) -> None:
    for json_target, csv_target in (
        (tmp_path / "a.json", tmp_path / "a.csv"),
        (tmp_path / "a.txt", tmp_path / "b.TXT"),
        ("/dev/null", "-"),  # not a regular file: any name
    ):
        args = argparse.Namespace(json=str(json_target), csv=str(csv_target), plot=None)
        output.check_outputs(args)


# ---------------------------------------------------------------------------- item 22: the joker


def test_play_without_the_joker_says_so(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("jk\nq\n"))
    rc, out, err = run(capsys, "play", "--players", "3", "--bots", "random", "--seat", "1")
    assert rc == 0, err
    assert "Spoil Five has no joker (JK)" in out and "not a card or a move" not in out


# ---------------------------------------------------------------------------- item 23: --file


def test_score_file_without_hands_says_so(capsys, tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("# only a comment\n\n   # and another\n", encoding="utf-8")
    line = error_of(capsys, "score", "--file", str(empty))
    assert line == f"--file: {empty} holds no hands (only blank lines and # comments)"
    line = error_of(capsys, "score", "5H JH AH KD 2C 9H", "--file", str(empty))
    assert "holds no hands" in line  # a file given for nothing is a mistake too
    assert "give one or more hands" in error_of(capsys, "score")  # no --file: as before
