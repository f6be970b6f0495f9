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
"""

from __future__ import annotations

import os
from typing import Any

import jax
import numpy as np

_STARTED: list[dict[str, Any]] = []  # the arguments of this process's initialize, once called


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
    jax.distributed.initialize(**args)
    _STARTED.append(args)
    return jax.process_index()


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
    "any_process",
    "cluster_detected",
    "initialize",
    "is_main_process",
    "same_everywhere",
]
