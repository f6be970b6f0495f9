"""Observations: float32 vectors of 0/1 indicators (N = num_players, T = num_tricks).

``observe(state, player)``, the imperfect-information view of seat p; seats are listed
relative to p (row i is the seat i places to p's left, so row 0 is p itself):

=====================  ============  ==============================================
block                  size          meaning
=====================  ============  ==============================================
hand                   52            the cards p holds now
trump card             52            the card turned up
played                 52            the cards played to tricks so far (the current trick too)
current trick          N x 52        the card each seat has played to the trick in progress
bids                   N x (T + 2)   one-hot: no bid yet, then bids 0..T
tricks won             N x (T + 1)   one-hot: 0..T tricks
to act                 N             the seat to act (all 0 once the hand is over)
dealer                 N             the dealer
phase                  2             bidding, playing (both 0 once over)
=====================  ============  ==============================================

``observe_full(state)`` lists the seats in table order (row i is seat i) and shows every hand
(N x 52 in place of the hand block).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax.core.bits as bits
from spoilfive_oh_hell.game import PHASE_BID, PHASE_PLAY
from spoilfive_oh_hell.rules import NUM_CARDS
from spoilfive_oh_hell.state import State


def _one_hot_cards(cards: jax.Array) -> jax.Array:
    """float32[..., 52]: the cards ``cards`` (-1: none)."""
    return (cards[..., None] == jnp.arange(NUM_CARDS)).astype(jnp.float32)


def _public(state: State, order: jax.Array) -> list[jax.Array]:
    """Every block but the hands, with the seats listed in ``order`` int32[N]."""
    t = state.num_tricks
    f32 = jnp.float32
    bids = (state.bids[order][:, None] + 1 == jnp.arange(t + 2)).astype(f32)
    tricks = (state.tricks_won[order][:, None] == jnp.arange(t + 1)).astype(f32)
    return [
        _one_hot_cards(state.trump_card),
        bits.to_bool(state.played, NUM_CARDS).astype(f32),
        _one_hot_cards(state.trick_cards[order]).reshape(-1),
        bids.reshape(-1),
        tricks.reshape(-1),
        (order == state.current_player).astype(f32),
        (order == state.dealer).astype(f32),
        jnp.stack([state.phase == PHASE_BID, state.phase == PHASE_PLAY]).astype(f32),
    ]


def observe(state: State, player: Any) -> jax.Array:
    """float32[D]: what seat ``player`` knows (module docstring)."""
    n = state.num_players
    p = jnp.asarray(player, jnp.int32)
    order = (p + jnp.arange(n)) % n
    hand = bits.to_bool(bits.Bits(state.hands.lo[p], state.hands.hi[p]), NUM_CARDS).astype(
        jnp.float32
    )
    return jnp.concatenate([hand, *_public(state, order)])


def observe_full(state: State) -> jax.Array:
    """float32[D_full]: the perfect-information view (module docstring)."""
    n = state.num_players
    hands = bits.to_bool(state.hands, NUM_CARDS).astype(jnp.float32).reshape(-1)
    return jnp.concatenate([hands, *_public(state, jnp.arange(n))])


def current_observation(state: State) -> jax.Array:
    """``observe(state, current_player)`` of one hand or a batch (seat 0's once over)."""
    player = jnp.maximum(state.current_player, 0)
    fn = observe
    for _ in range(jnp.ndim(state.current_player)):
        fn = jax.vmap(fn)
    return fn(state, player)
