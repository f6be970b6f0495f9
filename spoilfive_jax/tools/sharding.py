"""Batches and devices: how many hands a call plays, and how a batch spreads over the devices.

Every tool's results depend only on each hand's index (counter-based randomness), never on the
batch size, the chunking or the number of devices; these helpers only choose how the work is cut.
"""

from __future__ import annotations

import jax
import numpy as np

DEFAULT_BATCH_CPU = 16384  # measured sweet spot on XLA:CPU (fits the caches)
DEFAULT_BATCH_ACCEL = 262144


def default_batch_size() -> int:
    """Hands played at once when the caller does not say: 16384 on CPU, 262144 on an
    accelerator."""
    return DEFAULT_BATCH_CPU if jax.default_backend() == "cpu" else DEFAULT_BATCH_ACCEL


def shard_batch(x: jax.Array) -> jax.Array:
    """Spread a batch axis over this process's devices (a no-op with one device).  All the work is
    elementwise along the batch, so XLA partitions the whole rollout without communication."""
    devices = jax.local_devices()  # this process's devices (multi-host: one run per host)
    if len(devices) == 1:
        return x
    mesh = jax.sharding.Mesh(np.array(devices), ("hands",))
    spec = jax.sharding.PartitionSpec("hands")
    return jax.lax.with_sharding_constraint(x, jax.sharding.NamedSharding(mesh, spec))


def batch_for(requested: int, total: int) -> int:
    """The batch for ``total`` items: ``requested``, or for smaller runs the next power of two
    (so runs of different sizes share compiled code), a multiple of the local device count."""
    return round_to_devices(min(requested, 1 << max(total - 1, 0).bit_length()))


def round_to_devices(b: int) -> int:
    """The batch rounded up to a multiple of the device count (the batch is sharded)."""
    d = jax.local_device_count()
    return -(-b // d) * d


__all__ = ["batch_for", "default_batch_size", "round_to_devices", "shard_batch"]
