"""Runs of any size: the calls a run is cut into, and the key material of every hand index.

A game keys hand ``i`` of a run by the run's key material (``Rollouts.rollout_keys``) and the
index as a uint32 ``id`` (``rollout_deal``, ``hand_keys``, the kernels' counter hashes).  Past
2**32 hands that id would wrap, so the indices are cut into *epochs* of 2**32: hand ``i`` is
played as id ``i % 2**32`` with the key material of epoch ``i // 2**32`` (``run_keys``).  Epoch
0's key is the run's key itself, so every hand below 2**32 is the hand it always was; epoch
``e >= 1`` is keyed by ``threefry(key, (e, 0))``, the counter that ``fold_in`` of the 64-bit
index ``e * 2**32`` would hash.  No 32-bit ``fold_in`` or ``split`` of the key hashes a counter
with a nonzero high word (they hash ``(0, d)``), and threefry is a bijection of the counter for a
fixed key, so an epoch's key is none of the keys epoch 0 derives.  A hand's key material
depends only on its index: never on the batch size or the chunking.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import jax
import jax.extend.random
import jax.numpy as jnp

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, R, S

EPOCH = 1 << 32  # hands keyed by one key material (their ids are uint32)


class Chunk(NamedTuple):
    """One call's hands: ``start`` (the first hand's index in the run), its ``epoch`` and id
    ``first`` (``start = epoch * 2**32 + first``) and how many ``hands``; never across an
    epoch."""

    start: int
    epoch: int
    first: int
    hands: int


def hand_chunks(start: int, stop: int, size: int, epoch_size: int = EPOCH) -> Iterator[Chunk]:
    """The calls that play hands ``start .. stop - 1``, ``size`` hands each (fewer in the last
    call, and where an epoch ends); ``epoch_size``: items an epoch keys (a tool whose items
    are several hands, as sessions are, keys fewer)."""
    i = start
    while i < stop:
        epoch, first = divmod(i, epoch_size)
        count = min(size, stop - i, epoch_size - first)
        yield Chunk(i, epoch, first, count)
        i += count


def epoch_key(key: jax.Array, epoch: int) -> jax.Array:
    """The PRNG key of epoch ``epoch`` of a run with ``key``: ``key`` itself for epoch 0, else
    ``threefry(key, (epoch, 0))`` (a raw uint32[2] key, or a typed threefry key: other key
    implementations cannot key runs past 2**32 hands, a ``ValueError``)."""
    if epoch == 0:
        return key
    if not 0 < epoch < EPOCH:
        raise ValueError(f"a run has at most 2**64 hands, got epoch {epoch}")
    typed = jnp.issubdtype(key.dtype, jax.dtypes.prng_key)
    data = jax.random.key_data(key) if typed else key
    if (typed and str(jax.random.key_impl(key)) != "threefry2x32") or data.shape != (2,):
        raise ValueError(
            "runs of 2**32 hands or more need a threefry2x32 PRNG key (jax.random.PRNGKey(seed) "
            f"or jax.random.key(seed)), got {key!r}"
        )
    counter = jnp.array([epoch, 0], jnp.uint32)
    out = jax.extend.random.threefry_2x32(jnp.asarray(data, jnp.uint32), counter)
    return jax.random.wrap_key_data(out, impl="threefry2x32") if typed else out


def run_keys(env: Env[S, R], key: jax.Array, epoch: int) -> Any:
    """The game's key material (``Rollouts.rollout_keys``) of the hands of epoch ``epoch``."""
    return env.capability(caps.Rollouts).rollout_keys(env, epoch_key(key, epoch))


__all__ = ["EPOCH", "Chunk", "epoch_key", "hand_chunks", "run_keys"]
