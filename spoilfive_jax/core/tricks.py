"""Seats and tricks, shared by every game: whose turn, per-seat lookups, and which cards of a
hand may be played to a trick (following suit and reneging, docs/rules.md#following-suit and
docs/rules.md#reneging).

Everything is for ONE hand (batch it with ``jax.vmap``); card sets are ``bits.Bits``.
"""

from __future__ import annotations

from typing import Protocol

import jax
import jax.numpy as jnp

from spoilfive_jax.core import bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import ACE_OF_HEARTS
from spoilfive_jax.core.ranking import plain_strength, suit_set

TRUMP_CLASS = 4  # ``led_class`` of a trump lead (0..3: the plain suit led)
TRUMP_POWER = 16  # a trump's trick power: 16 + its strength (a card of the suit led: 0..12)

_AH = bits.const([ACE_OF_HEARTS])


def seat_value(values: jax.Array, seat: jax.Array) -> jax.Array:
    """``values[seat]`` for a per-seat vector, as a chain of selects (no gather, no reduce)."""
    out = values[0]
    for i in range(1, values.shape[0]):
        out = jnp.where(seat == i, values[i], out)
    return out


def seat_bits(sets: Bits, seat: jax.Array) -> Bits:
    """The set of seat ``seat`` among per-seat sets (uint32[N] x 2)."""
    return Bits(seat_value(sets.lo, seat), seat_value(sets.hi, seat))


def next_seat(seat: jax.Array, num_players: int) -> jax.Array:
    """The seat to the left (clockwise next) of ``seat``."""
    return jnp.where(seat + 1 == num_players, 0, seat + 1)


def top_trumps(
    trump: jax.Array, renege_level: jax.Array, five: int, jack: int, ace_hearts: int
) -> Bits:
    """The top trumps (the 5 and J of trumps, A♥) whose strength (``five``, ``jack``,
    ``ace_hearts``) is above ``renege_level``: those their holder may withhold from a trump lead."""
    zero = Bits(jnp.uint32(0), jnp.uint32(0))
    return (
        bits.where(renege_level < five, bits.bit(trump * 13 + 4), zero)
        | bits.where(renege_level < jack, bits.bit(trump * 13 + 10), zero)
        | bits.where(renege_level < ace_hearts, Bits(*_AH), zero)
    )


def follow_plays(
    hand: Bits,
    trumps: Bits,
    led_class: jax.Array,
    may_withhold: Bits,
    leading: jax.Array,
    follow: str,
) -> Bits:
    """The cards of ``hand`` that may be played to the current trick (card ids).

    ``trumps``: every trump of the deal; ``led_class``: the suit led (0..3) or ``TRUMP_CLASS``;
    ``may_withhold``: the top trumps that may be reneged from a trump lead (``top_trumps``);
    ``leading``: anything may be led; ``follow`` (static): "seed" (holding the suit led or any
    trump, play one of those) or "traditional" (holding the suit led, follow or trump; void,
    anything).  The rule itself is ``legal_follow``'s.
    """
    suit_led = suit_set(jnp.clip(led_class, 0, 3)).without(Bits(*_AH))
    trump_led = led_class == TRUMP_CLASS
    return legal_follow(hand, trumps, suit_led, may_withhold, leading, trump_led, follow)


def legal_follow(
    hand: Bits,
    trumps: Bits,
    suit_led: Bits,
    may_withhold: Bits,
    leading: jax.Array,
    trump_led: jax.Array,
    follow: str,
) -> Bits:
    """The cards of ``hand`` that may be played to a trick (docs/rules.md#following-suit and
    docs/rules.md#reneging), on any numbering of the cards: the games' card ids
    (``follow_plays``) and the kernels' strength positions alike, so every game states the rule
    once.

    ``trumps``: every trump; ``suit_led``: the plain cards of the suit led (read when
    ``trump_led`` is False); ``may_withhold``: the top trumps that may be reneged from a trump
    lead; ``leading``: anything may be led; ``follow`` (static): "seed" or "traditional"
    (``follow_plays``).  Plain suit led: follow suit or trump ("seed": obliged if holding
    either; "traditional": if holding the suit).  Trump led: a top trump allowed to renege may
    be withheld; holding any other trump forces a trump.
    """
    held_trumps = hand & trumps
    followers = hand & (suit_led | trumps)
    must = bits.nonempty(followers if follow == "seed" else hand & suit_led)
    plain_legal = bits.where(must, followers, hand)
    forced = bits.nonempty(held_trumps.without(may_withhold))
    trump_legal = bits.where(forced, held_trumps, hand)
    followed = bits.where(trump_led, trump_legal, plain_legal)
    return bits.where(leading, hand, followed)


def trick_after_play(
    cur: jax.Array,
    leading: jax.Array,
    power: jax.Array,
    trump_played: jax.Array,
    best_power: jax.Array,
    best_seat: jax.Array,
    level: jax.Array,
    renege: str,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Seat ``cur`` plays a card of trick power ``power`` (``leading``: to an empty trick):
    (the trick's best power, its winning seat, the renege level) after the play, from those
    before it (``best_power``, ``best_seat``, ``level``).

    A lead takes the trick; later a card takes it only with a higher power (the powers of a
    trick's cards differ).  The renege level is the highest trump strength played that still
    counts for reneging (-1: none; ``trump_played``: the card's trump strength, -1 for a plain
    card), by ``renege`` (static; docs/rules.md#reneging): "deal" (every trump played this
    deal), "trick" (this trick's) or "led" (the card led only).  Every game's public step and
    every kernel play a card through this (any shape, element by element).
    """
    take = leading | (power > best_power)
    if renege == "deal":
        level = jnp.maximum(level, trump_played)
    elif renege == "trick":
        level = jnp.where(leading, trump_played, jnp.maximum(level, trump_played))
    elif renege == "led":
        level = jnp.where(leading, trump_played, level)
    else:
        raise ValueError(f"renege must be 'deal', 'trick' or 'led', got {renege!r}")
    return jnp.where(take, power, best_power), jnp.where(take, cur, best_seat), level


class TrickState(Protocol):
    """The fields of a game's state that a play to a trick reads (int32[] each)."""

    @property
    def led_class(self) -> jax.Array: ...  # the suit led 0..3, TRUMP_CLASS, -1 before a lead

    @property
    def best_power(self) -> jax.Array: ...  # the winning card's trick power

    @property
    def best_seat(self) -> jax.Array: ...  # the seat winning the trick

    @property
    def renege_level(self) -> jax.Array: ...  # ``trick_after_play``'s


def card_to_trick(
    card: jax.Array,
    ts: jax.Array,
    cur: jax.Array,
    leading: jax.Array,
    state: TrickState,
    renege: str,
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Seat ``cur`` plays ``card`` (a card id; ``ts`` its trump strength, -1 for a plain card)
    to the current trick of ``state`` (its class led unread when ``leading``): (the class led,
    the trick's best power, its winning seat, the renege level) after the play, by
    ``trick_after_play``.  A trump's trick power is ``TRUMP_POWER`` + its strength, a card of
    the suit led its plain strength (0..12), any other card's -1 (it never wins)."""
    is_trump = ts >= 0
    suit = jnp.asarray(card) // 13
    led = jnp.where(leading, jnp.where(is_trump, TRUMP_CLASS, suit), state.led_class)
    plain = jnp.where(suit == led, plain_strength(card), -1)
    power = jnp.where(is_trump, TRUMP_POWER + ts, plain)
    trump_played = jnp.where(is_trump, ts, -1)
    best_power, best_seat, level = trick_after_play(
        cur,
        leading,
        power,
        trump_played,
        state.best_power,
        state.best_seat,
        state.renege_level,
        renege,
    )
    return led, best_power, best_seat, level


def revealed_void(
    card: jax.Array,
    trumps: Bits,
    led_class: jax.Array,
    may_withhold: Bits,
    leading: jax.Array,
    follow: str,
) -> Bits:
    """The cards a player has shown it does NOT hold by playing ``card`` to the current trick
    (the information-state record, ``State.cannot_hold``; docs/rules.md#following-suit and
    docs/rules.md#reneging).

    The arguments are ``follow_plays``'s, with the renege level before the play.
    ``follow_plays`` allows ``card`` from a hand H (holding ``card``) exactly when H holds none of
    the returned set, so a consistent deal keeps the set out of the player's hand from then on.
    Plain suit led: a card of a third suit shows a void in the suit led and, under
    ``follow="seed"``, no trump.  Trump led: a plain card shows no trump but the top trumps it
    may withhold.  A lead, a card of the suit led and any trump show nothing.
    """
    zero = Bits(jnp.uint32(0), jnp.uint32(0))
    suit_led = suit_set(jnp.clip(led_class, 0, 3)).without(Bits(*_AH))
    c = bits.bit(card)
    is_trump = bits.nonempty(c & trumps)
    in_suit = bits.nonempty(c & suit_led)
    plain_void = (suit_led | trumps) if follow == "seed" else suit_led
    plain = bits.where(~in_suit & ~is_trump, plain_void, zero)
    trump_void = bits.where(is_trump, zero, trumps.without(may_withhold))
    shown = bits.where(led_class == TRUMP_CLASS, trump_void, plain)
    return bits.where(leading, zero, shown)
