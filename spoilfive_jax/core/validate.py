"""Host-side input checks shared by every game: each raises ``ValueError`` naming the problem.

A traced value (inside ``jit``/``vmap``) cannot be inspected, so these checks let it pass; the
functions that take traced inputs document what they do with bad ones instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

MIN_PLAYERS, MAX_PLAYERS = 2, 10


def concrete(x: Any) -> np.ndarray | None:
    """The host value of ``x``, or None when it is a tracer (inside jit/vmap)."""
    if isinstance(x, jax.core.Tracer):
        return None
    return np.asarray(x)


def as_key(key: Any, name: str = "key") -> jax.Array:
    """A PRNG key from ``key``: a key (``jax.random.PRNGKey(seed)``, uint32[2], or a typed
    ``jax.random.key(seed)``; traced ones too) is returned as it is, an int seed becomes
    ``jax.random.PRNGKey(seed)``; anything else (text, floats, bools, a batch of keys) is a
    ``ValueError`` naming ``name``.  A tracer is judged by its dtype and shape, at trace time."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        try:
            return jax.random.PRNGKey(int(key))
        except OverflowError:
            raise ValueError(f"{name}: the seed {int(key)} does not fit in 64 bits") from None
    if isinstance(key, (jax.Array, np.ndarray)):
        typed = jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key)
        raw = _raw_key_shape(str(jax.config.values["jax_default_prng_impl"]))  # (2,)
        if (typed and key.shape == ()) or (key.dtype == np.uint32 and key.shape == raw):
            return key if isinstance(key, jax.Array) else jax.numpy.asarray(key)
        batch = (typed and key.ndim > 0) or (
            key.dtype == np.uint32 and key.ndim > 1 and key.shape[-len(raw) :] == raw
        )
        shown = f"an array {key.dtype}{list(key.shape)}"
        if key.dtype == np.uint32 and key.ndim == 1:
            shown += f" (a raw key is uint32{list(raw)})"
        shown += " (a batch of keys: jax.vmap over it)" if batch else ""
    else:
        shown = repr(key) if len(repr(key)) <= 40 else type(key).__name__
    raise ValueError(
        f"{name} must be one PRNG key (jax.random.PRNGKey(seed) or jax.random.key(seed)) or an "
        f"int seed, got {shown}"
    )


@functools.cache
def _raw_key_shape(impl: str) -> tuple[int, ...]:
    """The shape of a raw (uint32) key of JAX's default PRNG ``impl`` (once per impl: tracing
    ``jax.random.PRNGKey`` costs about 0.2 ms, too much for every ``init``)."""
    return tuple(jax.eval_shape(lambda: jax.random.PRNGKey(0)).shape)


def check_int(name: str, value: Any, low: int, high: int | None) -> None:
    """Validate a host integer in ``low..high`` (a tracer passes: it cannot be inspected)."""
    v = concrete(value)
    if v is None:
        return
    if v.shape != () or not np.issubdtype(v.dtype, np.integer):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    iv = int(v)
    if iv < low or (high is not None and iv > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be {bound}, got {iv}")


def positive_int(name: str, value: Any, *, allow_none: bool = False) -> int | None:
    """``value`` as a Python int >= 1 (``None`` passes through when ``allow_none``).

    Refuses bools, floats (``2.5`` is not silently truncated), strings and values below 1.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if int(value) < 1:
        raise ValueError(f"{name} must be a positive integer, got {int(value)}")
    return int(value)


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a Python bool: ``True``/``False`` (or a numpy bool) only, so that a count or a
    string given by mistake (``per_hand=0``, ``per_hand="no"``) is refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_cards(
    name: str, ids: np.ndarray, deck_size: int, text: Callable[[int], str] | None = None
) -> None:
    """Card ids must be integers in ``0..deck_size-1`` with no duplicates."""
    if not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"{name} must hold integer card ids, got dtype {ids.dtype}")
    bad = ids[(ids < 0) | (ids >= deck_size)]
    if bad.size:
        shown = sorted({int(b) for b in bad.reshape(-1)})
        raise ValueError(f"{name} holds card ids outside 0..{deck_size - 1}: {shown}")
    values, counts = np.unique(ids, return_counts=True)
    dup = values[counts > 1]
    if dup.size:
        shown_dup = ", ".join((text or str)(int(c)) for c in dup)
        raise ValueError(f"{name} holds duplicate cards: {shown_dup}")


def check_num_players(num_players: Any) -> int:
    """``num_players`` as an int, or ``ValueError`` unless it is an integer 2..10."""
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
        raise ValueError(f"num_players must be an integer 2..10, got {num_players!r}")
    if not MIN_PLAYERS <= int(num_players) <= MAX_PLAYERS:
        raise ValueError(f"num_players must be 2..10, got {num_players}")
    return int(num_players)


def table_labels(hands: Any, count: int) -> list[list[int]] | None:
    """The query hands a score record's ``table(hands)`` labels its ``count`` rows with: None
    (rows labelled by number), or one hand of card ids a row, else ``ValueError``: a list of
    another length would label the rows with the wrong hands, or drop some, without a word."""
    if hands is None:
        return None
    try:
        rows = np.asarray(hands).reshape(-1, 5)
    except (ValueError, TypeError) as e:
        raise ValueError(f"table(hands): one hand of 5 card ids a query, got {hands!r}") from e
    if len(rows) != count:
        raise ValueError(
            f"table(hands): {len(rows)} hands for scores of {count} "
            f"quer{'y' if count == 1 else 'ies'}: give the hands that were scored"
        )
    return rows.tolist()
