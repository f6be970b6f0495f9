"""The transposition table of ``core.search``: what the search has learned of nodes it may meet
again by another line, kept for a whole batch of worlds.

An entry is one row of an int32 matrix ``[T, 6]``: the node's 64-bit check (two words), the
bounds (lo, hi) its value was found to lie within (equal where it was found exact, inside its
window), the ``aux`` of its line (where exact) and a seal, a hash of the other five words.  A
node's key is three 32-bit hashes of its words and of its world (``seed``, from the world's
``ctx``): the first picks the row (``T`` a power of two), the other two are the check, so two
nodes share an entry only if all 64 bits agree (about one chance in 2**64 a lookup of being
fooled).  Worlds with the same ``ctx`` (one deal solved for several root moves, as a pimc
decision does) share their entries.

A store replaces the row.  Where several worlds store to one row in the same step, the row is
one of theirs, or, where a device writes the words of different stores into it, a row whose
seal does not match: a lookup ignores it.  (Finding each row's one writer, or narrowing the
bounds already there, costs a CPU a third more a step.)  The values a search finds are the
same whichever store wins; the children it searches may differ.  The functions are written at
the batch's level: ``[B]`` leading every argument but ``table``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

I32, U32 = jnp.int32, jnp.uint32
INF = 1 << 30  # beyond every value a tree may have (|value| < 2**30): ``core.search.INF``
_CHECK_A, _CHECK_B, _LO, _HI, _AUX, _SEAL = range(6)
_STREAMS = (0x243F6A88, 0x85A308D3, 0x13198A2E)  # a starting value per hash


def empty(size: int) -> jax.Array:
    """int32[size, 6]: a table with no entries (``size``: a power of two)."""
    if size < 1 or size & (size - 1):
        raise ValueError(f"transpositions must be a power of two, got {size}")
    row = jnp.array([0, 0, -INF, INF, 0, 0], I32)
    return jnp.broadcast_to(row.at[_SEAL].set(_seal(row[None, :_SEAL])[0]), (size, 6))


def _mix(h: jax.Array, w: jax.Array) -> jax.Array:
    """uint32: ``h`` with one more word ``w`` (murmur3's finaliser of their xor)."""
    h = (h ^ w) * U32(0x85EBCA6B)
    h = (h ^ (h >> 13)) * U32(0xC2B2AE35)
    return h ^ (h >> 16)


def _seal(rows: jax.Array) -> jax.Array:
    """int32[B]: the seal of the first five words of rows int32[B, 5]."""
    h = jnp.full(rows.shape[:1], U32(_STREAMS[0]))
    for j in range(_SEAL):
        h = _mix(h, jax.lax.bitcast_convert_type(rows[:, j], U32))
    return jax.lax.bitcast_convert_type(h, I32)


def words(tree: Any) -> list[jax.Array]:
    """One world's pytree of scalars as uint32 words (32-bit leaves bit-cast, others cast)."""
    out = []
    for x in jax.tree.leaves(tree):
        x = jnp.asarray(x)
        if x.dtype.itemsize == 4:
            out.append(jax.lax.bitcast_convert_type(x, U32))
        else:
            out.append(x.astype(U32))
    return out


def seed(ctx: Any) -> jax.Array:
    """uint32[3]: the hashes of one world's ``ctx``, where its nodes' keys start."""
    hs = [U32(s) for s in _STREAMS]
    for w in words(ctx):
        hs = [_mix(h, w + U32(i)) for i, h in enumerate(hs)]
    return jnp.stack(hs)


def key(node_words: jax.Array, start: jax.Array) -> jax.Array:
    """uint32[3]: the key of one node, from its words int32[K] and its world's ``seed``."""
    hs = [start[i] for i in range(3)]
    for j in range(node_words.shape[0]):
        w = jax.lax.bitcast_convert_type(node_words[j], U32)
        hs = [_mix(h, w + U32(i)) for i, h in enumerate(hs)]
    return jnp.stack(hs)


class Entry(NamedTuple):
    """What a batch of worlds stores after a step ([B] each)."""

    use: jax.Array  # bool: the world stores a node this step
    key: jax.Array  # uint32[B, 3]
    value: jax.Array  # int32: the node's value as its search found it (fail-soft)
    alpha: jax.Array  # int32: the window it was searched with
    beta: jax.Array
    aux: jax.Array  # int32: its line's ``aux``


def _lookup(table: jax.Array, k: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(the rows of keys ``k`` [B, 3] int32[B, 6], whether each holds its key's entry)."""
    rows = table[(k[:, 0] & U32(table.shape[0] - 1)).astype(I32)]
    checks = jax.lax.bitcast_convert_type(k, I32)
    hit = (rows[:, _CHECK_A] == checks[:, 1]) & (rows[:, _CHECK_B] == checks[:, 2])
    return rows, hit & (rows[:, _SEAL] == _seal(rows[:, :_SEAL]))


def remember(table: jax.Array, e: Entry) -> jax.Array:
    """``table`` with the entries ``e`` (each replacing its row): a value at or below its
    window's alpha is an upper bound, at or above its beta a lower bound, strictly inside it
    exact."""
    size = table.shape[0]
    exact = (e.value > e.alpha) & (e.value < e.beta)
    lo = jnp.where((e.value >= e.beta) | exact, e.value, -INF)
    hi = jnp.where((e.value <= e.alpha) | exact, e.value, INF)
    checks = jax.lax.bitcast_convert_type(e.key, I32)
    rows = jnp.stack([checks[:, 1], checks[:, 2], lo, hi, jnp.where(exact, e.aux, 0)], axis=1)
    rows = jnp.concatenate([rows, _seal(rows)[:, None]], axis=1)
    at = jnp.where(e.use, (e.key[:, 0] & U32(size - 1)).astype(I32), size)
    return table.at[at].set(rows, mode="drop")


def recall(
    table: jax.Array, use: jax.Array, k: jax.Array, alpha: jax.Array, beta: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """(settled bool[B], value int32[B], aux int32[B]) of nodes ``k`` [B, 3] (where ``use``)
    about to be searched with the window (alpha, beta): settled where the table knows the
    value exactly, or a bound outside the window (the value is then that bound: what a search
    would have returned)."""
    entry, hit = _lookup(table, k)
    hit = use & hit
    lo, hi = entry[:, _LO], entry[:, _HI]
    known = hit & (lo == hi)  # (only an exact store sets both)
    high, low = hit & (lo >= beta), hit & (hi <= alpha)
    value = jnp.where(known | high, lo, hi)
    return known | high | low, value, jnp.where(known, entry[:, _AUX], 0)
