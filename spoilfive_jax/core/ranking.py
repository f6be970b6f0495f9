"""The ranking of the cards as jittable arithmetic (docs/rules.md#ranking), shared by every game.

``cards.TRUMP_STRENGTH`` / ``cards.PLAIN_STRENGTH`` tabulate the same ranking on the host; these
functions compute it with a few integer ops (no table gathers), and build the card sets of a
suit and of the trumps as 64-position bitsets (``bits.Bits``).  A game with more trumps (the
family's joker) builds on them.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import ACE_OF_HEARTS

_AH = bits.const([ACE_OF_HEARTS])
_SUIT_MASK = np.uint32((1 << 13) - 1)


def suit_set(suit: jax.Array) -> Bits:
    """The 13 cards of ``suit`` (positions 13s..13s+12) as a set, by arithmetic."""
    k = (jnp.asarray(suit, jnp.int32) * 13).astype(jnp.uint32)
    m, zero = jnp.uint32(_SUIT_MASK), jnp.uint32(0)
    lo = jnp.where(k < 32, m << (k & 31), zero)
    hi = jnp.where(k >= 32, m << (k & 31), jnp.where(k > 19, m >> ((32 - k) & 31), zero))
    return Bits(lo, hi)


def trump_set(trump: jax.Array) -> Bits:
    """The trumps when ``trump`` is the trump suit: its 13 cards and A♥."""
    return suit_set(trump) | Bits(*_AH)


def trump_strength(card: jax.Array, trump: jax.Array) -> jax.Array:
    """int32: strength of ``card`` as a trump (docs/rules.md#ranking; -1 if not a trump).

    Top trumps 13 (5), 12 (J), 11 (A♥); ace of trumps 10; the rest 0..9 with the red order
    K Q 10 9 8 7 6 4 3 2 and the black order K Q 2 3 4 6 7 8 9 10.  Matches
    ``cards.TRUMP_STRENGTH`` (tested).
    """
    c = jnp.asarray(card, jnp.int32)
    r = c % 13
    in_suit = c // 13 == trump
    red = (trump == 1) | (trump == 2)
    red_low = r - 1 - (r > 4) - (r > 10)  # K9 Q8 T7 ... 4:2 3:1 2:0
    black_low = jnp.where(r >= 11, r - 3, 8 - r + (r > 4))  # K9 Q8, 2:7 ... T:0
    low = jnp.where(red, red_low, black_low)
    s = jnp.where(r == 4, 13, jnp.where(r == 10, 12, jnp.where(r == 0, 10, low)))
    return jnp.where(c == ACE_OF_HEARTS, 11, jnp.where(in_suit, s, -1))


def tabulate(strength: Callable[[jax.Array, jax.Array], jax.Array], cards: int) -> np.ndarray:
    """int32[4, cards]: ``strength(card, trump)`` of each card id 0..cards-1 under each trump
    suit, evaluated once on the host (inside a trace too): a game's trump ranking, written
    once as array code, read as a table by its host-side layouts."""
    with jax.ensure_compile_time_eval():
        card = jnp.arange(cards, dtype=jnp.int32)[None, :]
        return np.asarray(strength(card, jnp.arange(4, dtype=jnp.int32)[:, None]), np.int32)


def plain_strength(card: jax.Array) -> jax.Array:
    """int32: strength of ``card`` in its own suit as a plain card (0..12, K = 12).

    Red: K Q J 10 ... 2 A; black: K Q J A 2 3 ... 10.  Matches ``cards.PLAIN_STRENGTH``.
    """
    c = jnp.asarray(card, jnp.int32)
    r = c % 13
    s = c // 13
    red = (s == 1) | (s == 2)
    black = jnp.where(r >= 10, r, jnp.where(r == 0, 9, 9 - r))
    return jnp.where(red, r, black)
