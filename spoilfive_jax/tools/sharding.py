"""Batches and devices: how many hands a call plays, how a batch spreads over the devices, and
how a call's output comes back to the host.

Every tool's results depend only on each hand's index (counter-based randomness), never on the
batch size, the chunking or the number of devices; these helpers only choose how the work is cut.

The devices are ``jax.devices()``: this process's own, or, after ``jax.distributed.initialize``
(``spoilfive_jax.distributed``), every device of every process.  Then each tool's jitted call is
one program over all of them (JAX's multi-controller model: every process runs the same call
with the same arguments, and plays the hands its own devices hold), the reductions to
statistics are XLA collectives, and ``host_arrays`` brings any output to every process.

One program at a time on several CPU devices (``one_at_a_time``).  XLA:CPU launches each part
of a program over several devices on a small pool of launch threads (sized to the cores): a
launch holds its thread through a barrier with the other devices' launches and through the
device's in-flight limit, and a running collective (every reduction to statistics, and any loop
whose end depends on the whole batch) holds its thread until every device's part arrives.  With
several such programs queued at once, which the host's asynchronous dispatch makes easy (a
tournament's call queued seven, and the next call went out while the host pooled the last),
every thread of the pool can end up waiting for a part that no thread is left to run: the
process hangs for ever, XLA logging "This thread has been waiting for `all reduce` ... and may
be stuck".  Every tool therefore waits for each of its multi-device programs to finish before it
dispatches the next one, on CPU devices only (an accelerator's devices run their programs in
order on their own streams).  What this costs is the overlap of the host's pooling with the
devices' play: within the noise of the main job and of a run writing Parquet on 2 cores.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

import jax
import numpy as np

DEFAULT_BATCH_CPU = 16384  # measured sweet spot on XLA:CPU (fits the caches)
DEFAULT_BATCH_ACCEL = 262144

F = TypeVar("F", bound=Callable[..., Any])


def default_batch_size() -> int:
    """Hands played at once when the caller does not say: 16384 on CPU, 262144 on an
    accelerator."""
    return DEFAULT_BATCH_CPU if jax.default_backend() == "cpu" else DEFAULT_BATCH_ACCEL


@functools.cache
def _sharding(devices: tuple[Any, ...], *axes: str) -> jax.sharding.NamedSharding:
    """The batch axis over ``devices`` (``axes`` ``("hands",)``), or (none) whole on each."""
    mesh = jax.sharding.Mesh(np.array(devices), ("hands",))
    return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*axes))


def shard_batch(x: jax.Array) -> jax.Array:
    """Spread a batch axis (the first) over every device (``jax.devices()``: every process's
    after ``jax.distributed.initialize``; a no-op with one device).  All the work is elementwise
    along the batch, so XLA partitions the whole call without communication until its
    reductions."""
    devices = tuple(jax.devices())
    if len(devices) == 1:
        return x
    return jax.lax.with_sharding_constraint(x, _sharding(devices, "hands"))


def replicated(tree: Any) -> Any:
    """Inside a jitted call: its (small) reduced outputs whole on every device, so that the
    reduction's collectives are part of the call and every process holds the result (read back
    without a collective of its own; a no-op with one device)."""
    devices = tuple(jax.devices())
    if len(devices) == 1:
        return tree
    whole = _sharding(devices)
    return jax.tree.map(lambda x: jax.lax.with_sharding_constraint(x, whole), tree)


def host_arrays(tree: Any) -> Any:
    """A call's output (a pytree of arrays) as host numpy arrays, whole, in every process.  An
    array spread over other processes' devices too (a multi-process run's per-hand records) is
    gathered from all of them (``multihost_utils.process_allgather``: a collective, so every
    process makes the same calls); one process's arrays are copied as ``jax.device_get``
    would."""
    if jax.process_count() == 1:
        return jax.tree.map(np.asarray, jax.device_get(tree))
    from jax.experimental import multihost_utils

    def one(x: Any) -> np.ndarray:
        if not isinstance(x, jax.Array) or x.is_fully_addressable:
            return np.asarray(jax.device_get(x))
        if x.is_fully_replicated:  # (a reduction: every process holds it whole)
            return np.asarray(x.addressable_data(0))
        return np.asarray(multihost_utils.process_allgather(x, tiled=True))

    return jax.tree.map(one, tree)


def in_lockstep() -> bool:
    """Whether multi-device programs must run one at a time: several CPU devices (the host
    devices of ``use_all_cores``, or the processes of a distributed CPU run)."""
    return jax.device_count() > 1 and jax.default_backend() == "cpu"


def one_at_a_time(fn: F) -> F:
    """``fn`` (a jitted call over the devices), finished before it returns whenever
    ``in_lockstep()``: the module's docstring says why.  Called while tracing (inside another
    jitted function) it only traces.  The wrapper forwards every other attribute to ``fn``
    (``lower``, ``_cache_size``)."""
    return cast(F, _OneAtATime(fn))


class _OneAtATime:
    """``one_at_a_time``'s wrapper."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self._fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        out = self._fn(*args, **kwargs)
        if in_lockstep() and not any(isinstance(x, jax.core.Tracer) for x in jax.tree.leaves(out)):
            jax.block_until_ready(out)
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fn, name)


def batch_for(requested: int, total: int) -> int:
    """The batch for ``total`` items: ``requested``, or for smaller runs the next power of two
    (so runs of different sizes share compiled code), a multiple of the local device count."""
    return round_to_devices(min(requested, 1 << max(total - 1, 0).bit_length()))


def round_to_devices(b: int) -> int:
    """The batch rounded up to a multiple of the device count (every process's: the batch is
    sharded over all of them)."""
    d = jax.device_count()
    return -(-b // d) * d


__all__ = [
    "batch_for",
    "default_batch_size",
    "host_arrays",
    "in_lockstep",
    "one_at_a_time",
    "replicated",
    "round_to_devices",
    "shard_batch",
]
