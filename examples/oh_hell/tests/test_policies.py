"""The built-in heuristic on the legal bitset (``policies``) against its first, plain
definition written on boolean masks over the 52 cards (kept here as the reference): the same
action at every decision of random hands, every table size and hand length."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from spoilfive_oh_hell import policies
from spoilfive_oh_hell.game import PHASE_BID
from spoilfive_oh_hell.rules import ACE, BID, KING, NUM_CARDS, NUM_SUITS, QUEEN, TEN

import spoilfive_jax as sf
import spoilfive_jax.core.bits as bits

_SUIT = np.arange(NUM_CARDS) % NUM_SUITS
_RANK = np.arange(NUM_CARDS) // NUM_SUITS


def _reference_bid(state, hand, trump):
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


def _reference_play(state, legal, player, trump):
    power = policies.strength(trump, state.led_suit)
    best = jnp.where(state.best_card >= 0, power[jnp.maximum(state.best_card, 0)], -1)
    wins = legal & (power > best)
    loses = legal & ~wins
    short = state.tricks_won[player] < state.bids[player]
    leading = state.best_card < 0

    def top(mask):
        return jnp.argmax(jnp.where(mask, power, -1))

    def bottom(mask):
        return jnp.argmin(jnp.where(mask, power, 1 << 10))

    chase = jnp.where(leading, top(legal), jnp.where(wins.any(), bottom(wins), bottom(legal)))
    duck = jnp.where(~leading & loses.any(), top(loses), bottom(legal))
    return jnp.where(short, chase, duck).astype(jnp.int32)


def reference_heuristic(key, state, player):
    p = jnp.asarray(player, jnp.int32)
    trump = state.trump_card % NUM_SUITS
    hand = bits.to_bool(bits.Bits(state.hands.lo[p], state.hands.hi[p]), NUM_CARDS)
    legal = bits.to_bool(state.legal_set, NUM_CARDS)
    return jnp.where(
        state.phase == PHASE_BID,
        _reference_bid(state, hand, trump),
        _reference_play(state, legal, p, trump),
    )


@pytest.mark.parametrize(  # (-m slow: the middle sizes; one trick and eleven by default)
    ("n", "t"),
    [
        (3, 1),
        pytest.param(4, 5, marks=pytest.mark.slow),
        (4, 11),
        pytest.param(7, 7, marks=pytest.mark.slow),
    ],
)
def test_the_heuristic_is_its_plain_definition(n, t):
    """Every decision of 256 hands, half played by the heuristic itself and half at random (so
    that both short and made bids, every lead and every follow come up)."""
    env = sf.make("oh_hell", num_players=n, num_tricks=t)
    b = 256
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(n * 100 + t), b))
    new = jax.jit(jax.vmap(policies.heuristic_policy))
    old = jax.jit(jax.vmap(reference_heuristic))
    rand = jax.jit(jax.vmap(policies.random_policy))
    step = jax.jit(jax.vmap(env.step))
    checked = 0
    for d in range(env.max_decisions):
        keys = jax.random.split(jax.random.PRNGKey(d), b)
        player = jnp.maximum(state.current_player, 0)
        got, want = np.asarray(new(keys, state, player)), np.asarray(old(keys, state, player))
        live = ~np.asarray(state.terminated)
        assert (got[live] == want[live]).all(), (d, np.flatnonzero((got != want) & live)[:5])
        checked += int(live.sum())
        mixed = jnp.where(jnp.arange(b) % 2 == 0, jnp.asarray(got), rand(keys, state, player))
        state = step(state, mixed)
    assert checked == b * env.max_decisions
