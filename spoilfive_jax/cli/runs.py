"""What every run subcommand (``rollout``, ``score``, ``tournament``) shares: ``--checkpoint DIR``
and ``--quiet``, the progress bar, Ctrl-C, which ends the run after the chunk in progress, and
``--coordinator``/``--num-processes``/``--process-id``, which spread it over many processes.

A first Ctrl-C asks the run to stop (``Stop``): the chunk being played finishes, the checkpoint
is saved (with ``--checkpoint``), the files are finished with the hands so far, the summary so
far is printed with ``stopped after X of Y hands`` on stderr, and the command exits with 130.
A second Ctrl-C quits at once (``spoilfive: interrupted``; the last checkpoint stands).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from spoilfive_jax.cli.errors import PROG, CliError, int_at_least
from spoilfive_jax.cli.policies import AGENT_PREFIX
from spoilfive_jax.cli.progress import Progress
from spoilfive_jax.tools import distributed
from spoilfive_jax.tools.checkpoint import Checkpoint

INTERRUPTED = 130  # the exit status of a run stopped by Ctrl-C (128 + SIGINT)


def add_run_options(p: argparse.ArgumentParser, quiet_help: str = "no progress bar") -> None:
    """``--checkpoint DIR``, ``--quiet`` and the many-process flags (``join``)."""
    p.add_argument(
        "--checkpoint",
        metavar="DIR",
        help="save the run's state in DIR after every chunk; the same command with the same DIR "
        "resumes where it stopped, with the same results (docs/scale.md)",
    )
    p.add_argument("--quiet", action="store_true", help=quiet_help)
    g = p.add_argument_group(
        "many processes",
        "run the same command in every process (one per host or GPU, or several on one host); "
        "the hands are spread over every process's devices and process 0 alone prints and "
        "writes files (docs/distributed.md).  Under SLURM or Open MPI, JAX finds these itself",
    )
    g.add_argument("--coordinator", metavar="HOST:PORT", help="process 0's address and a free port")
    g.add_argument("--num-processes", type=int_at_least(1), metavar="N", help="processes in all")
    g.add_argument("--process-id", type=int_at_least(0), metavar="I", help="this one's, 0..N-1")


def join(args: argparse.Namespace) -> None:
    """Join the run's other processes (``tools.distributed.initialize``) when the command line
    names them, or when SLURM or Open MPI started it as one of several tasks; else nothing.
    First thing in a run subcommand, before any JAX computation."""
    given = [args.coordinator, args.num_processes, args.process_id]
    if all(x is None for x in given):
        if not distributed.cluster_detected():
            return
        distributed.initialize()
    elif any(x is None for x in given):
        raise CliError("--coordinator, --num-processes and --process-id go together")
    else:
        distributed.initialize(args.coordinator, args.num_processes, args.process_id)
    _native_stdout_to_stderr()
    # Every process must run the same command: a difference is named now, before any work.
    distributed.agree("the processes were given different arguments", _command(args))


# What may differ between processes: the id, each host's own devices and whether it shows a
# bar; of the files, only the paths (only process 0 writes; whether there is one is compared:
# it decides which collectives a run makes).
_OWN = {"run", "process_id", "_options_given", "devices", "quiet"}
_PATHS = {"json", "csv", "parquet", "plot", "checkpoint"}


def _command(args: argparse.Namespace) -> dict[str, Any]:
    """The command as its options: ``--hands`` -> 10, a file option -> whether it is given,
    each rule option under its own flag (JSON values)."""
    out: dict[str, Any] = {}
    for dest, value in sorted(vars(args).items()):
        if dest in _OWN:
            continue
        if dest == "rule_given":
            for name, (_, raw) in sorted((value or {}).items()):
                out["--" + name.replace("_", "-")] = raw
            continue
        if dest in _PATHS:
            value = value is not None
        out["--" + dest.replace("_", "-")] = (
            value
            if isinstance(value, (bool, int, float, str, list, dict, type(None)))
            else str(value)
        )
    return out


def _native_stdout_to_stderr() -> None:
    """The collectives' library (gloo) prints ``[Gloo] Rank 0 is connected to 3 peer ranks``
    to the C++ stdout as each process group connects, which would land in ``--json -`` or
    clutter the terminal: from here, what native code writes to file descriptor 1 is dropped
    (native errors go to file descriptor 2, which stays), and Python's ``sys.stdout`` writes to
    the real stdout."""
    sys.stdout.flush()
    real = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdout = os.fdopen(real, "w", encoding=sys.stdout.encoding, errors="replace")


def main_process() -> bool:
    """Whether this process prints the tables and writes the files (process 0)."""
    return distributed.is_main_process()


def checkpoint_of(args: argparse.Namespace, names: Sequence[str]) -> Checkpoint | None:
    """The ``--checkpoint`` of a run whose policies are ``names`` (what the command line gave,
    with a checksum of every agent file: a checkpoint must be resumed by the same agents)."""
    if getattr(args, "checkpoint", None) is None:
        return None
    agents = {}
    for name in names:
        if name.startswith(AGENT_PREFIX):
            path = name[len(AGENT_PREFIX) :]
            agents[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return Checkpoint(args.checkpoint, note={"policies": list(names), "agents": agents})


class Stop:
    """Ctrl-C (SIGINT) asks the run to stop after the chunk (``unit``) in progress: ``stop()``
    is then True (the library's ``should_stop``).  A second Ctrl-C raises ``KeyboardInterrupt``.
    The handler is installed for the ``with`` block only (main thread; else nothing)."""

    def __init__(self, enabled: bool = True, unit: str = "chunk") -> None:
        self.enabled, self.requested, self.unit = enabled, False, unit
        self._old: Any = None

    def __enter__(self) -> Stop:
        main = threading.current_thread() is threading.main_thread()
        # (a process started to ignore Ctrl-C, as a shell's background job is, keeps ignoring it)
        if self.enabled and main and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print(
            f"\n{PROG}: stopping after this {self.unit} (Ctrl-C again to quit at once)",
            file=sys.stderr,
            flush=True,
        )

    def __call__(self) -> bool:
        return self.requested

    def __exit__(self, *exc: object) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None


@contextmanager
def running(
    label: str, total: int, unit: str, args: argparse.Namespace, stoppable: bool = True
) -> Iterator[tuple[Progress, Stop]]:
    """The progress bar (none with ``--quiet``) and Ctrl-C's stop of a run of ``total``
    ``unit``s (``stoppable`` False: Ctrl-C quits at once, as for a run that keeps its hands
    in memory)."""
    shown = not args.quiet and main_process()
    with Stop(stoppable) as stop, Progress(label, total, shown, unit) as progress:
        yield progress, stop


def stopped(done: int, total: int, unit: str, checkpoint: Checkpoint | None) -> int:
    """Say on stderr that the run stopped early; the exit status (130)."""
    again = (
        f"; the same command resumes it from {checkpoint.directory}"
        if checkpoint is not None
        else ""
    )
    print(f"{PROG}: stopped after {done:,} of {total:,} {unit}{again}", file=sys.stderr)
    return INTERRUPTED
