"""The built-in policies: ``policy(key, state, player) -> action`` (jittable, one hand).

``random``: uniform over the legal actions (the k-th of the legal bitset, one draw).

``heuristic``:

1. Bidding: add up the tricks the cards look worth (a trump queen, king or ace 1, a trump ten
   or jack 1/2, a lower trump 1/4; another suit's ace 3/4, its king 1/2), round, and bid that
   (at most T); when that bid is barred (the dealer's restriction) bid the nearest legal one,
   lower first.
2. Playing while short of the bid: lead the strongest card; following, win as cheaply as
   possible (the lowest card that beats the card winning so far), or throw the weakest card.
3. Playing once the bid is made (or beaten): duck with the strongest card that loses to the
   card winning so far; when every card would win (or leading), play the weakest.

"Strength" in a trick: a trump beats the suit led beats a third suit, then rank; among equal
strengths the lowest card id.

Both work on bitsets with the package's kit (``core.bits``, ``core.kernel``): the bid counts each
group of cards with one popcount, the play reads the legal cards renumbered by strength
(``_layout``), so the strongest and the weakest are a highest and a lowest bit
(``tests/test_policies.py`` checks every decision against the plain definition on boolean
masks over the 52 cards, which ran at half the speed).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.env import PolicyFn
from spoilfive_jax.core.kernel import id_tables, ids_of, random_choice
from spoilfive_oh_hell.game import PHASE_BID, suit_set
from spoilfive_oh_hell.rules import ACE, BID, KING, NUM_CARDS, NUM_SUITS, QUEEN, TEN
from spoilfive_oh_hell.state import State

_SUIT = np.arange(NUM_CARDS) % NUM_SUITS
_RANK = np.arange(NUM_CARDS) // NUM_SUITS


def random_policy(key: jax.Array, state: State, player: jax.Array) -> jax.Array:
    """A uniformly random legal action: the k-th of the legal bitset for one 32-bit draw of
    ``key`` (``core.kernel.random_choice``; no per-action work)."""
    del player
    u = jax.random.bits(key, (), jnp.uint32)
    return random_choice(state.legal_set.lo, state.legal_set.hi, u).astype(jnp.int32)


def strength(trump: jax.Array, led: jax.Array) -> jax.Array:
    """int32[52]: how strongly each card competes for a trick led with suit ``led`` (-1: not
    led yet, each card then counts as led): 32 + rank for a trump, 16 + rank for the suit led,
    the rank for a third suit (it never wins)."""
    suit, rank = jnp.asarray(_SUIT), jnp.asarray(_RANK)
    led_here = (suit == led) | (led < 0)
    return jnp.where(suit == trump, 32 + rank, jnp.where(led_here, 16 + rank, rank))


# ---------------------------------------------------------------------------- the fast layout
# The play reads the legal cards in "strength positions": for each case (trump, suit led or
# none) the 52 cards sorted by ``strength``, equal strengths (one rank of two or three third
# suits) with the lower suit higher.  The strongest legal card is then the highest position, the
# weakest the lowest position's strength taken at its highest position (the lowest suit of
# it): ``argmax``/``argmin`` of ``strength`` with their first-index ties, from a handful of
# table look-ups and bit operations instead of four reductions over 52 cards.
_CASES = 4 * 5  # trump 0..3, suit led -1..3


@functools.cache
def _layout() -> dict[str, np.ndarray]:
    """The case tables of the strength positions (host numpy, built once)."""
    position = np.full((_CASES, 64), -1, np.int32)  # card id -> position (the 12 non-cards -1)
    card = np.zeros((_CASES, 64), np.int32)  # position -> card id
    level = np.zeros((_CASES, 64), np.uint64)  # position -> the positions of equal strength
    above = np.zeros((_CASES, NUM_CARDS), np.int32)  # card -> first position stronger than it
    for trump in range(NUM_SUITS):
        for led in range(-1, NUM_SUITS):
            c = trump * 5 + led + 1
            led_here = (led == _SUIT) | (led < 0)  # (``strength`` in numpy: built in a trace)
            power = np.where(trump == _SUIT, 32 + _RANK, np.where(led_here, 16 + _RANK, _RANK))
            order = sorted(range(NUM_CARDS), key=lambda x: (power[x], -_SUIT[x]))
            for pos, x in enumerate(order):
                position[c, x], card[c, pos] = pos, x
            for pos, x in enumerate(order):
                same = [position[c, y] for y in range(NUM_CARDS) if power[y] == power[x]]
                level[c, pos] = sum(np.uint64(1) << np.uint64(q) for q in same)
                stronger = [position[c, y] for y in range(NUM_CARDS) if power[y] > power[x]]
                above[c, x] = min(stronger, default=NUM_CARDS)
    return {"position": position, "card": card, "level": level, "above": above}


@functools.cache
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """``core.kernel.id_tables`` of the renumbering card id -> strength position, per case."""
    return id_tables(_layout()["position"])


def _word_bits(words: np.ndarray) -> Bits:
    return Bits(
        jnp.asarray((words & np.uint64(0xFFFFFFFF)).astype(np.uint32)),
        jnp.asarray((words >> np.uint64(32)).astype(np.uint32)),
    )


def _from(pos: jax.Array) -> Bits:
    """The positions ``pos`` (0..52) and up."""
    low = jnp.uint32(0xFFFFFFFF) << jnp.minimum(pos, 31).astype(jnp.uint32)
    high = jnp.uint32(0xFFFFFFFF) << jnp.clip(pos - 32, 0, 31).astype(jnp.uint32)
    return Bits(jnp.where(pos >= 32, jnp.uint32(0), low), high)


def _play(state: State, player: jax.Array, trump: jax.Array) -> jax.Array:
    layout = _layout()
    case = trump * 5 + state.led_suit + 1
    legal = ids_of(state.legal_set, case, _tables())  # (bids are never legal with cards)
    card = jnp.asarray(layout["card"])[case]
    leading = state.best_card < 0
    wins = legal & _from(jnp.asarray(layout["above"])[case, jnp.maximum(state.best_card, 0)])
    wins = bits.where(leading, legal, wins)
    loses = legal.without(wins)
    level = _word_bits(layout["level"])

    def top(s: Bits) -> jax.Array:
        return card[jnp.maximum(bits.highest(s), 0)]

    def bottom(s: Bits) -> jax.Array:
        weakest = jnp.minimum(bits.lowest(s), 63)
        tied = s & Bits(level.lo[case, weakest], level.hi[case, weakest])
        return card[jnp.maximum(bits.highest(tied), 0)]

    short = state.tricks_won[player] < state.bids[player]
    chase = jnp.where(
        leading, top(legal), jnp.where(bits.nonempty(wins), bottom(wins), bottom(legal))
    )
    duck = jnp.where(~leading & bits.nonempty(loses), top(loses), bottom(legal))
    return jnp.where(short, chase, duck).astype(jnp.int32)


_RANKS = [bits.const(range(4 * r, 4 * r + 4)) for r in range(13)]


def _ranks(ranks: range | list[int]) -> Bits:
    words = [_RANKS[r] for r in ranks]
    return Bits(
        jnp.uint32(np.bitwise_or.reduce([w.lo for w in words])),
        jnp.uint32(np.bitwise_or.reduce([w.hi for w in words])),
    )


def _bid(state: State, hand: Bits, trump: jax.Array) -> jax.Array:
    """The bid: the tricks the hand looks worth (module docstring), in quarters, each group of
    cards counted with one popcount; the nearest legal bid, lower first."""
    trumps = hand & suit_set(trump)
    others = hand.without(trumps)
    quarters = (
        4 * bits.count(trumps & _ranks([QUEEN, KING, ACE]))
        + 2 * bits.count(trumps & _ranks(range(TEN, QUEEN)))
        + bits.count(trumps & _ranks(range(TEN)))
        + 3 * bits.count(others & _ranks([ACE]))
        + 2 * bits.count(others & _ranks([KING]))
    )
    want = jnp.minimum((quarters + 2) // 4, state.num_tricks)
    # at most one bid is barred (the dealer's), so the nearest legal one is want, else want - 1,
    # else (want 0 barred) 1
    ok = bits.has(state.legal_set, BID + want)
    return (BID + jnp.where(ok, want, jnp.where(want >= 1, want - 1, want + 1))).astype(jnp.int32)


def heuristic_policy(key: jax.Array, state: State, player: jax.Array) -> jax.Array:
    """The heuristic player (module docstring); ``key`` is unused (it is deterministic)."""
    del key
    p = jnp.asarray(player, jnp.int32)
    trump = state.trump_card % NUM_SUITS
    hand = Bits(state.hands.lo[p], state.hands.hi[p])
    return jnp.where(state.phase == PHASE_BID, _bid(state, hand, trump), _play(state, p, trump))


BUILTIN: dict[str, PolicyFn] = {"random": random_policy, "heuristic": heuristic_policy}
