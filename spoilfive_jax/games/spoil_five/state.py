"""``State``: one hand of Spoil Five as arrays, and its packed layout.

The small per-hand integers a decision updates are packed into two int32 words, ``status``
and ``record`` (``STATUS`` and ``RECORD`` give each one's bits: ``core.packed``), and read back
through attributes of the old names (``state.current_player``, ``state.terminated``,
``state.phase``, ...; batched states too).  The reason is speed on XLA:CPU: it has no
multi-output loop fusion, so every stored field that depends on the trick's resolution was a
fusion recomputing that resolution; packed, one fusion computes them all with the shared values
computed once.  ``replace`` accepts the old names and packs them.  Likewise ``tricks_won`` is
packed 3 bits a seat into ``tricks``, and ``hands`` is ``dealt`` less ``played`` (a card played
changes the two ``played`` words, not every seat's set; only the rob rewrites ``dealt``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.packed import Field, Unpacked, Word, pack_seats, unpack_seats
from spoilfive_jax.core.state import StateBase, pytree_dataclass
from spoilfive_jax.core.tricks import seat_bits

NUM_ACTIONS = 55  # 0..51 cards, 52 PASS, 53 JINK, 54 CLAIM (``game``)

# The packed words and their fields (``core.packed``).  Ranges (N <= 10 seats): seats -1..9,
# phase 0..3, led_class -1..4, best_power -1..29, renege_level -1..13, trick_num 0..5,
# decisions 0..5N+2 <= 52; a field that can be -1 is stored + 1.
STATUS = Word(  # everything the trick's resolution decides, written by one fusion
    "status",
    {
        "phase": Field(0, 2),
        "terminated": Field(2, 1, flag=True),
        "current_player": Field(3, 4, offset=1),
        "leader": Field(7, 4),
        "led_class": Field(11, 3, offset=1),
        "best_power": Field(14, 5, offset=1),
        "best_seat": Field(19, 4, offset=1),
        "renege_level": Field(23, 4, offset=1),
        "winner": Field(27, 4, offset=1),
    },
)
RECORD = Word(  # what a decision updates without resolving the trick
    "record",
    {
        "trick_num": Field(0, 3),
        "jinker": Field(3, 4, offset=1),
        "robbed": Field(7, 1, flag=True),
        "illegal": Field(8, 1, flag=True),
        "_step_count": Field(9, 6),
    },
)
PACKED_NAMES = (*STATUS.fields, *RECORD.fields)  # every packed attribute
TRICK_BITS = 3  # ``tricks``: each seat's tricks won, seat s in bits 3s..3s+2


@pytree_dataclass
@dataclasses.dataclass(frozen=True)
class State(StateBase):
    """One hand of Spoil Five; batch it with ``jax.vmap`` (every field gains a leading [B]).

    Bitset fields are ``Bits(lo, hi)`` pairs of uint32 arrays (positions 0..63, see ``bits``).
    The attributes below the fields are read from the packed words (``STATUS``, ``RECORD``).
    """

    PACKED = (STATUS, RECORD)

    status: jax.Array  # int32[]: packed phase, terminated, current_player, leader, led_class,
    #   best_power, best_seat, renege_level, winner
    record: jax.Array  # int32[]: packed trick_num, jinker, robbed, illegal, _step_count
    truncated: jax.Array  # bool[]: always False (a hand ends by itself within 5N+2 decisions)
    rewards: jax.Array  # float32[N]: net chips of the hand, only on the step that ends it
    tricks: jax.Array  # int32[]: tricks won, seat s in bits 3s..3s+2 (``tricks_won``)
    dealt: Bits  # uint32[N] x 2: each seat's cards as dealt, after the rob (or as set by
    #   ``replace(hands=)``); ``hands`` (held now) is ``dealt`` less ``played``
    legal_set: Bits  # uint32[] x 2: legal actions of current_player (all 55 once terminated)
    dealer: jax.Array  # int32[]
    turnup: jax.Array  # int32[]: card id turned up; its suit is trump
    trump: jax.Array  # int32[]: trump suit 0..3
    robber: jax.Array  # int32[]: seat entitled to rob this hand, -1 if nobody
    discard: jax.Array  # int32[]: the robber's discard, -1 if none (HIDDEN information)
    trick_cards: jax.Array  # int32[N]: card each seat played to the current trick, -1 if none;
    #   until the leader leads again it still shows the last completed trick
    played: Bits  # uint32[] x 2: cards played to tricks so far
    cannot_hold: Bits  # uint32[N] x 2: PUBLIC information-state record: cards each seat has
    #   shown it does not hold (a play that would have been illegal had it held any of them:
    #   a void in the suit led, no trump, no trump it could not renege);
    #   ``core.tricks.revealed_void``
    pot: jax.Array  # int32[]: chips in the pot (carried + antes + penalties)
    carried: jax.Array  # int32[]: chips carried in from spoiled hands
    moves: jax.Array  # int32[5N+2]: PUBLIC record of every decision in order (``core.record``)

    # Packed (read-only; ``replace`` writes them by name).
    current_player = Unpacked(STATUS)  # int32[]: seat to act; -1 once terminated
    terminated = Unpacked(STATUS)  # bool[]
    phase = Unpacked(STATUS)  # int32[]: PHASE_ROB / PHASE_PLAY / PHASE_JINK / PHASE_DONE
    robbed = Unpacked(RECORD)  # bool[]: the robber took the turn-up (public)
    leader = Unpacked(STATUS)  # int32[]: seat that leads (or led) the current trick
    led_class = Unpacked(STATUS)  # int32[]: suit led 0..3, 4 a trump lead, -1 before a lead
    best_power = Unpacked(STATUS)  # int32[]: the winning card's power (``tricks.card_to_trick``)
    best_seat = Unpacked(STATUS)  # int32[]: seat winning the current (or last) trick
    renege_level = Unpacked(STATUS)  # int32[]: a top trump stronger than this may be withheld
    trick_num = Unpacked(RECORD)  # int32[]: tricks completed, 0..5
    jinker = Unpacked(RECORD)  # int32[]: seat that declared a jink, -1 if none
    winner = Unpacked(STATUS)  # int32[]: seat that took the pot, -1 (not yet, spoiled, failed)
    illegal = Unpacked(RECORD)  # bool[]: the hand ended on an illegal action
    _step_count = Unpacked(RECORD)  # int32[]: decisions taken

    @property
    def tricks_won(self) -> jax.Array:
        """int32[..., N]: tricks each seat has won (unpacked from ``tricks``)."""
        return unpack_tricks(self.tricks, self.num_players)

    @property
    def hands(self) -> Bits:
        """uint32[..., N] x 2: the cards each seat holds now: ``dealt`` less ``played``."""
        played = Bits(self.played.lo[..., None], self.played.hi[..., None])
        return self.dealt.without(played)

    @property
    def legal_action_mask(self) -> jax.Array:
        """bool[55]: legal actions of ``current_player`` (all True once terminated, as pgx)."""
        return bits.to_bool(self.legal_set, NUM_ACTIONS)

    @property
    def num_players(self) -> int:
        return int(self.dealt.lo.shape[-1])

    @property
    def carried_out(self) -> jax.Array:
        """int32[]: chips carried to the next hand (the pot of a spoiled or failed hand)."""
        return jnp.where(self.terminated & (self.winner < 0), self.pot, 0)

    def replace(self, **changes: Any) -> State:
        """A copy with ``changes``: the fields, the packed attributes by name
        (``current_player=``, ``terminated=``, ...: ``STATUS``, ``RECORD``), ``tricks_won=``
        (int[N]) and ``hands=`` (uint32[N] x 2: what each seat holds now; stored as ``dealt``)."""
        if "hands" in changes:
            changes["dealt"] = changes.pop("hands")
        if "tricks_won" in changes:
            changes["tricks"] = pack_tricks(changes.pop("tricks_won"))
        return super().replace(**changes)


def pack_tricks(tricks_won: Any) -> jax.Array:
    """int32[...]: per-seat trick counts int[..., N] (0..5 each, N <= 10) packed as ``tricks``."""
    return pack_seats(tricks_won, TRICK_BITS)


def unpack_tricks(tricks: jax.Array, num_players: int) -> jax.Array:
    """int32[..., N]: the per-seat trick counts of packed ``tricks``."""
    return unpack_seats(tricks, num_players, TRICK_BITS)


def held(state: State, seat: jax.Array) -> Bits:
    """The cards ``seat`` holds now in one hand (``State.hands`` of one seat)."""
    return seat_bits(state.dealt, seat).without(state.played)
