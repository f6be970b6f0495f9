"""Runs of any size on the command line: ``rollout --per-hand`` files written chunk by chunk (CSV
and JSON byte for byte what the whole-run writers wrote, Parquet with typed columns and the
run's facts), ``--checkpoint`` resumed after a real SIGKILL and after a real Ctrl-C (SIGINT) to
the files and the summary of a run never stopped, damaged or foreign checkpoints refused in one
line, and the progress bar's rate and ETA.

The two runs that get killed start as subprocesses when this module starts and play while the
in-process tests run (a thread sends each its signal as soon as its checkpoint shows progress);
``cli.main`` plays the uninterrupted run and the resumes in this process.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax import cli
from spoilfive_jax.cli import progress as progress_module
from spoilfive_jax.cli.output import jsonable
from spoilfive_jax.tools.checkpoint import STATE, Checkpoint

ROOT = Path(__file__).resolve().parents[2]
HANDS = 40_000  # 157 calls of 256 hands (batch 16): long enough to be stopped part way
RUN = ["rollout", "--hands", str(HANDS), "--batch", "16", "--players", "2", "--seed", "7"]
RUN += ["--policy", "random"]


def per_hand(where: Path) -> list[str]:
    return ["--per-hand", "--json", str(where / "h.json"), "--csv", str(where / "h.csv")]


def parquet(where: Path) -> list[str]:
    return ["--parquet", str(where / "h.parquet")] if _has_pyarrow() else []


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


class Killed:
    """``python -m spoilfive_jax ARGV`` with Ctrl-C as in a terminal (the launcher restores
    SIGINT's default: a process started in the background would ignore it)."""

    def __init__(self, argv: list[str], where: Path) -> None:
        self.where = where
        command = [sys.executable, "-m", "spoilfive_jax", *argv]
        launcher = (
            "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
            f"os.execv(sys.executable, {command!r})"
        )
        env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="160", PYTHONIOENCODING="utf-8")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", launcher],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=where,
        )

    def signal_when_under_way(self, sig: int, timeout: float = 180) -> None:
        """In a thread: send ``sig`` as soon as the checkpoint holds some hands, not all
        (``done``: how many then; ``error``: why not)."""
        self.done, self.error = 0, ""

        def watch() -> None:
            ckpt = Checkpoint(self.where / "ckpt")
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    info = ckpt.info()
                except ValueError as e:  # (a checkpoint is replaced whole: never torn)
                    self.error = str(e)
                    return
                if info is not None and info["done"] > 0:
                    self.proc.send_signal(sig)
                    self.done = int(info["done"])
                    if self.done >= HANDS:
                        self.error = "the run ended before it could be stopped"
                    return
                time.sleep(0.005)
            self.error = "no checkpoint progress"

        self.thread = threading.Thread(target=watch, daemon=True)
        self.thread.start()

    def result(self, timeout: float = 240) -> tuple[str, str]:
        """(stdout, stderr) once the signalled run has ended."""
        self.thread.join(timeout)
        out, err = self.proc.communicate(timeout=timeout)
        assert not self.error, (self.error, out, err)
        return out, err


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Killed]]:
    runs = {}
    for name in ("sigkill", "sigint"):
        where = tmp_path_factory.mktemp(name)
        argv = [*RUN, *per_hand(where), *parquet(where), "--checkpoint", str(where / "ckpt")]
        runs[name] = Killed([*argv, "--quiet"] if name == "sigkill" else argv, where)
        runs[name].signal_when_under_way(signal.SIGKILL if name == "sigkill" else signal.SIGINT)
    yield runs
    for run in runs.values():
        if run.proc.poll() is None:
            run.proc.kill()
            run.proc.wait()


@pytest.fixture(scope="module")
def whole(killed: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The run never stopped (in this process): its directory and its table."""
    where = tmp_path_factory.mktemp("whole")
    out = io.StringIO()
    with _stdout(out):
        assert cli.main([*RUN, *per_hand(where), *parquet(where), "--quiet"]) == 0
    return where, out.getvalue()


class _stdout:
    def __init__(self, to: io.StringIO) -> None:
        self.to = to

    def __enter__(self) -> None:
        self.old, sys.stdout = sys.stdout, self.to

    def __exit__(self, *exc: object) -> None:
        sys.stdout = self.old


def table(text: str) -> list[str]:
    """A rollout's table without its first line (the timing)."""
    return text.strip().splitlines()[1:]


def assert_same_files(a: Path, b: Path) -> None:
    for name in ("h.json", "h.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    if _has_pyarrow():
        import pyarrow.parquet as pq

        x, y = pq.ParquetFile(a / "h.parquet"), pq.ParquetFile(b / "h.parquet")
        assert x.schema_arrow.equals(y.schema_arrow, check_metadata=True)
        assert x.metadata.num_row_groups == y.metadata.num_row_groups
        assert x.read().equals(y.read())


# ---------------------------------------------------------------------------- the files


def old_json(meta: dict[str, Any], result: Any) -> bytes:
    """What ``rollout --per-hand --json`` wrote before it streamed: every record built, then
    the JSON written at once (kept here as the reference of its bytes)."""
    records = []
    for h in range(result.num_hands):
        rec: dict[str, Any] = {"hand": h}
        for f in ("winner", "decisions", "jinked", "jink_won", "robbed", "robber", "carried_out"):
            value = getattr(result, f)[h]
            rec[f] = bool(value) if value.dtype == np.bool_ else int(value)
        rec["chips"] = result.rewards[h].astype(int).tolist()
        rec["tricks"] = result.tricks_won[h].tolist()
        records.append(rec)
    text = json.dumps(jsonable(meta), indent=2)
    lines = ",\n".join("    " + json.dumps(r) for r in records)
    return (text[:-2] + f',\n  "hands": [\n{lines}\n  ]\n}}\n').encode()


def old_csv(result: Any) -> bytes:
    """What ``rollout --per-hand --csv`` wrote before it streamed."""
    fields = ("winner", "decisions", "jinked", "jink_won", "robbed", "robber", "carried_out")
    header = ["hand", *fields, "chips_0", "chips_1", "tricks_0", "tricks_1"]
    cols = [np.arange(result.num_hands)] + [getattr(result, f) for f in fields]
    rows = np.column_stack(
        [np.asarray(c).astype(np.int64) for c in cols]
        + [result.rewards.astype(np.int64), result.tricks_won.astype(np.int64)]
    ).tolist()
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue().encode()


def test_per_hand_files_stream_the_bytes_of_the_whole_run_writers(whole: Any) -> None:
    where, _ = whole
    env = sf.make("spoil_five", 2)
    result = sf.rollout(7, env, "random", HANDS, 16)  # every hand in memory
    data = json.loads((where / "h.json").read_text())
    meta = {k: v for k, v in data.items() if k != "hands"}
    assert meta["seed"] == 7 and meta["policies"] == ["random", "random"]
    assert (where / "h.json").read_bytes() == old_json(meta, result)
    assert (where / "h.csv").read_bytes() == old_csv(result)


def test_parquet_has_typed_columns_one_row_group_a_chunk_and_the_run_in_its_metadata(
    whole: Any,
) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    where, _ = whole
    f = pq.ParquetFile(where / "h.parquet")
    header = (where / "h.csv").read_text().splitlines()[0].split(",")
    assert f.schema_arrow.names == header
    types = {field.name: str(field.type) for field in f.schema_arrow}
    assert types["hand"] == "int64" and types["jinked"] == "bool" and types["robbed"] == "bool"
    assert types["decisions"].startswith("int") and types["chips_0"] == "float"
    assert f.metadata.num_row_groups == -(-HANDS // 256) and f.metadata.num_rows == HANDS
    meta = {k.decode(): json.loads(v) for k, v in f.schema_arrow.metadata.items()}
    assert meta["seed"] == 7 and meta["game"] == "spoil_five"
    assert meta["rules"] == json.loads((where / "h.json").read_text())["rules"]
    result = sf.rollout(7, sf.make("spoil_five", 2), "random", HANDS, 16)
    t = f.read()
    np.testing.assert_array_equal(t["hand"].to_numpy(), np.arange(HANDS))
    np.testing.assert_array_equal(t["winner"].to_numpy(), result.winner)
    np.testing.assert_array_equal(t["chips_1"].to_numpy(), result.rewards[:, 1])
    np.testing.assert_array_equal(t["jink_won"].to_numpy(), result.jink_won)


# ---------------------------------------------------------------------------- stopped runs


def test_a_run_killed_with_sigkill_resumes_to_the_same_files_and_summary(
    killed: Any, whole: Any
) -> None:
    run = killed["sigkill"]
    run.result()
    assert run.proc.returncode == -signal.SIGKILL
    saved = Checkpoint(run.where / "ckpt").info()
    assert saved is not None and run.done <= saved["done"] < HANDS
    # what a kill in the middle of a write leaves after the checkpoint's position
    for name in ("h.json", "h.csv"):
        with open(run.where / name, "ab") as f:
            f.write(b"12,1,0,torn")
    (run.where / "ckpt" / "hands-000999.parquet.tmp").write_bytes(b"PAR1 torn")
    out = io.StringIO()
    with _stdout(out):
        argv = [*RUN, *per_hand(run.where), *parquet(run.where), "--quiet"]
        assert cli.main([*argv, "--checkpoint", str(run.where / "ckpt")]) == 0
    assert table(out.getvalue()) == table(whole[1])
    assert_same_files(run.where, whole[0])
    assert not list((run.where / "ckpt").glob("hands-*"))  # the parts go once FILE is whole


def test_ctrl_c_stops_after_a_chunk_with_the_summary_so_far_and_resumes(
    killed: Any, whole: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    run = killed["sigint"]
    out, err = run.result()
    assert run.proc.returncode == 130, err
    assert "Traceback" not in err
    stopped = Checkpoint(run.where / "ckpt").info()["done"]
    assert 0 < stopped < HANDS
    assert f"stopped after {stopped:,} of {HANDS:,} hands" in err
    assert f"{stopped:,} hands" in out.splitlines()[0]  # the table of the hands so far
    # the files are finished with the hands so far: valid JSON, whole CSV rows
    assert len(json.loads((run.where / "h.json").read_text())["hands"]) == stopped
    assert len((run.where / "h.csv").read_text().splitlines()) == stopped + 1
    if _has_pyarrow():
        import pyarrow.parquet as pq

        assert pq.ParquetFile(run.where / "h.parquet").metadata.num_rows == stopped
    argv = [*RUN, *per_hand(run.where), *parquet(run.where), "--quiet"]
    assert cli.main([*argv, "--checkpoint", str(run.where / "ckpt")]) == 0
    assert table(capsys.readouterr().out) == table(whole[1])
    assert_same_files(run.where, whole[0])


def test_a_corrupted_or_foreign_checkpoint_is_one_line_and_status_2(
    killed: Any, whole: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small = ["rollout", "--hands", "300", "--batch", "16", "--players", "2", "--quiet"]
    ckpt = tmp_path / "ckpt"
    assert cli.main([*small, "--checkpoint", str(ckpt)]) == 0
    capsys.readouterr()
    state = ckpt / STATE
    data = bytearray(state.read_bytes())
    data[-3] ^= 0x01  # one bit of the arrays
    state.write_bytes(bytes(data))
    cases = [
        ([*small, "--checkpoint", str(ckpt)], "is damaged (its sha256 does not match"),
        ([*small, "--checkpoint", str(state)], "is a file, not a directory"),
        ([*small, "--checkpoint", str(tmp_path), "--plot", "x.png"], "cannot resume --plot"),
        ([*small, "--checkpoint", str(tmp_path), "--per-hand", "--csv"], "on stdout"),
        ([*small, "--parquet", str(tmp_path / "h.parquet")], "give --per-hand too"),
        ([*small, "--per-hand", "--parquet", str(tmp_path / "h.csv")], ".parquet or .pq"),
    ]
    for argv, words in cases:
        rc = cli.main(argv)
        err = capsys.readouterr().err.strip()
        assert rc == 2 and len(err.splitlines()) == 1 and words in err, (argv, err)
    other = tmp_path / "other"
    assert cli.main([*small, "--checkpoint", str(other)]) == 0
    assert cli.main([*small, "--seed", "1", "--checkpoint", str(other)]) == 2
    assert "is of another run (key:" in capsys.readouterr().err


def test_parquet_without_pyarrow_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name)
    )
    rc = cli.main(["rollout", "--per-hand", "--parquet", str(tmp_path / "h.parquet")])
    assert rc == 2 and "pip install 'spoilfive-jax[parquet]'" in capsys.readouterr().err


def test_score_and_tournament_resume_and_are_quiet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = {
        "score": [
            "score",
            "5H JH AH KD 2C",
            "2C 3C 4D 8S 9S",
            "--turnup",
            "9H",
            "--rollouts",
            "40",
        ],
        "tournament": ["tournament", "random", "heuristic", "--hands", "300"],
    }
    for name, argv in runs.items():
        argv = [*argv, "--players", "2", "--batch", "16", "--quiet", "--json", "-"]
        assert cli.main(argv) == 0
        plain = capsys.readouterr()
        assert plain.err == ""  # --quiet: no bar
        for _ in range(2):  # a fresh run, then one resumed from a finished checkpoint
            assert cli.main([*argv, "--checkpoint", str(tmp_path / name)]) == 0
            again = json.loads(capsys.readouterr().out)
            again.pop("seconds", None)
            expected = json.loads(plain.out)
            expected.pop("seconds", None)
            assert again == expected, name


# ---------------------------------------------------------------------------- progress


def test_progress_lines_have_the_rate_and_eta_and_start_where_a_run_resumes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(progress_module.output, "rich_module", lambda: None)
    clock = iter([0.0, 10.0, 20.0, 30.0])
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: next(clock))
    with progress_module.Progress("rollout", 1000, True) as bar:  # (the clock: 0 s)
        bar(400, 1000)  # resumed at 400 (10 s)
        bar(600, 1000)  # 200 hands in 10 s: 20 hands/s, 400 left: 20 s
        bar(1000, 1000)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "rollout: resuming at 400/1,000 hands",
        "rollout: 600/1,000 hands, 20 hands/s, ETA 0:20",
        "rollout: 1,000/1,000 hands, 30 hands/s, ETA 0:00",
    ]
    assert (
        progress_module.eta_text(3725) == "ETA 1:02:05"
        and progress_module.eta_text(None) == "ETA -"
    )
