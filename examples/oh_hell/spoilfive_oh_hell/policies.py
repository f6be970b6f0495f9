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

"Strength" in a trick: a trump beats the suit led beats a third suit, then rank.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core.env import PolicyFn
from spoilfive_jax.core.kernel import random_choice
from spoilfive_oh_hell.game import PHASE_BID
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


def _bid(state: State, hand: jax.Array, trump: jax.Array) -> jax.Array:
    suit, rank = jnp.asarray(_SUIT), jnp.asarray(_RANK)
    quarters = jnp.where(
        suit == trump,
        jnp.where(rank >= QUEEN, 4, jnp.where(rank >= TEN, 2, 1)),
        jnp.where(rank == ACE, 3, jnp.where(rank == KING, 2, 0)),
    )
    want = jnp.minimum((jnp.where(hand, quarters, 0).sum() + 2) // 4, state.num_tricks)
    k = jnp.arange(state.num_tricks + 1)
    legal = bits.to_bool(state.legal_set, state.num_actions)[BID:]
    cost = jnp.where(legal, 2 * jnp.abs(k - want) + (k > want), 1 << 20)
    return (BID + jnp.argmin(cost)).astype(jnp.int32)


def _play(state: State, legal: jax.Array, player: jax.Array, trump: jax.Array) -> jax.Array:
    power = strength(trump, state.led_suit)
    best = jnp.where(state.best_card >= 0, power[jnp.maximum(state.best_card, 0)], -1)
    wins = legal & (power > best)
    loses = legal & ~wins
    short = state.tricks_won[player] < state.bids[player]
    leading = state.best_card < 0

    def top(mask: jax.Array) -> jax.Array:
        return jnp.argmax(jnp.where(mask, power, -1))

    def bottom(mask: jax.Array) -> jax.Array:
        return jnp.argmin(jnp.where(mask, power, 1 << 10))

    chase = jnp.where(leading, top(legal), jnp.where(wins.any(), bottom(wins), bottom(legal)))
    duck = jnp.where(~leading & loses.any(), top(loses), bottom(legal))
    return jnp.where(short, chase, duck).astype(jnp.int32)


def heuristic_policy(key: jax.Array, state: State, player: jax.Array) -> jax.Array:
    """The heuristic player (module docstring); ``key`` is unused (it is deterministic)."""
    del key
    p = jnp.asarray(player, jnp.int32)
    trump = state.trump_card % NUM_SUITS
    hand = bits.to_bool(bits.Bits(state.hands.lo[p], state.hands.hi[p]), NUM_CARDS)
    legal = bits.to_bool(state.legal_set, NUM_CARDS)
    return jnp.where(
        state.phase == PHASE_BID, _bid(state, hand, trump), _play(state, legal, p, trump)
    )


BUILTIN: dict[str, PolicyFn] = {"random": random_policy, "heuristic": heuristic_policy}
