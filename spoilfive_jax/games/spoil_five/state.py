"""``State``: one hand of Spoil Five as arrays, and its packed layout.

The small per-hand integers a decision updates are packed into two int32 words, ``status``
and ``record`` (``PACKED`` gives each one's bits), and read back through attributes of the old
names (``state.current_player``, ``state.terminated``, ``state.phase``, ...; batched states
too).  The reason is speed on XLA:CPU: it has no multi-output loop fusion, so every stored
field that depends on the trick's resolution was a fusion recomputing that resolution; packed,
one fusion computes them all with the shared values computed once.  ``replace`` accepts the
old names and packs them.  Likewise ``tricks_won`` is packed 3 bits a seat into ``tricks``,
and ``hands`` is ``dealt`` less ``played`` (a card played changes the two ``played`` words,
not every seat's set; only the rob rewrites ``dealt``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.tricks import seat_bits

NUM_ACTIONS = 55  # 0..51 cards, 52 PASS, 53 JINK, 54 CLAIM (``game``)

# name -> (word, first bit, width, offset): the field is stored as ``value + offset`` in bits
# first..first+width-1 of the int32 field ``word``.  Ranges (N <= 10 seats): seats -1..9,
# phase 0..3, led_class -1..4, best_power -1..29, renege_level -1..13, trick_num 0..5,
# decisions 0..5N+2 <= 52.
PACKED: dict[str, tuple[str, int, int, int]] = {
    # ``status``: everything the trick's resolution decides, written by one fusion
    "phase": ("status", 0, 2, 0),
    "terminated": ("status", 2, 1, 0),
    "current_player": ("status", 3, 4, 1),
    "leader": ("status", 7, 4, 0),
    "led_class": ("status", 11, 3, 1),
    "best_power": ("status", 14, 5, 1),
    "best_seat": ("status", 19, 4, 1),
    "renege_level": ("status", 23, 4, 1),
    "winner": ("status", 27, 4, 1),
    # ``record``: what a decision updates without resolving the trick
    "trick_num": ("record", 0, 3, 0),
    "jinker": ("record", 3, 4, 1),
    "robbed": ("record", 7, 1, 0),
    "illegal": ("record", 8, 1, 0),
    "_step_count": ("record", 9, 6, 0),
}
_FLAGS = frozenset({"terminated", "robbed", "illegal"})  # read back as bool


def pack(word: Any, **values: Any) -> jax.Array:
    """int32: ``word`` with the ``PACKED`` fields of ``values`` (all of one word) stored in it;
    a value outside its field's range is cut to the field's bits."""
    out = jnp.asarray(word, jnp.int32)
    for name, value in values.items():
        _, first, width, offset = PACKED[name]
        mask = ((1 << width) - 1) << first
        v = (jnp.asarray(value).astype(jnp.int32) + offset) << first
        out = (out & ~mask) | (v & mask)
    return out


def unpack(word: Any, name: str) -> jax.Array:
    """The ``PACKED`` field ``name`` of ``word`` (int32, or bool for the flags)."""
    _, first, width, offset = PACKED[name]
    v = (jnp.asarray(word, jnp.int32) >> first) & ((1 << width) - 1)
    return v != 0 if name in _FLAGS else v - offset


class _Packed:
    """A read-only ``State`` attribute unpacked from its word (``PACKED``)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.word = PACKED[name][0]

    def __get__(self, obj: Any, owner: type | None = None) -> jax.Array:
        if obj is None:
            raise AttributeError(self.name)
        return unpack(getattr(obj, self.word), self.name)


@dataclasses.dataclass(frozen=True)
class State:
    """One hand of Spoil Five; batch it with ``jax.vmap`` (every field gains a leading [B]).

    Bitset fields are ``Bits(lo, hi)`` pairs of uint32 arrays (positions 0..63, see ``bits``).
    The attributes below the fields are read from the packed words (``PACKED``).
    """

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

    # Packed (read-only; ``replace`` writes them).
    current_player = _Packed()  # int32[]: seat to act; -1 once terminated
    terminated = _Packed()  # bool[]
    phase = _Packed()  # int32[]: PHASE_ROB / PHASE_PLAY / PHASE_JINK / PHASE_DONE
    robbed = _Packed()  # bool[]: the robber took the turn-up (public)
    leader = _Packed()  # int32[]: seat that leads (or led) the current trick
    led_class = _Packed()  # int32[]: suit led 0..3, 4 for a trump lead, -1 before the first lead
    best_power = _Packed()  # int32[]: trick power of the winning card so far (``trick_power``)
    best_seat = _Packed()  # int32[]: seat winning the current (or last) trick
    renege_level = _Packed()  # int32[]: a top trump may be withheld only if stronger than this
    trick_num = _Packed()  # int32[]: tricks completed, 0..5
    jinker = _Packed()  # int32[]: seat that declared a jink, -1 if none
    winner = _Packed()  # int32[]: seat that took the pot, -1 (not yet, spoiled, jink failed)
    illegal = _Packed()  # bool[]: the hand ended on an illegal action
    _step_count = _Packed()  # int32[]: decisions taken

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
    def observation(self) -> jax.Array:
        """float32[..., D]: ``observe(self, current_player)`` (seat 0's view once terminated).

        Computed on access, not stored (the rollout kernels never pay for it); works on a
        batched state too.  Layout: ``spoilfive_jax.games.spoil_five.observe``.
        """
        from spoilfive_jax.games.spoil_five.observe import current_observation

        return current_observation(self)

    @property
    def num_players(self) -> int:
        return int(self.dealt.lo.shape[-1])

    @property
    def carried_out(self) -> jax.Array:
        """int32[]: chips carried to the next hand (the pot of a spoiled or failed hand)."""
        return jnp.where(self.terminated & (self.winner < 0), self.pot, 0)

    def replace(self, **changes: Any) -> State:
        """A copy with ``changes``.  Besides the fields it takes the packed attributes by name
        (``current_player=``, ``terminated=``, ...: ``PACKED``), ``tricks_won=`` (int[N]) and
        ``hands=`` (uint32[N] x 2: what each seat holds now; stored as ``dealt``)."""
        if "hands" in changes:
            changes["dealt"] = changes.pop("hands")
        if "tricks_won" in changes:
            changes["tricks"] = pack_tricks(changes.pop("tricks_won"))
        for word in ("status", "record"):
            values = {k: changes.pop(k) for k in list(changes) if PACKED.get(k, ("",))[0] == word}
            if values:
                every = len(values) == sum(w == word for w, *_ in PACKED.values())
                base = 0 if every else changes.get(word, getattr(self, word))
                changes[word] = pack(base, **values)
        return dataclasses.replace(self, **changes)

    def _repr_svg_(self) -> str | None:
        """Jupyter shows one hand as ``render_svg(self)`` (the table view, every hand face up);
        a batched state has no picture (None: Jupyter falls back to the text repr)."""
        from spoilfive_jax.games.spoil_five.render import render_svg

        if np.ndim(self.current_player) != 0:
            return None
        return render_svg(self)


jax.tree_util.register_dataclass(
    State, data_fields=[f.name for f in dataclasses.fields(State)], meta_fields=[]
)


def pack_tricks(tricks_won: Any) -> jax.Array:
    """int32[...]: per-seat trick counts int[..., N] (0..5 each, N <= 10) packed as ``tricks``."""
    t = jnp.asarray(tricks_won, jnp.int32)
    return (t << (3 * jnp.arange(t.shape[-1], dtype=jnp.int32))).sum(-1).astype(jnp.int32)


def unpack_tricks(tricks: jax.Array, num_players: int) -> jax.Array:
    """int32[..., N]: the per-seat trick counts of packed ``tricks``."""
    shifts = 3 * jnp.arange(num_players, dtype=jnp.int32)
    return (jnp.asarray(tricks, jnp.int32)[..., None] >> shifts) & 7


def held(state: State, seat: jax.Array) -> Bits:
    """The cards ``seat`` holds now in one hand (``State.hands`` of one seat)."""
    return seat_bits(state.dealt, seat).without(state.played)
