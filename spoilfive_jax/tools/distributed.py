"""Many processes and hosts: JAX's own multi-controller runtime, nothing of our own.

After ``initialize`` (``jax.distributed.initialize``: the coordinator's address, the number of
processes and this one's index, or found by JAX under SLURM and Open MPI), ``jax.devices()`` is
every device of every process, and every tool (``rollout``, ``score_hands``, ``evaluate``,
``play_sessions``, ``analyze``) spreads its hands over all of them (``tools.sharding``): each
process runs the same calls with the same arguments, plays the hands its own devices hold, and
the statistics are reduced by XLA's collectives (gloo on CPU, NCCL on GPU).  Every process gets
the same result, identical to a one-process run with the same key (a hand depends on its index
alone).  Run the same script in every process::

    import spoilfive_jax as sf

    sf.distributed.initialize("10.0.0.1:1234", num_processes=4, process_id=RANK)
    result = sf.rollout(0, sf.make("spoil_five"), "heuristic", 10**10, per_hand=False)
    if sf.distributed.is_main_process():
        print(result.summary())

A streamed run's checkpoint (``tools.checkpoint``) is written by process 0 alone and read by
every process, so its directory must be one they share; the processes agree on where they
resume, and on a stop asked of any of them (Ctrl-C), before going on.

What goes wrong between processes ends the run with one line instead of a hang:

- **Waiting for the others.**  ``initialize`` says on stderr what it waits for (which
  coordinator, how many processes, how long at most: ``JOIN_TIMEOUT_S``) when they are not all
  there within a few seconds, and past ``JOIN_TIMEOUT_S`` ends the process with one line and
  ``LOST_PEER_EXIT`` (JAX's own time-out aborts in C++).
- **Different runs.**  Every streamed run (``tools.checkpoint.run_chunks``), and every command
  line run, first compares what it is about to play with every other process (``agree``:
  through the coordinator's key-value store, not a collective, so nothing can hang on it): a
  difference (``--hands 10`` in one, ``--hands 20`` in another) is a ``ValueError`` in every
  process, naming it, before any hand is played.
- **A lost process.**  A watchdog thread in every process posts a heartbeat to the coordinator
  every second and reads the others'.  When a process has not posted for ``PEER_TIMEOUT_S``
  seconds (killed, its host gone) or the coordinator cannot be reached that long, every
  survivor prints ``spoilfive: error: lost process K ...`` on stderr and ends with exit status
  ``LOST_PEER_EXIT`` (3) within ``PEER_TIMEOUT_S`` + 2 seconds: its collectives would otherwise
  wait for the lost process until JAX's own heartbeat (100 s) aborts it with a C++ error.  The
  checkpoint, written atomically after every chunk, stands at the last chunk saved, and the
  same command resumes from it.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

_STARTED: list[dict[str, Any]] = []  # the arguments of this process's initialize, once called

JOIN_TIMEOUT_S = 300  # how long initialize waits for every process to join (JAX's default)
PEER_TIMEOUT_S = 30  # silence after which a process counts as lost (JAX's own: 100 s, fatal)
LOST_PEER_EXIT = 3  # the exit status of a process whose run lost another process
_ANNOUNCE_AFTER_S = 3.0  # initialize says what it waits for once it has waited this long
_PREFIX = "spoilfive_jax/"  # this package's keys in the coordinator's key-value store


def cluster_detected() -> bool:
    """Whether this process is one task of a multi-task SLURM step or Open MPI job, whose
    coordinator, size and rank ``jax.distributed.initialize()`` finds on its own."""
    env = os.environ
    slurm = env.get("SLURM_STEP_NUM_TASKS", env.get("SLURM_NTASKS", "1"))
    mpi = env.get("OMPI_COMM_WORLD_SIZE", "1")
    return ("SLURM_JOB_ID" in env and _count(slurm) > 1) or _count(mpi) > 1


def _count(text: str) -> int:
    try:
        return int(text.split("(")[0])  # (SLURM writes counts like "4(x2)")
    except ValueError:
        return 1


def initialize(
    coordinator_address: str | None = None,
    num_processes: int | None = None,
    process_id: int | None = None,
) -> int:
    """Join this process to a run of ``num_processes`` (``jax.distributed.initialize``); returns
    this process's index.  Call it first, before any JAX computation, in every process: the
    coordinator is ``HOST:PORT`` of process 0, which listens there.  With no arguments, JAX finds
    them under SLURM or Open MPI (``cluster_detected``; elsewhere a ``ValueError``).  Called again
    with the same arguments, it does nothing."""
    given = (coordinator_address, num_processes, process_id)
    if any(x is not None for x in given) and any(x is None for x in given):
        raise ValueError(
            "give coordinator_address, num_processes and process_id together (or none of "
            "them, under SLURM or Open MPI)"
        )
    args: dict[str, Any] = {}
    if coordinator_address is not None:
        n = _positive("num_processes", num_processes)
        args = {
            "coordinator_address": _address(coordinator_address),
            "num_processes": n,
            "process_id": _index(process_id, n),
        }
    elif not cluster_detected():
        raise ValueError(
            "no SLURM or Open MPI job found: give the coordinator's HOST:PORT, the number of "
            "processes and this process's id"
        )
    if _STARTED:  # (a second call: with no arguments too, under SLURM or Open MPI)
        if args != _STARTED[0]:
            raise ValueError(f"this process already joined another run ({_STARTED[0]})")
        return jax.process_index()
    if _backends_started():
        raise ValueError(
            "initialize must run before any JAX computation in this process (call it first)"
        )
    announce = _announcer(args)
    # (registered before JAX registers its own exit, so it runs after it: at-exit is LIFO)
    atexit.register(_stop_watchdog)
    try:  # (JAX's own time-out aborts in C++: the announcer ends the process first, in words)
        jax.distributed.initialize(**args, initialization_timeout=JOIN_TIMEOUT_S + 60)
    finally:
        announce.set()
    _STARTED.append(args)
    if jax.process_count() > 1:
        _Watchdog(jax.process_index(), jax.process_count()).start()
    return jax.process_index()


def _announcer(args: dict[str, Any]) -> threading.Event:
    """An event to set once ``initialize`` returns; if it is not set within
    ``_ANNOUNCE_AFTER_S``, a line on stderr says what this process waits for."""
    done = threading.Event()
    where = args.get("coordinator_address", "the cluster's coordinator")
    n = args.get("num_processes")
    others = f"the other {n - 1} process{'es' if n != 2 else ''}" if n else "the other processes"

    def say() -> None:
        if done.wait(_ANNOUNCE_AFTER_S):
            return
        print(
            f"spoilfive_jax: waiting for {others} to join at {where} (up to {JOIN_TIMEOUT_S} s)...",
            file=sys.stderr,
            flush=True,
        )
        if not done.wait(JOIN_TIMEOUT_S - _ANNOUNCE_AFTER_S):
            end_run(f"{others} did not join at {where} within {JOIN_TIMEOUT_S} s", saved=False)

    threading.Thread(target=say, name="spoilfive-join", daemon=True).start()
    return done


def _client() -> Any:
    """The coordinator's client of this process (JAX's; None before ``initialize``)."""
    from jax._src import distributed as jax_distributed  # (JAX keeps it private)

    return jax_distributed.global_state.client


class _Watchdog(threading.Thread):
    """Posts this process's heartbeat (a counter) every second and ends the process, with one
    line on stderr and ``LOST_PEER_EXIT``, once another has posted nothing for
    ``PEER_TIMEOUT_S`` seconds or the coordinator cannot be reached that long.  A process
    leaving normally marks itself done first (at exit), so it is never taken for lost."""

    def __init__(self, me: int, count: int, on_lost: Callable[[str], None] | None = None):
        super().__init__(name="spoilfive-watchdog", daemon=True)
        self.me, self.count = me, count
        self.on_lost = on_lost or end_run
        self.beat = 0

    def run(self) -> None:
        client = _client()
        seen: dict[str, tuple[str, float]] = {}  # process -> (its last beat, when it changed)
        reached = time.monotonic()
        atexit.register(self.leave, client)
        while not _WATCHDOG_STOP.wait(1.0):
            now = time.monotonic()
            try:
                self.beat += 1
                client.key_value_set(f"{_PREFIX}alive/{self.me}", str(self.beat), True)
                beats = dict(client.key_value_dir_get(f"{_PREFIX}alive/"))
                done = {
                    k.rsplit("/", 1)[-1] for k, _ in client.key_value_dir_get(f"{_PREFIX}done/")
                }
                reached = now
            except Exception:  # (the coordinator is gone or unreachable)
                if now - reached > PEER_TIMEOUT_S:
                    return self.on_lost(f"lost the coordinator (process 0) for {PEER_TIMEOUT_S} s")
                continue
            lost = self.silent(beats, done, seen, now)
            if lost is not None:
                return self.on_lost(f"lost process {lost} (no heartbeat for {PEER_TIMEOUT_S} s)")

    def silent(
        self, beats: dict[str, str], done: set[str], seen: dict[str, tuple[str, float]], now: float
    ) -> int | None:
        """The first other process, not done, whose beat has not changed for
        ``PEER_TIMEOUT_S`` (``seen``: each one's last beat and when it changed, updated)."""
        for k in range(self.count):
            key = str(k)
            if k == self.me or key in done:
                continue
            beat = beats.get(f"{_PREFIX}alive/{key}", "")  # ("" until its first beat)
            if key not in seen or seen[key][0] != beat:
                seen[key] = (beat, now)
            elif now - seen[key][1] > PEER_TIMEOUT_S:
                return k
        return None

    def leave(self, client: Any) -> None:
        """At exit: mark this process done, so the others do not take it for lost.  The
        watchdog keeps watching while JAX's own exit waits for the other processes (up to its
        heartbeat timeout, then a C++ abort): a process lost meanwhile ends this one as above."""
        with contextlib.suppress(Exception):  # (the coordinator is gone: nothing to tell)
            client.key_value_set(f"{_PREFIX}done/{self.me}", "1", True)


_WATCHDOG_STOP = threading.Event()


def _stop_watchdog(timeout: float = 5.0) -> None:
    """At exit, after JAX's own exit (which waits for the other processes, the watchdog still
    watching): end the watchdog's loop and wait for it.  A daemon thread still inside a call of
    the coordinator's client when the interpreter finalizes is ended in C++ mid-call, and the
    process aborts (``terminate called ... exception not rethrown``, exit -6) after its work
    is done."""
    _WATCHDOG_STOP.set()
    for thread in threading.enumerate():
        if isinstance(thread, _Watchdog):
            thread.join(timeout)


def end_run(what: str, saved: bool = True) -> None:
    """End this process of a multi-process run that cannot go on (``what`` happened): one line
    on stderr, then exit status ``LOST_PEER_EXIT`` at once, without JAX's exit, which would wait
    for the lost process until its heartbeat timeout and then abort.  ``saved``: the run may
    have saved a checkpoint (the line says it stands)."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    kept = (
        " (a checkpoint, if the run keeps one, stands at its last saved chunk: the same "
        "command resumes it)"
        if saved
        else ""
    )
    print(f"spoilfive: error: {what}; the run ends here{kept}", file=sys.stderr, flush=True)
    os._exit(LOST_PEER_EXIT)


_AGREED = [0]  # agreements made by this process (each has its keys)


def agree(what: str, facts: dict[str, Any]) -> None:
    """A ``ValueError`` in every process unless every process gives the same ``facts`` (a dict
    of JSON values, e.g. a run's arguments) at this point: the first difference is named
    (``what`` says what the facts are).  Through the coordinator's key-value store, not a
    collective: a process that never gets here (another command) is named after
    ``JOIN_TIMEOUT_S``; nothing hangs.  Nothing in a one-process run."""
    if jax.process_count() == 1:
        return
    client, me = _client(), jax.process_index()
    _AGREED[0] += 1
    base = f"{_PREFIX}agree/{_AGREED[0]}/"
    mine = json.dumps(facts, sort_keys=True, default=str)
    client.key_value_set(base + str(me), mine, True)
    for k in range(jax.process_count()):
        if k == me:
            continue
        try:
            theirs = client.blocking_key_value_get(base + str(k), JOIN_TIMEOUT_S * 1000)
        except Exception:
            raise ValueError(
                f"{what}: process {k} did not reach this run within {JOIN_TIMEOUT_S} s "
                "(is it running the same command?)"
            ) from None
        if theirs != mine:
            raise ValueError(f"{what}: {_difference(json.loads(mine), json.loads(theirs), me, k)}")


def _difference(mine: dict[str, Any], theirs: dict[str, Any], me: int, k: int) -> str:
    """The first fact on which two processes differ, in words."""
    for name in sorted(set(mine) | set(theirs)):
        if mine.get(name) != theirs.get(name):
            return (
                f"{name} is {_shown(mine.get(name))} in process {me} but {_shown(theirs.get(name))}"
                f" in process {k}: give every process the same arguments"
            )
    return f"processes {me} and {k} differ: give every process the same arguments"


def _shown(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 60 else text[:57] + "..."


def _backends_started() -> bool:
    try:  # (a private JAX helper; without it, JAX itself refuses a late initialize)
        from jax._src import xla_bridge

        return bool(xla_bridge.backends_are_initialized())
    except (ImportError, AttributeError):  # pragma: no cover - depends on the JAX version
        return False


def _address(text: Any) -> str:
    host, sep, port = str(text).rpartition(":")
    if not isinstance(text, str) or not sep or not host or not port.isdigit():
        raise ValueError(f"coordinator must be HOST:PORT, got {text!r}")
    if not 0 < int(port) < 65536:
        raise ValueError(f"coordinator port must be 1..65535, got {port}")
    return text


def _positive(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def _index(process_id: Any, n: int) -> int:
    if (
        isinstance(process_id, bool)
        or not isinstance(process_id, (int, np.integer))
        or not 0 <= process_id < n
    ):
        raise ValueError(f"process_id must be 0..{n - 1}, got {process_id!r}")
    return int(process_id)


def is_main_process() -> bool:
    """Whether this is process 0 (always, in a one-process run): the one that writes files,
    checkpoints and tables."""
    return jax.process_index() == 0


def any_process(flag: bool) -> bool:
    """True in every process when ``flag`` is True in any of them (a collective: every process
    calls it at the same point)."""
    if jax.process_count() == 1:
        return bool(flag)
    from jax.experimental import multihost_utils

    return bool(np.asarray(multihost_utils.process_allgather(np.array([bool(flag)]))).any())


def same_everywhere(what: str, value: int, why: str) -> None:
    """A ``ValueError`` (in every process) unless ``value`` is the same in every process (a
    collective)."""
    if jax.process_count() == 1:
        return
    from jax.experimental import multihost_utils

    v = int(value)  # (as two uint32 words: JAX without x64 has no 64-bit integers)
    words = np.array([(v >> 32) & 0xFFFFFFFF, v & 0xFFFFFFFF], np.uint32)
    got = np.asarray(multihost_utils.process_allgather(words)).reshape(-1, 2).astype(np.int64)
    values = [h << 32 | lo for h, lo in got.tolist()]
    if len(set(values)) > 1:
        raise ValueError(f"the processes disagree on {what} ({values}): {why}")


__all__ = [
    "JOIN_TIMEOUT_S",
    "LOST_PEER_EXIT",
    "PEER_TIMEOUT_S",
    "agree",
    "any_process",
    "cluster_detected",
    "end_run",
    "initialize",
    "is_main_process",
    "same_everywhere",
]
