"""The ``Knowledge`` capability: what an Oh Hell seat knows (``spoilfive_jax.core.knowledge``).

The public facts of the deal are the dealer and the trump card turned up; a seat's private
cards, its hand as dealt; every action (bid, card) is public.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax.core.bits as bits
import spoilfive_oh_hell.game as game
from spoilfive_jax.core import record
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.tricks import seat_bits
from spoilfive_oh_hell.rules import NUM_CARDS
from spoilfive_oh_hell.state import State


def private_card_sets(env: Any) -> tuple[str, ...]:
    return ("dealt",)


def public_start(env: Any, state: State) -> jax.Array:
    """int32[2]: the dealer and the trump card turned up."""
    return jnp.stack([state.dealer, state.trump_card]).astype(jnp.int32)


def public_start_fields(env: Any) -> tuple[tuple[str, str], ...]:
    return (("dealer", "seat"), ("trump card", "card"))


def private_cards(env: Any, state: State, player: jax.Array) -> Bits:
    """uint32[1] x 2: the hand ``player`` was dealt: what it holds and what it played."""
    p = jnp.asarray(player, jnp.int32)
    dealt = seat_bits(state.hands, p) | record.cards_of(state.moves, p, NUM_CARDS)
    return Bits(dealt.lo[None], dealt.hi[None])


def private_action(env: Any, state: State, action: jax.Array) -> jax.Array:
    return jnp.bool_(False)


def dealt_state(env: Any, state: State) -> State:
    """The hand's first state: each seat's dealt cards, the trump card, the dealer."""
    t = env.rules.num_tricks

    def dealt(p: jax.Array) -> jax.Array:
        mask = bits.to_bool(private_cards(env, state, p), 64)[0]
        return jnp.nonzero(mask, size=t, fill_value=-1)[0].astype(jnp.int32)

    hands = jax.vmap(dealt)(jnp.arange(env.num_players))
    return game.new_hand(hands, state.trump_card, state.dealer, env.num_players, env.rules)
