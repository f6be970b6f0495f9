"""Many processes (``sf.distributed``, JAX's multi-controller runtime): real processes on
127.0.0.1 joined by gloo, each playing its share of every call; every process gets the result of
one process alone with the same key.

The default run starts 2 processes on the rollouts of both games and on the command line's
rollout; the slow run starts 4, and 2 with two devices each, on every tool, runs ``score`` and
``tournament`` on 2, and interrupts a checkpointed two-process run and resumes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import communicate_all, env_vars, finish, free_port, start_all

import spoilfive_jax as sf
from spoilfive_jax import cli
from spoilfive_jax.tools import distributed
from spoilfive_jax.tools.checkpoint import Checkpoint

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import distributed_worker as worker  # noqa: E402

SE_RTOL = 1e-5  # a streamed summary's standard errors: float32 sums in another order


def default_sigint() -> None:
    """(In the child, before it runs:) SIGINT's default action, whatever the parent had."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_workers(tmp: Path, num: int, devices: int, *extra: str) -> list[dict[str, np.ndarray]]:
    port = free_port()
    script, rest = str(HERE / "distributed_worker.py"), [str(devices), str(tmp / "out"), *extra]
    argvs = [[sys.executable, script, str(i), str(num), str(port), *rest] for i in range(num)]
    finish(start_all(argvs, env=env_vars()))
    return [dict(np.load(tmp / f"out.{i}.npz")) for i in range(num)]


def assert_same(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    """Exactly, but for a streamed summary's standard errors."""
    assert sorted(got) == sorted(want)
    for k, w in want.items():
        if "/streamed/" in k and k.endswith("_se"):
            np.testing.assert_allclose(got[k], w, rtol=SE_RTOL, err_msg=k)
        else:
            assert np.array_equal(got[k], w, equal_nan=w.dtype.kind == "f"), k


@pytest.fixture(scope="module")
def rollouts_alone() -> dict[str, np.ndarray]:
    return worker.results(every_tool=False)


def test_two_processes_play_the_rollouts_of_one(
    tmp_path: Path, rollouts_alone: dict[str, np.ndarray]
) -> None:
    outs = run_workers(tmp_path, 2, 1, "rollouts")
    for i, got in enumerate(outs):
        assert got.pop("devices").tolist() == [2, 1], i  # the mesh spans both processes
        assert_same(got, rollouts_alone)


@pytest.mark.slow
@pytest.mark.parametrize(("num", "devices"), [(4, 1), (2, 2)])
def test_many_processes_run_every_tool_as_one(tmp_path: Path, num: int, devices: int) -> None:
    want = worker.results()
    for got in run_workers(tmp_path, num, devices):
        assert got.pop("devices").tolist() == [num * devices, devices]
        assert_same(got, want)


# ---------------------------------------------------------------------------- the command line

ROLLOUT = ["rollout", "--players", "3", "--policy", "random", "--hands", "3000", "--quiet"]


def spoilfive(argv: list[str], num: int, port: int, **kw: Any) -> list[subprocess.Popen[str]]:
    base = [sys.executable, "-m", "spoilfive_jax", *argv, "--coordinator", f"127.0.0.1:{port}"]
    argvs = [[*base, "--num-processes", str(num), "--process-id", str(i)] for i in range(num)]
    return start_all(argvs, env=env_vars(), **kw)


def alone(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert cli.main(argv) == 0
    return timeless(json.loads(capsys.readouterr().out))


def timeless(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "seconds" and not k.endswith("_per_s")}


def assert_close(got: Any, want: Any, where: str = "") -> None:
    """The same record: floats to float32 rounding (a streamed mean or standard error is a
    float32 sum taken in another order), everything else exactly."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), where
        for k, v in want.items():
            assert_close(got[k], v, f"{where}/{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_close(g, w, f"{where}/{i}")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=SE_RTOL, abs=1e-9, nan_ok=True), where
    else:
        assert got == want, where


@pytest.mark.slow
def test_command_line_two_processes_print_once_what_one_prints(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (first, err), (second, _) = finish(spoilfive([*ROLLOUT, "--json", "-"], 2, free_port()))
    assert second == ""  # process 0 alone prints
    assert "[Gloo]" not in err  # (gloo's connection lines are dropped, not sent to stderr)
    # (stdout holds the JSON alone: the collectives' own messages go to stderr)
    assert_close(timeless(json.loads(first)), alone(capsys, [*ROLLOUT, "--json", "-"]))


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["score", "5H JH AH KD 2C", "--turnup", "9H", "--rollouts", "400", "--policy", "random"],
        ["tournament", "random", "heuristic", "--game", "forty_five", "--hands", "64"],
    ],
    ids=["score", "tournament"],
)
def test_command_line_score_and_tournament_on_two_processes(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    argv = [*argv, "--quiet", "--json", "-"]
    (first, _), (second, _) = finish(spoilfive(argv, 2, free_port()))
    assert second == ""
    assert_close(timeless(json.loads(first)), alone(capsys, argv))


@pytest.mark.parametrize(
    ("flags", "fragment"),
    [
        (["--coordinator", "127.0.0.1:1234"], "go together"),
        (["--num-processes", "2", "--process-id", "0"], "go together"),
        (["--coordinator", "nowhere", "--num-processes", "2", "--process-id", "0"], "HOST:PORT"),
        (["--coordinator", "h:1", "--num-processes", "2", "--process-id", "2"], "0..1"),
        (["--coordinator", "h:1", "--num-processes", "0", "--process-id", "0"], ">= 1"),
    ],
)
def test_command_line_refuses_bad_process_flags(
    capsys: pytest.CaptureFixture[str], flags: list[str], fragment: str
) -> None:
    assert cli.main([*ROLLOUT, *flags]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("spoilfive: error: ") and fragment in err[0]


@pytest.mark.slow
def test_an_interrupted_two_process_checkpointed_run_resumes_to_the_one_process_result(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Ctrl-C to process 1 alone stops both after the same chunk (process 0 saves the
    checkpoint); the same command again finishes the run, with one process's result."""
    # enough hands that the run is still going when the signal comes (a few seconds a run)
    argv = [*ROLLOUT[:-3], "--quiet", "--hands", "40000000", "--batch", "4096", "--json"]
    ckpt = ["--checkpoint", str(tmp_path / "ckpt")]
    out = str(tmp_path / "two.json")
    port = free_port()
    # Ctrl-C must reach them however the suite was started: a shell's background job ignores
    # SIGINT, its children inherit that, and the CLI rightly keeps ignoring it
    procs = spoilfive([*argv, out, *ckpt], 2, port, preexec_fn=default_sigint)
    deadline = time.monotonic() + 240
    while not (tmp_path / "ckpt" / "state.ckpt").exists():
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
        time.sleep(0.5)
    procs[1].send_signal(signal.SIGINT)
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [130, 130], [e[-2000:] for _, e in outs]
    assert "stopped after" in outs[0][1]
    done = distributed_done(tmp_path / "ckpt")
    assert 0 < done < 40_000_000
    finish(spoilfive([*argv, out, *ckpt], 2, free_port()))
    one = str(tmp_path / "one.json")
    assert cli.main([*argv, one]) == 0
    assert_close(*(timeless(json.loads(Path(f).read_text())) for f in (out, one)))


def distributed_done(directory: Path) -> int:
    info = Checkpoint(directory).info()
    assert info is not None
    return int(info["done"])


# ---------------------------------------------------------------------------- the library


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("127.0.0.1:1234", None, None), "together"),
        ((None, 2, 0), "together"),
        (("127.0.0.1", 2, 0), "HOST:PORT"),
        (("127.0.0.1:99999", 2, 0), "1..65535"),
        (("127.0.0.1:1234", 0, 0), "num_processes must be an integer >= 1"),
        (("127.0.0.1:1234", 2, 2), "process_id must be 0..1"),
        (("127.0.0.1:1234", 2, True), "process_id must be 0..1"),
    ],
)
def test_initialize_refuses_bad_arguments(args: tuple[Any, ...], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        distributed.initialize(*args)


def test_initialize_after_a_computation_says_to_call_it_first() -> None:
    sf.make("spoil_five", 3).init(0)  # (this process has computed)
    with pytest.raises(ValueError, match="before any JAX computation"):
        distributed.initialize("127.0.0.1:1234", 2, 0)


def test_no_arguments_need_a_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in list(os.environ):
        if k.startswith(("SLURM_", "OMPI_")):
            monkeypatch.delenv(k)
    assert not distributed.cluster_detected()
    with pytest.raises(ValueError, match="no SLURM or Open MPI job"):
        distributed.initialize()
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    monkeypatch.setenv("SLURM_NTASKS", "1")
    assert not distributed.cluster_detected()  # one task: nothing to join
    monkeypatch.setenv("SLURM_STEP_NUM_TASKS", "4(x2)")
    assert distributed.cluster_detected()
    monkeypatch.delenv("SLURM_JOB_ID")
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "2")
    assert distributed.cluster_detected()


def test_one_process_is_the_main_one_and_agrees_with_itself() -> None:
    assert distributed.is_main_process()
    assert distributed.any_process(True) and not distributed.any_process(False)
    distributed.same_everywhere("a count", 2**40, "never raised alone")


def test_a_second_initialize_of_the_same_run_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Also with no arguments (a SLURM job calling it twice): the first call's run stands."""
    monkeypatch.setattr(distributed, "_STARTED", [{}])
    monkeypatch.setattr(distributed, "cluster_detected", lambda: True)
    assert distributed.initialize() == 0  # (this process: index 0, JAX not called again)
    with pytest.raises(ValueError, match="already joined another run"):
        distributed.initialize("127.0.0.1:1234", 2, 0)


# ---------------------------------------------------------------------------- what goes wrong


def ended(procs: list[subprocess.Popen[str]], timeout: float) -> list[tuple[int, str]]:
    """Every process's (exit status, stderr), each within ``timeout`` seconds (else killed)."""
    outs = communicate_all(procs, timeout)
    return [(p.returncode, err) for p, (_, err) in zip(procs, outs, strict=True)]


def test_processes_given_different_arguments_each_name_the_difference_at_once() -> None:
    port = free_port()
    base = [sys.executable, "-m", "spoilfive_jax", "rollout", "--quiet", "--players", "3"]
    base += ["--coordinator", f"127.0.0.1:{port}", "--num-processes", "2"]
    hands = ("1000", "2000")
    argvs = [[*base, "--hands", h, "--process-id", str(i)] for i, h in enumerate(hands)]
    for i, (code, err) in enumerate(ended(start_all(argvs, env=env_vars()), timeout=120)):
        assert code == 2, err[-2000:]
        errors = [line for line in err.splitlines() if line.startswith("spoilfive: error:")]
        assert errors == [
            "spoilfive: error: the processes were given different arguments: --hands is "
            f"{hands[i]} in process {i} but {hands[1 - i]} in process {1 - i}: give every "
            "process the same arguments"
        ]


def test_a_library_run_refuses_processes_that_play_different_runs() -> None:
    port = free_port()
    code = (
        "import sys, spoilfive_jax as sf\n"
        "i = int(sys.argv[1])\n"
        f"sf.distributed.initialize('127.0.0.1:{port}', 2, i)\n"
        "try:\n"
        "    sf.rollout(i, sf.make('spoil_five', 3), 'random', 1000, per_hand=False)\n"
        "except ValueError as e:\n"
        "    print(e)\n"
    )
    procs = start_all([[sys.executable, "-c", code, str(i)] for i in range(2)], env=env_vars())
    outs = [p.communicate(timeout=120)[0] for p in procs]
    for i, out in enumerate(outs):
        assert out.startswith("the processes were given different runs: key is "), out
        assert f"in process {i} but" in out and f"in process {1 - i}" in out


def test_a_process_waiting_for_the_others_says_what_it_waits_for() -> None:
    port = free_port()
    argv = [sys.executable, "-m", "spoilfive_jax", *ROLLOUT, "--coordinator"]
    argv += [f"127.0.0.1:{port}", "--num-processes", "3", "--process-id", "0"]
    (proc,) = start_all([argv], env=env_vars())
    timer = threading.Timer(60, proc.kill)  # (the line comes after a few seconds; a hang fails)
    timer.start()
    try:
        line = proc.stderr.readline() if proc.stderr is not None else ""
    finally:
        timer.cancel()
        proc.kill()
        proc.communicate()
    assert line.strip() == (
        f"spoilfive_jax: waiting for the other 2 processes to join at 127.0.0.1:{port} (up to "
        f"{distributed.JOIN_TIMEOUT_S} s)..."
    )


@pytest.mark.slow
def test_a_lost_process_ends_the_others_with_one_line_and_the_checkpoint_stands(
    tmp_path: Path,
) -> None:
    ck = tmp_path / "ck"
    argv = ["rollout", "--players", "3", "--hands", str(10**10), "--quiet", "--checkpoint", str(ck)]
    procs = spoilfive(argv, 2, free_port())
    deadline = time.monotonic() + 240
    while not any(ck.glob("*")) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert any(ck.glob("*")), "the run saved no checkpoint"
    time.sleep(2)
    procs[1].kill()  # (SIGKILL: the process is gone without a word)
    lost = time.monotonic()
    (code, err), _ = ended(procs, timeout=distributed.PEER_TIMEOUT_S + 60)
    assert time.monotonic() - lost < distributed.PEER_TIMEOUT_S + 15
    assert code == distributed.LOST_PEER_EXIT, err[-3000:]
    assert err.strip().splitlines()[-1].startswith("spoilfive: error: ")
    assert "the run ends here" in err and "Check failure" not in err and "[Gloo]" not in err
    (saved,) = ck.glob("*.ckpt")
    data = saved.read_bytes()  # MAGIC, "sha256 <digest>", then the payload it digests
    _, _, rest = data.partition(b"sha256 ")
    digest, _, payload = rest.partition(b"\n")
    assert hashlib.sha256(payload).hexdigest().encode() == digest


def test_the_watchdog_names_a_process_silent_too_long_and_no_other() -> None:
    dog = distributed._Watchdog(0, 4, on_lost=lambda what: None)
    seen: dict[str, tuple[str, float]] = {}
    alive = "spoilfive_jax/alive/"
    # process 1 beats, 2 has not posted yet (a first look must not fail), 3 has left
    assert dog.silent({alive + "1": "5"}, {"3"}, seen, 0.0) is None
    t = distributed.PEER_TIMEOUT_S
    assert dog.silent({alive + "1": "6", alive + "2": "1"}, {"3"}, seen, t - 1) is None
    assert dog.silent({alive + "1": "7", alive + "2": "1"}, {"3"}, seen, 2 * t) == 2
    assert dog.silent({alive + "1": "8", alive + "2": "2"}, {"3"}, seen, 2 * t + 1) is None


def test_processes_may_differ_in_paths_but_not_in_which_files_they_write() -> None:
    from spoilfive_jax.cli import runs

    parse = cli.build_parser().parse_args
    one = runs._command(parse(["rollout", "--json", "a.json", "--devices", "2", "--follow", "led"]))
    two = runs._command(parse(["rollout", "--json", "b.json", "--quiet", "--follow", "led"]))
    assert one == two and one["--json"] is True and one["--follow"] == "led"
    assert runs._command(parse(["rollout", "--follow", "led"]))["--json"] is False


def test_the_watchdog_is_stopped_and_joined_at_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_stop_watchdog`` (at exit, after JAX's own exit) ends the watchdog's loop and waits
    for it: a daemon thread left inside a call of the coordinator's client when the interpreter
    finalizes aborts the process after its work is done (seen: exit -6 of the second process of
    a two-process training).  And ``initialize`` registers the stop before JAX registers its
    own exit, so that it runs after it."""
    calls: list[str] = []

    class Client:  # the coordinator's client, as the watchdog uses it
        def key_value_set(self, key: str, value: str, allow_overwrite: bool) -> None:
            calls.append(key)

        def key_value_dir_get(self, prefix: str) -> list[tuple[str, str]]:
            return []

    monkeypatch.setattr(distributed, "_client", Client)
    monkeypatch.setattr(distributed, "_WATCHDOG_STOP", threading.Event())
    registered: list[Any] = []
    monkeypatch.setattr(distributed.atexit, "register", lambda f, *a: registered.append(f))
    dog = distributed._Watchdog(0, 2, on_lost=lambda what: None)
    dog.start()
    deadline = time.monotonic() + 10
    while not calls and time.monotonic() < deadline:  # (its first beat, after a second)
        time.sleep(0.05)
    assert calls and dog.is_alive()
    distributed._stop_watchdog()
    assert not dog.is_alive()
    assert registered == [dog.leave]  # (the stop itself is registered by ``initialize``)

    # ``initialize`` registers the stop before JAX registers its exit: at-exit is LIFO
    order: list[Any] = []
    monkeypatch.setattr(distributed.atexit, "register", lambda f, *a: order.append(f))
    monkeypatch.setattr(distributed, "_STARTED", [])
    monkeypatch.setattr(distributed, "_backends_started", lambda: False)
    monkeypatch.setattr(distributed.jax.distributed, "initialize", lambda **k: order.append("jax"))
    assert distributed.initialize("127.0.0.1:1234", num_processes=1, process_id=0) == 0
    assert order == [distributed._stop_watchdog, "jax"]
