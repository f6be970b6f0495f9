"""The ``Knowledge`` capability: what a Spoil Five seat knows (``core.knowledge``).

The public facts of the deal are the dealer, the turn-up and the chips carried in (the antes
follow from the rules); a seat's private cards, its hand as dealt; the one private action, a
rob's discard (the others see that the robber robbed).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax.games.spoil_five.game as game
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import NUM_CARDS
from spoilfive_jax.games.spoil_five.infer import dealt_hand
from spoilfive_jax.games.spoil_five.state import State


def private_card_sets(env: Any) -> tuple[str, ...]:
    return ("dealt",)


def public_start(env: Any, state: State) -> jax.Array:
    """int32[3]: the dealer, the turn-up and the chips carried in."""
    return jnp.stack([state.dealer, state.turnup, state.carried]).astype(jnp.int32)


def public_start_fields(env: Any) -> tuple[tuple[str, str], ...]:
    return (("dealer", "seat"), ("turnup", "card"), ("carried", "number"))


def private_cards(env: Any, state: State, player: jax.Array) -> Bits:
    """uint32[1] x 2: the hand ``player`` was dealt (``infer.dealt_hand``)."""
    return dealt_hand(state, player)


def private_action(env: Any, state: State, action: jax.Array) -> jax.Array:
    """A rob's discard is the robber's alone."""
    return (state.phase == game.PHASE_ROB) & (action < NUM_CARDS)


def dealt_state(env: Any, state: State) -> State:
    """The hand's first state: each seat's dealt hand, the turn-up, the dealer, the carry."""
    dealt = jax.vmap(lambda p: dealt_hand(state, p))(jnp.arange(env.num_players))
    hands = Bits(dealt.lo[:, 0], dealt.hi[:, 0])
    n, rules = env.num_players, env.rules
    return game.new_hand(hands, state.turnup, state.dealer, state.carried, n, rules)
