"""Helpers shared by every game's batch-major rollout kernel: per-seat selection from lists of
``[B]`` vectors, counter-hash randomness (no key splitting: a hand's draws depend only on
(seed, hand id, counter)) and the play of a card to a trick on the strength encoding.  Their
status words are packed with ``core.packed``."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import NUM_CARDS, PLAIN_STRENGTH, TRUMP_STRENGTH
from spoilfive_jax.core.tricks import legal_follow, trick_after_play

U32 = jnp.uint32
I32 = jnp.int32
TRUMP_SLOT = 2  # the strength slot of the trumps (the hi word's low half)
PLAIN_SLOTS = (0, 1, 3)  # the slots of the three plain suits, in suit order
SLOT_WIDTH = 16  # positions a slot: slot s holds positions 16 s .. 16 s + 15


def seat_select(values: list[jax.Array], seat: jax.Array) -> jax.Array:
    """``values[seat]`` elementwise, from one ``[B]`` vector per seat."""
    out = values[0]
    for i in range(1, len(values)):
        out = jnp.where(seat == i, values[i], out)
    return out


def mix32(x: jax.Array) -> jax.Array:
    """A bijective uint32 hash with full avalanche (two multiply-xorshift rounds): the
    finalizer of ``mix`` and of the deal's draws (``core.deal``)."""
    x = x ^ (x >> 16)
    x = x * U32(0x7FEB352D)
    x = x ^ (x >> 15)
    x = x * U32(0x846CA68B)
    return x ^ (x >> 16)


def mix(a: jax.Array, b: jax.Array, c: jax.Array) -> jax.Array:
    """A well-mixed uint32 hash of three uint32 values (a counter-based random source)."""
    x = a * U32(0x9E3779B1) ^ (b + U32(0x7F4A7C15)) * U32(0x85EBCA77) ^ c * U32(0xC2B2AE3D)
    return mix32(x)


def random_choice(
    lo: jax.Array, hi: jax.Array, u: jax.Array, max_members: int | None = None
) -> jax.Array:
    """A uniformly random member of the set (lo, hi) from a uniform uint32 ``u``.

    ``max_members``: a bound on the set's size when the caller knows one (a hand's legal
    actions); the member is then found with ``bits.nth_small`` (same result, fewer ops)."""
    count = (jax.lax.population_count(lo) + jax.lax.population_count(hi)).astype(I32)
    k = (((u >> 8) * count.astype(U32)) >> 24).astype(I32)
    if max_members is None:
        return bits.nth(Bits(lo, hi), k)
    return bits.nth_small(Bits(lo, hi), k, max_members - 1)


class TrickPlay(NamedTuple):
    """A card played to the current trick (``trick_play``); int32[B] each."""

    led: jax.Array  # the slot led
    best: jax.Array  # the trick's best power so far
    seat: jax.Array  # the seat winning the trick so far
    level: jax.Array  # the renege level: the highest trump strength that counts (-1: none)
    is_trump: jax.Array  # bool[B]: the card is a trump
    strength: jax.Array  # its strength in its slot


def trick_play(
    pos: jax.Array,
    cur: jax.Array,
    led_old: jax.Array,
    best_old: jax.Array,
    seat_old: jax.Array,
    level_old: jax.Array,
    renege: str,
    trump_slot: int,
    trump_power: int,
) -> TrickPlay:
    """Seat ``cur`` plays the card at packed position ``pos`` (slot << 4 | strength) to a trick
    whose led slot, best power, winning seat and renege level were ``led_old``, ``best_old``,
    ``seat_old``, ``level_old`` (-1: a new trick).  A trump (slot ``trump_slot``) has power
    ``trump_power`` + strength, a card of the suit led its strength, any other -1; ``renege``
    (``"deal"``, ``"trick"``, ``"led"``) says how long a played trump's strength counts."""
    slot, strength = pos >> 4, pos & 15
    leading = led_old < 0
    led = jnp.where(leading, slot, led_old)
    is_trump = slot == trump_slot
    power = jnp.where(is_trump, trump_power + strength, jnp.where(slot == led, strength, -1))
    trump_played = jnp.where(is_trump, strength, -1)
    best, seat, level = trick_after_play(
        cur, leading, power, trump_played, best_old, seat_old, level_old, renege
    )
    return TrickPlay(led, best, seat, level, is_trump, strength)


def _above(x: jax.Array) -> jax.Array:
    """uint32: the bits strictly above ``x`` (-1..30)."""
    return ~((U32(1) << (jnp.clip(x, -1, 30) + 1).astype(U32)) - U32(1))


def slot_set(slot: jax.Array, within: jax.Array) -> Bits:
    """The positions ``slot << 4 | s`` for the bits s of ``within`` (uint32, 16 bits); empty for
    a slot outside 0..3."""
    word = (within & U32(0xFFFF)) << jnp.where(slot % 2 == 1, U32(16), U32(0))
    lo = jnp.where((slot == 0) | (slot == 1), word, U32(0))
    return Bits(lo, jnp.where((slot == 2) | (slot == 3), word, U32(0)))


PLAIN_STRENGTHS = np.uint32(0x1FFF)  # a plain slot's 13 strengths


def strength_position(card: int, trump: int, trump_strength: int, plain_strength: int) -> int:
    """Host: the strength position of card id ``card`` (suit ``card // 13``) under trump suit
    ``trump``: a trump's is its ``trump_strength`` in the trump slot, any other card's its
    ``plain_strength`` in the slot of its suit (``PLAIN_SLOTS``, the plain suits in suit
    order).  ``trump_strength`` is -1 for a plain card (the games' tables build on this)."""
    if trump_strength >= 0:
        return SLOT_WIDTH * TRUMP_SLOT + trump_strength
    plain_suits = [s for s in range(4) if s != trump]
    return SLOT_WIDTH * PLAIN_SLOTS[plain_suits.index(card // 13)] + plain_strength


def position_tables(
    cards: int,
    ids: int,
    trump_strength: Callable[[int, int], int],
    plain_strength: Callable[[int], int],
) -> tuple[np.ndarray, np.ndarray]:
    """Host: a game's strength layout as tables, (position int32[4, ids], card int32[4, 64]):
    card id ``c``'s ``strength_position`` under each trump suit ``t`` for the cards ``0 ..
    cards - 1`` in play (63, never a card, for the other ids: a joker out of play), and the
    card id at each position (-1 where there is none; a game puts its own actions, such as
    PASS, at free positions).  ``trump_strength(t, c)``: -1 for a plain card;
    ``plain_strength(c)``: a plain card's strength in its suit."""
    position = np.full((4, ids), 63, np.int32)
    card = np.full((4, 64), -1, np.int32)
    for t in range(4):
        for c in range(cards):
            p = strength_position(c, t, trump_strength(t, c), plain_strength(c))
            position[t, c] = p
            card[t, p] = c
    return position, card


def standard_tables() -> tuple[np.ndarray, np.ndarray]:
    """``position_tables`` of the 52 cards ranked as ``core.cards`` ranks them (Spoil Five's,
    and the Forty-Five family's without a joker); a new pair of arrays each call."""
    return position_tables(
        NUM_CARDS,
        NUM_CARDS,
        lambda t, c: int(TRUMP_STRENGTH[t, c]),
        lambda c: int(PLAIN_STRENGTH[c]),
    )


def plain_slot(suit: jax.Array, trump: jax.Array) -> jax.Array:
    """int32: the slot of plain suit ``suit`` (0..3, not ``trump``): ``PLAIN_SLOTS`` of its
    index among the plain suits."""
    index = suit - (suit > trump).astype(I32)
    return index + (index == 2).astype(I32)


def slot_of_class(led_class: jax.Array, trump: jax.Array) -> jax.Array:
    """int32: the slot of a public ``led_class`` (a suit 0..3, 4 for trumps) under ``trump``;
    -1 for none (before a lead)."""
    slot = jnp.where(led_class == 4, TRUMP_SLOT, plain_slot(jnp.clip(led_class, 0, 3), trump))
    return jnp.where(led_class < 0, -1, slot)


def follow_positions(
    hand: Bits, led: jax.Array, level: jax.Array, trump_bits: int, top_bits: int, follow: str
) -> Bits:
    """The cards of ``hand`` (strength positions) that may be played to a trick whose led slot
    is ``led`` (-1: a lead, anything) and renege level ``level``: ``core.tricks.legal_follow``,
    the rule every game's public step states on card ids.  The trumps are the hi word's bits
    ``trump_bits`` (slot 2, ``TRUMP_SLOT``), the top trumps that may be withheld from a trump
    lead ``top_bits`` of them above the renege level; ``follow``: "seed" or "traditional"."""
    trumps = Bits(U32(0), U32(trump_bits))
    withheld = Bits(U32(0), U32(top_bits) & _above(level))
    suit_led = slot_set(led, U32(PLAIN_STRENGTHS))  # (the plain slot led; a trump lead: unread)
    return legal_follow(hand, trumps, suit_led, withheld, led < 0, led == TRUMP_SLOT, follow)


def trick_beaters(
    cards: Bits, led: jax.Array, best: jax.Array, trump_slot: int, trump_power: int
) -> Bits:
    """The cards of ``cards`` that would take a trick whose led slot and best power are ``led``
    and ``best`` (``trick_play``'s; -1 before a lead: then every card): a trump stronger than a
    trump winning, any trump over a plain card, a card of the suit led stronger than it."""
    trump_best = best >= trump_power
    trumps = slot_set(
        jnp.int32(trump_slot), jnp.where(trump_best, _above(best - trump_power), 0xFFFF)
    )
    plain = jnp.where(trump_best | (led == trump_slot), U32(0), _above(best) & U32(0x1FFF))
    out = cards & (trumps | slot_set(led, plain))
    return bits.where(led < 0, cards, out)


def trick_landmarks(
    led: jax.Array, best: jax.Array, level: jax.Array, trump_slot: int, trump_power: int
) -> Bits:
    """The played cards a trick's outcome still depends on, as positions: the card winning it
    (led slot ``led``, power ``best``) and the trump of the renege ``level`` (empty where none).
    Two cards of a hand with only these between them can differ in what they win or may be
    withheld for (``core.search.run_tails``' ``others``)."""
    trump_best = best >= trump_power
    slot = jnp.where((led < 0) | (best < 0), -1, jnp.where(trump_best, trump_slot, led))
    strength = jnp.where(trump_best, best - trump_power, best)
    winning = slot_set(slot, U32(1) << jnp.clip(strength, 0, 15).astype(U32))
    renege = jnp.where(level >= 0, trump_slot, -1)
    return winning | slot_set(renege, U32(1) << jnp.clip(level, 0, 15).astype(U32))


SUIT_MASKS = 1 << 13  # 13-bit masks of one suit's cards


def suit_tables(position: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) uint32[4 * 4 * 8192] from ``position`` int[4, >= 52] (the 0..63 kernel
    position of card c under trump t): at ``(trump * 4 + suit) * 8192 + m`` the positions
    under ``trump`` of the cards of ``suit`` in the 13-bit mask ``m`` (bit r: card 13 suit + r),
    for ``positions_of``."""
    m = np.arange(SUIT_MASKS, dtype=np.uint64)
    out = np.zeros((4, 4, SUIT_MASKS), np.uint64)
    for trump in range(4):
        for suit in range(4):
            for r in range(13):
                at = np.uint64(1) << np.uint64(position[trump, 13 * suit + r])
                out[trump, suit] |= np.where((m >> np.uint64(r)) & np.uint64(1), at, np.uint64(0))
    flat = out.reshape(-1)
    lo = (flat & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return lo, (flat >> np.uint64(32)).astype(np.uint32)


def positions_of(cards: Bits, trump: jax.Array, tables: tuple[np.ndarray, np.ndarray]) -> Bits:
    """The kernel positions of the card-id sets ``cards`` [B] (cards 0..51) under ``trump``
    int32[B]: one look-up a suit in ``suit_tables``' ``tables`` (a handful of ops a set,
    where testing each of the 52 cards costs hundreds)."""
    lo_table, hi_table = (jnp.asarray(t) for t in tables)
    lo, hi = cards.lo, cards.hi
    mask = U32(SUIT_MASKS - 1)
    suits = (lo & mask, (lo >> 13) & mask, ((lo >> 26) | (hi << 6)) & mask, (hi >> 7) & mask)
    base = jnp.maximum(trump, 0) * 4
    out = Bits(jnp.zeros_like(lo), jnp.zeros_like(hi))
    for suit, m in enumerate(suits):
        at = ((base + suit) << 13) + m.astype(I32)
        out = out | Bits(lo_table[at], hi_table[at])
    return out


BYTE_MASKS = 1 << 8  # 8-bit masks of 8 kernel positions


def id_tables(card: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) uint32[C * 8 * 256] from ``card`` int[C, 64] (the action id 0..63 at kernel
    position p under trump t, -1 for none; C = 4 trumps, or any number of cases of a set
    renumbering): at ``(trump * 8 + k) * 256 + m`` the ids of the positions ``8 k + r`` of the
    bits r of the 8-bit mask ``m``, for ``ids_of``."""
    m = np.arange(BYTE_MASKS, dtype=np.uint64)
    out = np.zeros((card.shape[0], 8, BYTE_MASKS), np.uint64)
    for trump in range(card.shape[0]):
        for k in range(8):
            for r in range(8):
                c = int(card[trump, 8 * k + r])
                if c >= 0:
                    at = np.uint64(1) << np.uint64(c)
                    out[trump, k] |= np.where((m >> np.uint64(r)) & np.uint64(1), at, np.uint64(0))
    flat = out.reshape(-1)
    lo = (flat & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return lo, (flat >> np.uint64(32)).astype(np.uint32)


def ids_of(positions: Bits, trump: jax.Array, tables: tuple[np.ndarray, np.ndarray]) -> Bits:
    """The action ids of the kernel position sets ``positions`` under ``trump`` (the inverse
    of ``positions_of``; ``id_tables``' ``tables``, whose case ``trump`` is): one look-up a
    byte of the set."""
    lo_table, hi_table = (jnp.asarray(t) for t in tables)
    base = jnp.maximum(trump, 0) * 8
    out = Bits(jnp.zeros_like(positions.lo), jnp.zeros_like(positions.hi))
    for k in range(8):
        word = positions.lo if k < 4 else positions.hi
        byte = ((word >> U32(8 * (k % 4))) & U32(BYTE_MASKS - 1)).astype(I32)
        at = ((base + k) << 8) + byte
        out = out | Bits(lo_table[at], hi_table[at])
    return out


__all__ = [
    "BYTE_MASKS",
    "SUIT_MASKS",
    "TrickPlay",
    "id_tables",
    "ids_of",
    "mix",
    "positions_of",
    "random_choice",
    "seat_select",
    "suit_tables",
    "trick_play",
]
