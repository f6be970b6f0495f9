"""The strength encoding of the Forty-Five family's cards once trump is known (the layout of the
rollout kernel ``fast`` and of the built-in policies' cores in ``policies``).

A card set is a 64-position ``Bits`` pair.  Once the trump suit is known a card's position says
its class and its strength, so following, reneging and trick winners become masks and integer
comparisons:

- slot 2 (positions 32..47, the ``hi`` word's bits 0..15) holds the trumps by trump strength:
  0..13 (5 = 13, J = 12, A♥ = 11, ...; strength 10 is unused when hearts are trump), or 0..14
  with the joker (``game.trump_strength``: the strengths from the joker's up move one step);
- slots 0, 1 and 3 hold the plain cards of the three other suits, in suit order, by plain
  strength 0..12 (``cards.PLAIN_STRENGTH``): a lower slot is a lower suit, so ties between
  suits break towards the lowest card id, as the public policies' ``argmin``/``argmax`` do.

Positions 13 and 14 are never cards: they stand for ``PASS`` (also DONE and "no jink") and
``JINK`` in the action sets of the card phases.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
import spoilfive_jax.games.forty_five.legal as legal
from spoilfive_jax.core import kernel, ranking, tricks
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import HEARTS, PLAIN_STRENGTH
from spoilfive_jax.core.kernel import positions_of, suit_tables
from spoilfive_jax.games.forty_five.rules import FortyFiveRules
from spoilfive_jax.games.forty_five.state import JINK, JOKER, NUM_CARD_IDS, PASS

U32 = jnp.uint32
I32 = jnp.int32

TRUMP_SLOT = kernel.TRUMP_SLOT  # 2
PLAIN_SLOTS = kernel.PLAIN_SLOTS  # (0, 1, 3): the slots of the three plain suits, in suit order
SLOT_WIDTH = kernel.SLOT_WIDTH  # 16
TRUMP_BASE = SLOT_WIDTH * TRUMP_SLOT  # position of trump strength 0
TRUMP_POWER = tricks.TRUMP_POWER  # a trump's trick power: 16 + strength (the suit led: 0..12)
P_PASS, P_JINK = 13, 14  # positions of the specials in card-phase action sets
PLAIN_MASK = kernel.PLAIN_STRENGTHS  # one slot's 13 plain strengths
SLOT2_MASK = np.uint32(0xFFFF)  # the hi word's trump slot
HEARTS_GAP = 10  # the trump strength that hearts lacks (the A♥ is its ace)
PASS_BIT = np.uint32(1 << P_PASS)
JINK_BIT = np.uint32(1 << P_JINK)


@functools.cache
def tables(rules: FortyFiveRules) -> tuple[np.ndarray, np.ndarray]:
    """(POSITION int32[4, 53], ACTION int32[4, 64]): a card's position under each trump suit,
    and the action id at each position (-1 where no card; PASS and JINK at 13 and 14).  The
    trump strengths are the public step's (``legal.trump_strength``), tabulated."""
    strengths = ranking.tabulate(lambda c, t: legal.trump_strength(c, t, rules), NUM_CARD_IDS)
    position, action = kernel.position_tables(
        NUM_CARD_IDS if rules.joker else JOKER,  # (without the joker: its position 63, no card)
        NUM_CARD_IDS,
        lambda t, c: int(strengths[t, c]),
        lambda c: int(PLAIN_STRENGTH[c]) if c < JOKER else -1,  # (the joker is always a trump)
    )
    action[:, P_PASS], action[:, P_JINK] = PASS, JINK
    return position, action


@functools.cache
def _suit_tables(rules: FortyFiveRules) -> tuple[np.ndarray, np.ndarray]:
    """``core.kernel.suit_tables`` of ``tables``' positions, built once a rule set."""
    return suit_tables(tables(rules)[0])


def card_positions(cards: Bits, trump: jax.Array, rules: FortyFiveRules) -> Bits:
    """The strength positions of card-id sets ``cards`` (any shape; action ids above the joker
    are ignored) under ``trump`` (-1, before it is known: as clubs): one table look-up a suit
    (``core.kernel.positions_of``), and the joker."""
    out = positions_of(cards, trump, _suit_tables(rules))
    if rules.joker:
        joker = jnp.asarray(tables(rules)[0])[jnp.maximum(trump, 0), JOKER]
        out = bits.where(bits.has(cards, JOKER), out | bits.bit(joker), out)
    return out


def action_positions(actions: Bits, trump: jax.Array, rules: FortyFiveRules) -> Bits:
    """``card_positions`` of an action set, with PASS and JINK at their positions (``P_PASS``,
    ``P_JINK``): a card phase's legal set as the kernel orders it."""
    out = card_positions(actions, trump, rules)
    specials = jnp.where(bits.has(actions, PASS), U32(PASS_BIT), U32(0))
    specials = specials | jnp.where(bits.has(actions, JINK), U32(JINK_BIT), U32(0))
    return Bits(out.lo | specials, out.hi)


def trump_mask(rules: FortyFiveRules) -> np.uint32:
    """The hi-word bits of every trump strength (14 trumps, 15 with the joker)."""
    return np.uint32((1 << (14 + int(rules.joker))) - 1)


def top_mask(rules: FortyFiveRules) -> np.uint32:
    """The hi-word bits of the trumps with the reneging privilege (5, J, A♥ and the joker)."""
    return np.uint32(0x7800 if rules.joker else 0x3800)


def every_trump(trump: jax.Array, rules: FortyFiveRules) -> jax.Array:
    """uint32: the trump strengths that exist under ``trump`` (hearts lack one)."""
    gap = jnp.where(trump == HEARTS, U32(1 << HEARTS_GAP), U32(0))
    return U32(trump_mask(rules)) & ~gap


# ------------------------------------------------------------------------ bit helpers


def lowbit(x: jax.Array) -> jax.Array:
    """int32: index of the lowest set bit of a uint32 (32 if none)."""
    return jnp.where(x != 0, 31 - jax.lax.clz(x & (~x + U32(1))).astype(I32), 32)


def highbit(x: jax.Array) -> jax.Array:
    """int32: index of the highest set bit of a uint32 (-1 if none)."""
    return 31 - jax.lax.clz(x).astype(I32)


def popcount(x: jax.Array) -> jax.Array:
    return jax.lax.population_count(x).astype(I32)


def above(level: jax.Array) -> jax.Array:
    """uint32: the bits strictly above ``level`` (-1..30): the strengths that beat it."""
    return ~((U32(1) << (jnp.clip(level, -1, 30) + 1).astype(U32)) - U32(1))


def plain_slots(s: Bits) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The plain slots 0, 1, 3 of a set as 13-bit strength masks."""
    return s.lo & PLAIN_MASK, (s.lo >> 16) & PLAIN_MASK, (s.hi >> 16) & PLAIN_MASK


def trumps_of(s: Bits) -> jax.Array:
    """uint32: the trump strengths in a set."""
    return s.hi & SLOT2_MASK


def plain_card(s: Bits, strength: jax.Array) -> jax.Array:
    """Position of the plain card of ``strength`` in the set, from the lowest slot (suit) up."""
    s0, s1, _ = plain_slots(s)
    sh = jnp.clip(strength, 0, 31).astype(U32)
    in0 = ((s0 >> sh) & 1) != 0
    in1 = ((s1 >> sh) & 1) != 0
    return jnp.where(in0, strength, jnp.where(in1, SLOT_WIDTH + strength, 48 + strength))


def slot_mask(slot: jax.Array) -> Bits:
    """The positions of plain slot ``slot`` (0, 1 or 3; empty for any other value)."""
    m = U32(PLAIN_MASK)
    lo = jnp.where(slot == 0, m, jnp.where(slot == 1, m << 16, U32(0)))
    hi = jnp.where(slot == 3, m << 16, U32(0))
    return Bits(lo, hi)


slot_of_class = kernel.slot_of_class  # (a public led_class's slot: the layout's, in core)
