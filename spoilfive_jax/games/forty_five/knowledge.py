"""The ``Knowledge`` capability: what a Forty-Five family seat knows (``core.knowledge``).

The public facts of the deal are the dealer, the turn-up (-1 in Auction), whether the joker was
turned up (the dealer took it) and each team's score before the hand; a seat's private cards,
its hand as dealt and the cards it drew from the Auction stock; its private actions, every card
it laid away face down (the joker exchange's, a rob's, an Auction discard).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax.games.forty_five.game as game
import spoilfive_jax.games.forty_five.infer as infer
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.games.forty_five.state import State


def private_card_sets(env: Any) -> tuple[str, ...]:
    return ("dealt", "drew")


def public_start(env: Any, state: State) -> jax.Array:
    """int32[3 + T]: the dealer, the turn-up, the joker flag and the scores before the hand."""
    head = jnp.stack([state.dealer, state.turnup, state.joker_up.astype(jnp.int32)])
    before = state.scores - state.hand_points  # (the scores move once the hand is over)
    return jnp.concatenate([head, before]).astype(jnp.int32)


def public_start_fields(env: Any) -> tuple[tuple[str, str], ...]:
    teams = tuple((f"team {t} score", "number") for t in range(env.num_teams))
    return (("dealer", "seat"), ("turnup", "card"), ("joker up", "flag"), *teams)


def private_cards(env: Any, state: State, player: jax.Array) -> Bits:
    """uint32[2] x 2: the hand ``player`` was dealt and its Auction draws."""
    return infer.private_cards(state, player)


def private_action(env: Any, state: State, action: jax.Array) -> jax.Array:
    """A card laid away face down is its seat's alone."""
    laying = (
        (state.phase == game.PHASE_JOKER)
        | (state.phase == game.PHASE_ROB)
        | (state.phase == game.PHASE_DISCARD)
    )
    return laying & (action < game.NUM_CARD_IDS)


def dealt_state(env: Any, state: State) -> State:
    """The hand's first state (``infer.dealt_state``)."""
    return infer.dealt_state(state, env.rules)
