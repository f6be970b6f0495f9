"""Statistics shared by the games' summaries, the scorer and the tournaments.

A run's summary is built from per-hand *values* (``Rollouts.hand_values``): values whose mean
and standard error it reports (*averaged*: ``Moments``) and values it only totals (*counted*:
counts, histograms, integer sums).  The same values are reduced two ways:

- ``run_stats``: every hand of a run at once, on the host in float64 (a per-hand result's
  ``summary()``); the moments are numpy's two-pass mean and variance, so the numbers are those
  of ``x.mean(0)`` and ``x.std(0, ddof=1)``;
- ``batch_stats``: one batch inside ``jit`` (float32 moments, int32 counts, only the hands
  marked valid), pooled on the host in float64 by ``add_batches`` (the parallel form of the
  two-pass variance: Chan, Golub and LeVeque), so a run streamed batch by batch
  (``per_hand=False``) keeps a state whose size does not depend on its number of hands.

Counts and totals of integers agree exactly between the two; means of values whose per-batch
sums are exact in float32 (integers below 2**24, as every built-in game's rewards are) agree to
the last bit; standard errors agree to float32 rounding (about 1e-6 relative).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

Values = tuple[dict[str, Any], dict[str, Any]]
"""(averaged, counted): per-hand values, hands first (``Rollouts.hand_values``)."""


class NoPerHand(AttributeError):
    """A per-hand field of a result that was run with ``per_hand=False`` (only its summary)."""


def no_per_hand(what: str, name: str) -> NoPerHand:
    """The error for reading ``name`` of a summary-only result of ``what`` (e.g. "rollout")."""
    return NoPerHand(
        f"{name!r}: this {what} was run with per_hand=False, which keeps only its summary "
        f"(summary()), no per-hand arrays; pass per_hand=True to keep {name}"
    )


def array_module(x: Any) -> Any:
    """``jax.numpy`` for jax arrays and tracers, ``numpy`` for anything else: per-hand values
    are written once, for host arrays and inside ``jit`` alike."""
    return jnp if isinstance(x, jax.Array) else np


def se(x: np.ndarray) -> np.ndarray:
    """Standard error of the mean of each column of x float64[H, K] (zeros for one row)."""
    h = x.shape[0]
    return x.std(axis=0, ddof=1) / np.sqrt(h) if h > 1 else np.zeros(x.shape[1:])


def query_stats(samples: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per-query means and standard errors (float32[Q]) of rollout samples [Q, R]."""
    x64 = [np.asarray(x, np.float64) for x in samples]
    means = [x.mean(1).astype(np.float32) for x in x64]
    ses = [(x.std(1, ddof=1) / math.sqrt(x.shape[1])).astype(np.float32) for x in x64]
    return means, ses


# ---------------------------------------------------------------------------- moments


class Moments(NamedTuple):
    """What a mean and its standard error need, elementwise: how many values, their sum and
    the sum of their squared deviations from their mean (``count`` has ``total``'s shape)."""

    count: Any
    total: Any
    m2: Any


def moment_mean(m: Moments) -> np.ndarray:
    """float64: the mean of the values."""
    return m.total / m.count  # type: ignore[no-any-return]


def moment_std(m: Moments) -> np.ndarray:
    """float64: the sample standard deviation (ddof 1) of the values; 0 for one value."""
    return np.sqrt(m.m2 / np.maximum(m.count - 1, 1)) * (m.count > 1)  # type: ignore[no-any-return]


def moment_se(m: Moments) -> np.ndarray:
    """float64: the standard error of the mean (0 for one value)."""
    return moment_std(m) / np.sqrt(m.count)  # type: ignore[no-any-return]


def host_moments(x: np.ndarray) -> Moments:
    """The moments of the columns of ``x`` [H, ...] in float64, with numpy's two-pass formula
    (the numbers of ``x.mean(0)`` and ``x.std(0, ddof=1)``, bit for bit)."""
    x = np.asarray(x).astype(np.float64)
    h = x.shape[0]
    total = x.sum(0)
    d = x - total / h
    return Moments(np.full(total.shape, h, np.int64), total, (d * d).sum(0))


def device_moments(x: jax.Array, valid: jax.Array) -> Moments:
    """Jittable: the float32 moments of the valid rows of ``x`` [B, ...] (``valid`` bool[B])."""
    w = valid.reshape(valid.shape + (1,) * (x.ndim - 1))
    x = x.astype(jnp.float32)
    count = jnp.broadcast_to(valid.sum(dtype=jnp.int32), x.shape[1:])
    total = jnp.where(w, x, 0.0).sum(0)
    d = jnp.where(w, x - total / jnp.maximum(count, 1), 0.0)
    return Moments(count, total, (d * d).sum(0))


def segment_moments(x: jax.Array, segment: jax.Array, valid: jax.Array, num: int) -> Moments:
    """Jittable: float32 moments of the valid values of ``x`` [B] in each of ``num`` segments
    (``segment`` int32[B]: the scorer's query of each rollout); arrays [num]."""
    count = jax.ops.segment_sum(valid.astype(jnp.int32), segment, num)
    total = jax.ops.segment_sum(jnp.where(valid, x.astype(jnp.float32), 0.0), segment, num)
    mean = total / jnp.maximum(count, 1)
    d = jnp.where(valid, x.astype(jnp.float32) - mean[segment], 0.0)
    return Moments(count, total, jax.ops.segment_sum(d * d, segment, num))


def pool(groups: Moments) -> Moments:
    """The moments of the union of groups (leading axis G, any count 0 or more), in float64:
    m2 = sum of the groups' m2 + sum of count * (group mean - mean)**2."""
    count = np.asarray(groups.count, np.int64)
    total = np.asarray(groups.total, np.float64)
    n, t = count.sum(0), total.sum(0)
    dev = np.where(count > 0, total / np.maximum(count, 1) - t / np.maximum(n, 1), 0.0)
    return Moments(n, t, np.asarray(groups.m2, np.float64).sum(0) + (count * dev * dev).sum(0))


# ---------------------------------------------------------------------------- a run's statistics


@dataclasses.dataclass(frozen=True)
class RunStats:
    """The statistics of a run's hands on the host: how many, the float64 ``Moments`` of each
    averaged value and the total (int64, or float64 for floats) of each counted one."""

    hands: int
    moments: dict[str, Moments]
    totals: dict[str, np.ndarray]

    def mean(self, name: str) -> np.ndarray:
        return moment_mean(self.moments[name])

    def se(self, name: str) -> np.ndarray:
        return moment_se(self.moments[name])

    def share(self, name: str) -> Any:
        """A counted value's total per hand (the share of hands, for a flag)."""
        return self.totals[name] / self.hands


def _total(x: Any) -> np.ndarray:
    x = np.asarray(x)
    wide = np.float64 if np.issubdtype(x.dtype, np.floating) else np.int64
    return x.sum(0, dtype=wide)  # type: ignore[no-any-return]


def run_stats(values: Values) -> RunStats:
    """Host: the statistics of every hand of ``values`` (host arrays, hands first) at once."""
    averaged, counted = values
    moments = {k: host_moments(v) for k, v in averaged.items()}
    first = next(iter({**averaged, **counted}.values()))
    return RunStats(int(np.shape(first)[0]), moments, {k: _total(v) for k, v in counted.items()})


def batch_stats(values: Values, valid: jax.Array) -> dict[str, Any]:
    """Jittable: one batch's statistics (a pytree: ``hands`` int32, ``moments``, ``totals``)
    of the hands marked ``valid`` bool[B]; pooled on the host by ``add_batches``."""
    averaged, counted = values

    def total(x: jax.Array) -> jax.Array:
        w = valid.reshape(valid.shape + (1,) * (x.ndim - 1))
        kind = jnp.float32 if jnp.issubdtype(x.dtype, jnp.floating) else jnp.int32
        return jnp.where(w, x.astype(kind), 0).sum(0)

    return {
        "hands": valid.sum(dtype=jnp.int32),
        "moments": {k: device_moments(v, valid) for k, v in averaged.items()},
        "totals": {k: total(v) for k, v in counted.items()},
    }


def merge_moments(a: Moments | None, b: Moments) -> Moments:
    """Host: the moments of two disjoint sets of values pooled (``a`` None: ``b``)."""
    if a is None:
        return b
    return pool(Moments(*(np.stack([x, y]) for x, y in zip(a, b, strict=True))))


def merge_stats(a: RunStats | None, b: RunStats) -> RunStats:
    """Host: the statistics of two disjoint sets of hands pooled (two parts of one run, e.g.
    two ``rollout_range`` results' ``stats``; ``a`` None: ``b``)."""
    if a is None:
        return b
    return RunStats(
        a.hands + b.hands,
        {k: merge_moments(m, b.moments[k]) for k, m in a.moments.items()},
        {k: t + b.totals[k] for k, t in a.totals.items()},
    )


def add_batches(run: RunStats | None, batches: dict[str, Any]) -> RunStats:
    """Host: ``run`` (None: nothing yet) and ``batches``, ``batch_stats`` outputs stacked on a
    leading axis (host arrays), pooled in float64 (counts in int64)."""
    new = RunStats(
        int(np.asarray(batches["hands"], np.int64).sum()),
        {k: pool(Moments(*(np.asarray(x) for x in m))) for k, m in batches["moments"].items()},
        {k: _total(t) for k, t in batches["totals"].items()},
    )
    return merge_stats(run, new)


def masked_total(x: Any, valid: Any = None) -> Any:
    """Host or jittable: the sum over the leading axis of the rows that ``valid`` bool[B] marks
    (None: every row; on the host, integers and flags sum in int64)."""
    if valid is None:
        return x.sum(0)
    w = valid.reshape(valid.shape + (1,) * (x.ndim - 1))
    return array_module(x).where(w, x, 0).sum(0)
