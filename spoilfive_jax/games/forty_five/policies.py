"""The Forty-Five family's built-in policies (``FortyFive.builtin_policy``, ``policy_names``).

A policy is any jittable ``policy(key, state, player) -> action`` on ONE hand's
``forty_five.State``.  Built in: ``"random"`` (uniform over the legal actions) and ``"greedy"``
(``greedy_policy``: a simple baseline).  Spoil Five's ``"heuristic"`` player knows only Spoil
Five and is refused with a ``ValueError``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.game as game
from spoilfive_jax.core import bits
from spoilfive_jax.core.cards import ACE_OF_HEARTS
from spoilfive_jax.core.env import PolicyFn
from spoilfive_jax.core.ranking import plain_strength
from spoilfive_jax.core.tricks import seat_bits
from spoilfive_jax.games.forty_five.game import (
    BID_15,
    HOLD,
    JOKER,
    NAME_CLUBS,
    NUM_ACTIONS,
    NUM_CARD_IDS,
    PASS,
    State,
)
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams

SUPPORTED = (
    "'random', 'greedy' or a jittable policy(key, state, player) -> action on "
    "spoilfive_jax.games.forty_five.State"
)


def random_policy(key: jax.Array, state: State, player: jax.Array) -> jax.Array:
    """Uniform over ``state.legal_set`` (the k-th member of the bitset)."""
    del player
    count = bits.count(state.legal_set)
    k = jnp.floor(jax.random.uniform(key) * count).astype(jnp.int32)
    return bits.nth(state.legal_set, jnp.clip(k, 0, jnp.maximum(count - 1, 0)))


random_policy.policy_name = "random"  # type: ignore[attr-defined]


_BIG = 1 << 10


@functools.cache
def greedy_policy(rules: FortyFiveRules) -> PolicyFn:
    """``"greedy"``: a simple deterministic player of the family (a baseline, not a strong one).

    Play: lead the strongest card (a trump's strength above every plain card); follow with the
    cheapest card that takes the trick unless a partner is already taking it, else throw the
    weakest legal card.  Rob (and the joker exchange): always, laying away the weakest card.
    Auction: bid the lowest legal bid (or hold) with 3 or more trumps in the best suit (its
    cards plus A♥), else pass (the dealer bids 15 when forced); name that suit; keep the hand
    (DONE).  Never announce a jink.  One closure per ``rules`` (cached: one compile).
    """
    cards = jnp.arange(NUM_CARD_IDS, dtype=jnp.int32)
    by_suit = np.zeros((4, NUM_CARD_IDS), np.bool_)  # the trumps of each suit (cards + A♥)
    for suit in range(4):
        by_suit[suit, suit * 13 : suit * 13 + 13] = True
        by_suit[suit, ACE_OF_HEARTS] = True
    by_suit[:, JOKER] = rules.joker

    def greedy(key: jax.Array, state: State, player: jax.Array) -> jax.Array:
        del key, player
        n = state.tricks_won.shape[0]
        cur = jnp.maximum(state.current_player, 0)
        legal = bits.to_bool(state.legal_set, NUM_ACTIONS)
        playable = legal[:NUM_CARD_IDS]
        trump = jnp.maximum(state.trump, 0)
        ts = game.trump_strength(cards, trump, rules)
        plain = plain_strength(jnp.minimum(cards, JOKER - 1))
        value = jnp.where(ts >= 0, 16 + ts, plain)
        power = jnp.where(ts >= 0, 16 + ts, jnp.where(cards // 13 == state.led_class, plain, -1))
        leading = cur == state.leader
        partner = ~leading & (state.best_seat % num_teams(n) == cur % num_teams(n))
        wins = playable & (power > state.best_power) & ~leading & ~partner
        cheapest_win = jnp.argmin(jnp.where(wins, value, _BIG))
        weakest = jnp.argmin(jnp.where(playable, value, _BIG))
        strongest = jnp.argmax(jnp.where(playable, value, -1))
        play = jnp.where(leading, strongest, jnp.where(wins.any(), cheapest_win, weakest))

        hand = bits.to_bool(seat_bits(state.hands, cur), NUM_ACTIONS)[:NUM_CARD_IDS]
        per_suit = (jnp.asarray(by_suit) & hand[None, :]).sum(1)
        best_suit = jnp.argmax(per_suit)
        bids = legal[BID_15 : HOLD + 1]
        lowest_bid = BID_15 + jnp.argmax(bids)
        strong = per_suit.max() >= 3
        bid = jnp.where((strong & bids.any()) | ~legal[PASS], lowest_bid, PASS)
        return jnp.select(
            [
                state.phase == game.PHASE_PLAY,
                (state.phase == game.PHASE_ROB) | (state.phase == game.PHASE_JOKER),
                state.phase == game.PHASE_BID,
                state.phase == game.PHASE_TRUMP,
            ],
            [play, weakest, bid, NAME_CLUBS + best_suit],
            PASS,  # discard: DONE; announcements: no jink
        ).astype(jnp.int32)

    greedy.policy_name = "greedy"  # type: ignore[attr-defined]
    return greedy


def builtin_policy(name: str, rules: FortyFiveRules) -> PolicyFn:
    """The family's built-in policy ``name``: ``"random"`` or ``"greedy"``."""
    if name == "random":
        return random_policy
    if name == "greedy":
        return greedy_policy(rules)
    if name == "heuristic":
        raise ValueError(
            f"the 'heuristic' policy plays Spoil Five only; the Forty-Five family takes {SUPPORTED}"
        )
    raise ValueError(f"unknown policy {name!r}; the Forty-Five family takes {SUPPORTED}")


__all__ = ["SUPPORTED", "builtin_policy", "greedy_policy", "random_policy"]
