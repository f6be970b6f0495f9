"""64-position bitsets as a pair of uint32 words (no ``jax_enable_x64`` needed).

``Bits(lo, hi)``: position ``i`` lives in ``lo`` (i < 32) or ``hi`` (i - 32).  The two words are
separate arrays of any (equal) shape, so a per-game set is two scalars and a vmapped batch of
sets is two ``[B]`` vectors: every op is a plain elementwise op that XLA fuses and vectorises
along the batch.  Card sets use positions 0..51 (the card id); action sets 0..54 (the action id).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

_U32 = jnp.uint32


class Bits(NamedTuple):
    """A set of positions 0..63: ``lo`` holds 0..31, ``hi`` holds 32..63 (uint32 arrays)."""

    lo: jax.Array
    hi: jax.Array

    def __and__(self, other: Bits) -> Bits:  # type: ignore[override]
        return Bits(self.lo & other.lo, self.hi & other.hi)

    def __or__(self, other: Bits) -> Bits:  # type: ignore[override]
        return Bits(self.lo | other.lo, self.hi | other.hi)

    def __invert__(self) -> Bits:
        return Bits(~self.lo, ~self.hi)

    def without(self, other: Bits) -> Bits:
        return Bits(self.lo & ~other.lo, self.hi & ~other.hi)


def const(positions: Iterable[int]) -> Bits:
    """A constant set (numpy uint32 scalars), built on the host."""
    lo = hi = 0
    for p in positions:
        if p < 32:
            lo |= 1 << p
        else:
            hi |= 1 << (p - 32)
    return Bits(np.uint32(lo), np.uint32(hi))


EMPTY = const(())


def where(cond: jax.Array, a: Bits, b: Bits) -> Bits:
    return Bits(jnp.where(cond, a.lo, b.lo), jnp.where(cond, a.hi, b.hi))


def bit(pos: jax.Array) -> Bits:
    """The set holding only ``pos`` (int32 array, 0..63)."""
    p = jnp.asarray(pos, jnp.int32).astype(_U32)
    one = _U32(1)
    return Bits(
        jnp.where(p < 32, one << (p & 31), _U32(0)), jnp.where(p >= 32, one << (p & 31), _U32(0))
    )


def from_positions(pos: jax.Array) -> Bits:
    """Union over the last axis of ``bit(pos[..., k])``; negative positions are skipped."""
    b = bit(jnp.maximum(pos, 0))
    valid = pos >= 0
    lo = jnp.where(valid, b.lo, _U32(0)).sum(-1, dtype=_U32)
    hi = jnp.where(valid, b.hi, _U32(0)).sum(-1, dtype=_U32)
    return Bits(lo, hi)


def nonempty(s: Bits) -> jax.Array:
    return (s.lo | s.hi) != 0


def has(s: Bits, pos: jax.Array | int) -> jax.Array:
    """bool: ``pos`` is a member of ``s``."""
    p = jnp.asarray(pos, jnp.int32).astype(_U32)
    word = jnp.where(p < 32, s.lo, s.hi)
    return ((word >> (p & 31)) & 1) != 0


def count(s: Bits) -> jax.Array:
    """int32: number of members."""
    pc = jax.lax.population_count
    return (pc(s.lo) + pc(s.hi)).astype(jnp.int32)


def to_bool(s: Bits, size: int) -> jax.Array:
    """bool[..., size]: membership of positions 0..size-1 (size <= 64)."""
    shifts = np.arange(32, dtype=np.uint32)
    lo = (s.lo[..., None] >> shifts) & 1
    hi = (s.hi[..., None] >> shifts[: size - 32]) & 1
    return jnp.concatenate([lo, hi], axis=-1).astype(jnp.bool_)[..., :size]


def from_bool(mask: jax.Array) -> Bits:
    """Inverse of ``to_bool``: the set of True positions of bool[..., size <= 64]."""
    m = jnp.asarray(mask, jnp.bool_)
    pad = 64 - m.shape[-1]
    m = jnp.pad(m, [(0, 0)] * (m.ndim - 1) + [(0, pad)]).astype(_U32)
    shifts = np.arange(32, dtype=np.uint32)
    return Bits(
        (m[..., :32] << shifts).sum(-1, dtype=_U32), (m[..., 32:] << shifts).sum(-1, dtype=_U32)
    )


def _nth_in_word(word: jax.Array, n: jax.Array) -> jax.Array:
    """Bit index of the ``n``-th (0-based) set bit of a uint32 word (binary search)."""
    pos = jnp.zeros_like(n)
    for width in (16, 8, 4, 2, 1):
        low = word & _U32((1 << width) - 1)
        c = jax.lax.population_count(low).astype(jnp.int32)
        up = n >= c
        n = jnp.where(up, n - c, n)
        word = jnp.where(up, word >> width, low)
        pos = pos + jnp.where(up, width, 0)
    return pos


def nth(s: Bits, n: jax.Array) -> jax.Array:
    """Position of the ``n``-th (0-based, ascending) member of ``s``; needs ``n < count(s)``."""
    c0 = jax.lax.population_count(s.lo).astype(jnp.int32)
    low = n < c0
    word = jnp.where(low, s.lo, s.hi)
    return _nth_in_word(word, jnp.where(low, n, n - c0)) + jnp.where(low, 0, 32)


def nth_small(s: Bits, n: jax.Array, max_index: int) -> jax.Array:
    """``nth(s, n)`` for ``n <= max_index`` (a small set such as a hand's legal actions): the
    word holding the member, then its lowest ``n`` members cleared one by one (4 ops each
    against 5 binary-search rounds of 9).  The empty set gives 63, as ``nth`` does."""
    c0 = jax.lax.population_count(s.lo).astype(jnp.int32)
    low = n < c0
    word = jnp.where(low, s.lo, s.hi)
    n = jnp.where(low, n, n - c0)
    for i in range(max_index):
        word = jnp.where(n > i, word & (word - _U32(1)), word)
    pos = jnp.where(word == 0, 31, _lowest_in_word(word))
    return pos + jnp.where(low, 0, 32)


def _lowest_in_word(w: jax.Array) -> jax.Array:
    return 31 - jax.lax.clz(w & (~w + _U32(1))).astype(jnp.int32)


def _highest_in_word(w: jax.Array) -> jax.Array:
    return 31 - jax.lax.clz(w).astype(jnp.int32)


def lowest(s: Bits) -> jax.Array:
    """Position of the lowest member (64 for the empty set)."""
    return jnp.where(
        s.lo != 0, _lowest_in_word(s.lo), jnp.where(s.hi != 0, 32 + _lowest_in_word(s.hi), 64)
    )


def highest(s: Bits) -> jax.Array:
    """Position of the highest member (-1 for the empty set)."""
    return jnp.where(s.hi != 0, 32 + _highest_in_word(s.hi), _highest_in_word(s.lo))


def below(pos: jax.Array) -> Bits:
    """The positions below ``pos`` (0..64; any shape): ``s & below(p)`` keeps ``s``'s members
    under ``p``."""
    pos = jnp.asarray(pos)
    ones = _U32(0xFFFFFFFF)

    def under(n: jax.Array) -> jax.Array:  # the low n bits of a word, n 0..32
        return jnp.where(n >= 32, ones, (_U32(1) << jnp.clip(n, 0, 31).astype(_U32)) - _U32(1))

    return Bits(under(pos), jnp.where(pos >= 32, under(pos - 32), _U32(0)))


def members(lo: Any, hi: Any, size: int = 64) -> list[int]:
    """Host helper: the sorted positions ``< size`` in one concrete set (``Bits(lo, hi)``).

    The one place host code turns a bitset into card ids (rendering, terminal play, tests).
    """
    word = int(lo) | (int(hi) << 32)
    return [i for i in range(size) if word >> i & 1]
