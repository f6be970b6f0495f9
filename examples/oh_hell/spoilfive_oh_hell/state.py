"""``State``: one hand of Oh Hell as fixed-shape arrays (N = num_players, T = num_tricks).

Card sets are ``core.bits.Bits`` pairs of uint32 words (positions = our card ids, ``rules``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core.bits import Bits


@dataclasses.dataclass(frozen=True)
class State:
    """One hand; batch it with ``jax.vmap`` (every array field gains a leading [B])."""

    hands: Bits  # uint32[N] x 2: the cards each seat holds now
    played: Bits  # uint32[] x 2: the cards played to tricks so far
    cannot_hold: Bits  # uint32[N] x 2: PUBLIC: every card of the suits each seat has shown it
    #   is void in (it did not follow the suit led)
    trump_card: jax.Array  # int32[]: the card turned up after the deal; its suit is trump
    dealer: jax.Array  # int32[]
    bids: jax.Array  # int32[N]: each seat's bid, -1 before it bids
    trick_cards: jax.Array  # int32[N]: the card each seat played to the current trick, -1 if none
    last_trick: jax.Array  # int32[N]: the cards of the last completed trick by seat (-1 before one)
    leader: jax.Array  # int32[]: the seat that leads (or led) the current trick
    led_suit: jax.Array  # int32[]: the suit led to the current trick, -1 before its lead
    best_seat: jax.Array  # int32[]: the seat winning the current trick so far, -1 before its lead
    best_card: jax.Array  # int32[]: the card winning the current trick so far, -1 before its lead
    tricks_won: jax.Array  # int32[N]
    current_player: jax.Array  # int32[]: the seat to act; -1 once the hand is over
    phase: jax.Array  # int32[]: PHASE_BID, PHASE_PLAY or PHASE_DONE (``game``)
    terminated: jax.Array  # bool[]
    truncated: jax.Array  # bool[]: always False (a hand ends by itself after N + N*T decisions)
    illegal: jax.Array  # bool[]: the hand ended on an illegal action
    rewards: jax.Array  # float32[N]: the hand's score (OpenSpiel's returns), on the step ending it
    legal_set: Bits  # uint32[] x 2: the legal actions of current_player (all once over)
    _step_count: jax.Array  # int32[]: decisions taken
    moves: jax.Array  # int32[N + N*T]: PUBLIC record of every decision (``core.record``)
    num_actions: int = dataclasses.field(default=58, metadata={"static": True})
    # 53 + T: cards 0..51 and bids 52..52+T (static: the length of ``legal_action_mask``)

    @property
    def num_players(self) -> int:
        return int(self.bids.shape[-1])

    @property
    def num_tricks(self) -> int:
        return self.num_actions - 53

    @property
    def legal_action_mask(self) -> jax.Array:
        """bool[..., 53 + T]: the legal actions (all True once the hand is over, as pgx)."""
        return bits.to_bool(self.legal_set, self.num_actions)

    @property
    def observation(self) -> jax.Array:
        """float32[..., D]: ``observe(self, current_player)`` (seat 0's once over)."""
        from spoilfive_oh_hell.observe import current_observation

        return current_observation(self)

    def replace(self, **changes: Any) -> State:
        return dataclasses.replace(self, **changes)


jax.tree_util.register_dataclass(
    State,
    data_fields=[f.name for f in dataclasses.fields(State) if f.name != "num_actions"],
    meta_fields=["num_actions"],
)
