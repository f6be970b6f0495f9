"""Policies: who chooses each action.

A policy is any jittable callable ``policy(key, state, player) -> action`` on ONE hand's public
``State`` (``key``: a JAX PRNG key for this decision; ``player``: the seat to act), vmapped by
the rollout.  Built-in policies (``"random"``, ``"heuristic"``) also have a fast form that the
rollout kernel (``fast``) calls on its strength-encoded batch; both forms choose by the same
rules.

The heuristic player, rules in order (docs/rules.md vocabulary):

1. Rob decision: always rob, discarding the weakest plain card (lowest strength; if the hand is
   all trumps, the lowest trump).
2. Jink decision: JINK only when every card left in hand is a trump that outranks every trump
   it has not seen (not played, not its own, not a turn-up left in the stock); else CLAIM.
3. Leading: lead the highest trump when it is a sure winner (outranks every unseen trump),
   else the strongest plain card, else (only trumps) the lowest trump.  Top trumps it does
   not lead stay in hand, where the renege rules may protect them.
4. Following: win the trick as cheaply as possible (the lowest card that beats the card
   winning so far: a higher card of the suit led before a trump, the lowest winning trump);
   this also spoils a player closing in on three tricks.  When it cannot win, throw the
   lowest legal card (a plain card before a trump).
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
import spoilfive_jax.games.spoil_five.fast as fast
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.kernel import positions_of
from spoilfive_jax.games.spoil_five.fast import I32, P_CLAIM, P_JINK, U32
from spoilfive_jax.games.spoil_five.game import State
from spoilfive_jax.games.spoil_five.state import held as held_by

_SLOT13 = np.uint32(0x1FFF)


class PolicyFn(Protocol):
    def __call__(self, key: jax.Array, state: State, player: jax.Array) -> jax.Array: ...


# ------------------------------------------------------------------------ strength-space core


def _lowbit_index(x: jax.Array) -> jax.Array:
    """Index of the lowest set bit of a uint32 (32 if none)."""
    return jnp.where(x != 0, 31 - jax.lax.clz(x & (~x + U32(1))).astype(I32), 32)


def _highbit_index(x: jax.Array) -> jax.Array:
    """Index of the highest set bit of a uint32 (-1 if none)."""
    return 31 - jax.lax.clz(x).astype(I32)


def _plain_slots(lo: jax.Array, hi: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The three plain slots (0, 1, 3) of a set as 13-bit strength masks."""
    return lo & _SLOT13, (lo >> 16) & _SLOT13, (hi >> 16) & _SLOT13


def _plain_card(lo: jax.Array, hi: jax.Array, strength: jax.Array) -> jax.Array:
    """Position of a plain card of ``strength`` in the set (slot 0, then 1, then 3)."""
    s0, s1, _ = _plain_slots(lo, hi)
    has0 = ((s0 >> strength.astype(U32)) & 1) != 0
    has1 = ((s1 >> strength.astype(U32)) & 1) != 0
    return jnp.where(has0, strength, jnp.where(has1, 16 + strength, 48 + strength))


def _lowest_card(lo: jax.Array, hi: jax.Array) -> jax.Array:
    """The weakest card of a set: the lowest plain strength, else the lowest trump."""
    s0, s1, s3 = _plain_slots(lo, hi)
    plain = s0 | s1 | s3
    low = _lowbit_index(plain)
    lowest_trump = 32 + _lowbit_index(hi & fast._TRUMPS_HI)
    return jnp.where(plain != 0, _plain_card(lo, hi, low), lowest_trump)


def _live_trumps(
    mine: jax.Array, played: jax.Array, trump: jax.Array, turnup_pos: jax.Array, robbed: jax.Array
) -> jax.Array:
    """Trump strengths (bit s) the player has not seen: not played, not held, not a turn-up
    left in the stock."""
    every = jnp.where(trump == 2, U32(0x3BFF), U32(0x3FFF))  # hearts: strength 10 unused
    turn = jnp.left_shift(U32(1), (turnup_pos - 32).astype(U32))
    dead = played | mine | jnp.where(robbed, U32(0), turn)
    return every & ~dead


def heuristic_position(
    lo: jax.Array,
    hi: jax.Array,
    legal_lo: jax.Array,
    legal_hi: jax.Array,
    status: jax.Array,
    played_trumps: jax.Array,
    trump: jax.Array,
    turnup_pos: jax.Array,
) -> jax.Array:
    """The heuristic's action position (rules in the module docstring); all inputs are the
    strength-encoded view of the player to act: its hand (lo, hi), its legal set, the packed
    status word, the trump strengths played so far."""
    phase = fast.get(status, fast._F_PHASE)
    led = fast.get(status, fast._F_LED)
    best = fast.get(status, fast._F_BEST)
    robbed = fast.get(status, fast._F_ROBBED)
    mine = hi & fast._TRUMPS_HI
    live = _live_trumps(mine, played_trumps, trump, turnup_pos, robbed)

    # 1. Rob: the weakest card of the hand (the legal set is the hand plus PASS).
    rob = _lowest_card(lo, hi)
    # 2. Jink: only trumps left, each above every unseen trump.
    all_trumps = (lo == 0) & ((hi >> 16) == 0)
    sure = all_trumps & (live < (mine & (~mine + U32(1))))
    jink = jnp.where(sure, P_JINK, P_CLAIM)
    # 3. Lead.
    top_trump = _highbit_index(mine)
    sure_lead = (mine != 0) & (jnp.left_shift(U32(1), top_trump.astype(U32)) > live)
    s0, s1, s3 = _plain_slots(lo, hi)
    plain = s0 | s1 | s3
    strongest_plain = _plain_card(lo, hi, _highbit_index(plain))
    lead = jnp.where(
        sure_lead, 32 + top_trump, jnp.where(plain != 0, strongest_plain, 32 + _lowbit_index(mine))
    )
    # 4. Follow: cheapest winner, else the weakest legal card.
    led_lo, led_hi = fast.slot_masks(led)
    in_led = (legal_lo & led_lo) | (legal_hi & led_hi & ~fast._TRUMPS_HI)
    led_bits = jnp.where(led == 1, in_led >> 16, jnp.where(led == 3, in_led >> 16, in_led))
    led_bits = led_bits & _SLOT13
    plain_best = best < 16
    above_plain = ~((jnp.left_shift(U32(2), jnp.clip(best, 0, 15).astype(U32))) - 1)
    plain_win = jnp.where(plain_best & (led != fast.TRUMP_SLOT), led_bits & above_plain, U32(0))
    legal_trumps = legal_hi & fast._TRUMPS_HI
    trump_floor = jnp.clip(best - 16, -1, 15)
    above_trump = ~((jnp.left_shift(U32(1), (trump_floor + 1).astype(U32))) - 1)
    trump_win = jnp.where(plain_best, legal_trumps, legal_trumps & above_trump)
    win_plain = 16 * led + _lowbit_index(plain_win)
    win_trump = 32 + _lowbit_index(trump_win)
    follow = jnp.where(
        plain_win != 0,
        win_plain,
        jnp.where(trump_win != 0, win_trump, _lowest_card(legal_lo, legal_hi)),
    )
    play = jnp.where(led < 0, lead, follow)
    out = jnp.where(phase == fast.ROB, rob, jnp.where(phase == fast.JINK_PHASE, jink, play))
    return out.astype(I32)


# ------------------------------------------------------------------------ public-State view


def strength_view(state: State) -> dict[str, jax.Array]:
    """The strength-encoded view of the player to act in one public ``State``."""
    pos = jnp.asarray(fast.POSITION)[state.trump]  # int32[52]
    hand = held_by(state, state.current_player)
    held = bits.to_bool(hand, 52)
    lo = jnp.where(held & (pos < 32), jnp.left_shift(U32(1), (pos & 31).astype(U32)), U32(0))
    hi = jnp.where(held & (pos >= 32), jnp.left_shift(U32(1), (pos & 31).astype(U32)), U32(0))
    legal = state.legal_action_mask
    l_lo = jnp.where(legal[:52] & (pos < 32), jnp.left_shift(U32(1), (pos & 31).astype(U32)), 0)
    l_hi = jnp.where(legal[:52] & (pos >= 32), jnp.left_shift(U32(1), (pos & 31).astype(U32)), 0)
    specials = jnp.where(legal[52], U32(1 << fast.P_PASS), U32(0))
    specials |= jnp.where(legal[53], U32(1 << fast.P_JINK), U32(0))
    specials |= jnp.where(legal[54], U32(1 << fast.P_CLAIM), U32(0))
    played = bits.to_bool(state.played, 52) & (pos >= 32) & (pos < 48)
    played_trumps = jnp.where(played, jnp.left_shift(U32(1), (pos & 15).astype(U32)), U32(0))
    status = fast.status_word(state)
    return dict(
        lo=lo.sum(dtype=U32),
        hi=hi.sum(dtype=U32),
        legal_lo=l_lo.sum(dtype=U32) | specials,
        legal_hi=l_hi.sum(dtype=U32),
        status=status,
        played_trumps=played_trumps.sum(dtype=U32),
        trump=state.trump,
        turnup_pos=pos[state.turnup],
    )


def action_positions(actions: Bits, trump: jax.Array) -> Bits:
    """The strength positions under ``trump`` of a set of action ids (cards, PASS, JINK,
    CLAIM: positions 13, 14, 15)."""
    cards = positions_of(actions, trump, fast.card_tables())
    specials = ((actions.hi >> U32(fast.PASS - 32)) & U32(7)) << U32(fast.P_PASS)
    return Bits(cards.lo | specials, cards.hi)


def position_to_action(position: jax.Array, trump: jax.Array) -> jax.Array:
    """The action id of a strength position under ``trump``."""
    return jnp.asarray(fast.CARD.reshape(-1))[trump * 64 + position]


# ------------------------------------------------------------------------ built-in policies


@dataclasses.dataclass(frozen=True)
class BuiltinPolicy:
    """A named built-in policy; callable on the public ``State`` and known to the fast kernel."""

    name: str

    @property
    def policy_name(self) -> str:
        """The name the tools resolve through ``env.builtin_policy`` (``tools.policies``)."""
        return self.name

    def __call__(self, key: jax.Array, state: State, player: jax.Array) -> jax.Array:
        if self.name == "random":  # the kernel's draw: the k-th legal action by strength
            legal = action_positions(state.legal_set, state.trump)
            u = jax.random.bits(key, (), U32)
            return position_to_action(fast.random_choice(legal.lo, legal.hi, u), state.trump)
        view = strength_view(state)
        return position_to_action(heuristic_position(**view), state.trump)


RANDOM = BuiltinPolicy("random")
HEURISTIC = BuiltinPolicy("heuristic")
BUILTIN = {"random": RANDOM, "heuristic": HEURISTIC}
