"""One decision of a Forty-Five family hand, a helper per phase (``game.apply_action`` combines
them).

Each helper takes the ``Decision`` (the mover, the action, its hand) and the ``Move`` built so
far (the mover's cards, a card laid away, the next phase, player and leader), and selects its own
outcome where the hand is in its phase (``jnp.where``): every phase's outcome is computed and the
right one kept, branch-free under ``vmap`` over hands in different phases.  A helper also returns
the State fields only its phase changes.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from spoilfive_jax.core import bits, tricks
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.deal import rob_seat
from spoilfive_jax.games.forty_five.legal import (
    auction_turn,
    may_withhold,
    trump_set,
    trump_strength,
)
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams
from spoilfive_jax.games.forty_five.state import (
    _JOKER_SET,
    BID_15,
    BID_30,
    HOLD,
    JINK,
    NAME_CLUBS,
    NO_CARD,
    NUM_TRICKS,
    PASS,
    PHASE_ANNOUNCE,
    PHASE_BID,
    PHASE_DISCARD,
    PHASE_JOKER,
    PHASE_PLAY,
    PHASE_ROB,
    PHASE_TRUMP,
    State,
)


def robber_seat(
    hands: Bits, turnup: jax.Array, dealer: jax.Array, rules: FortyFiveRules
) -> jax.Array:
    """Seat entitled to rob: the dealer if an ace is turned up, else the holder of the ace of
    trumps (A♥ when hearts), else -1 (docs/rules.md#robbing-the-pack)."""
    if not rules.robbing:
        return jnp.int32(-1)
    return rob_seat(hands, turnup, dealer)


def after_turnup(state: State, rules: FortyFiveRules) -> tuple[jax.Array, jax.Array]:
    """(phase, player) once the turn-up business is over: announcements or the first lead."""
    eldest = tricks.next_seat(state.dealer, state.tricks_won.shape[0])
    phase = PHASE_ANNOUNCE if rules.jink == "announced" else PHASE_PLAY
    return jnp.int32(phase), eldest


def set_seat(sets: Bits, seat: jax.Array, value: Bits, when: jax.Array) -> Bits:
    mine = (jnp.arange(sets.lo.shape[0]) == seat) & when
    return Bits(jnp.where(mine, value.lo, sets.lo), jnp.where(mine, value.hi, sets.hi))


class Decision(NamedTuple):
    """What every phase reads of the decision being applied (``apply_action``)."""

    cur: jax.Array  # int32[]: the seat deciding
    a: jax.Array  # int32[]: the action
    hand: Bits  # uint32[] x 2: the mover's cards before it
    card: Bits  # uint32[] x 2: the action as a card (clipped to 0..52)
    is_card: jax.Array  # bool[]: the action is a card (the joker included)
    seats: jax.Array  # int32[N]: 0..N-1
    eldest: jax.Array  # int32[]: the seat after the dealer


class Move(NamedTuple):
    """What the decision makes of the mover and the turn, built phase by phase: each phase's
    helper selects its own outcome where the hand is in that phase (``jnp.where``, branch-free
    under vmap) and passes the others' on."""

    hand: Bits  # uint32[] x 2: the mover's cards after the decision
    laid_away: Bits  # uint32[] x 2: a card the mover discards face down (else empty)
    phase: jax.Array  # int32[]: the next phase
    player: jax.Array  # int32[]: the next seat to act
    leader: jax.Array  # int32[]: the seat leading the current trick


def joker_exchange(
    state: State, d: Decision, m: Move, rules: FortyFiveRules
) -> tuple[Move, jax.Array]:
    """PHASE_JOKER: the dealer discards a card and takes the turned-up joker; then the rob (or
    what follows the turn-up).  Also returns the robber, known only now."""
    in_joker = state.phase == PHASE_JOKER
    after_phase, after_player = after_turnup(state, rules)
    exchanged = d.hand.without(d.card) | Bits(*_JOKER_SET)
    hands_after = set_seat(state.hands, d.cur, exchanged, jnp.bool_(True))
    found = robber_seat(hands_after, state.turnup, state.dealer, rules)
    robber = jnp.where(in_joker, found, state.robber)
    move = Move(
        hand=bits.where(in_joker, exchanged, m.hand),
        laid_away=bits.where(in_joker, d.card, m.laid_away),
        phase=jnp.where(in_joker, jnp.where(found >= 0, PHASE_ROB, after_phase), m.phase),
        player=jnp.where(in_joker, jnp.where(found >= 0, found, after_player), m.player),
        leader=m.leader,
    )
    return move, robber


def rob(state: State, d: Decision, m: Move, rules: FortyFiveRules) -> tuple[Move, jax.Array]:
    """PHASE_ROB: discard a card and take the turn-up, or PASS.  Also returns whether the
    robber robbed."""
    in_rob = state.phase == PHASE_ROB
    after_phase, after_player = after_turnup(state, rules)
    robs = in_rob & d.is_card
    move = Move(
        hand=bits.where(robs, d.hand.without(d.card) | bits.bit(state.turnup), m.hand),
        laid_away=bits.where(robs, d.card, m.laid_away),
        phase=jnp.where(in_rob, after_phase, m.phase),
        player=jnp.where(in_rob, after_player, m.player),
        leader=m.leader,
    )
    return move, robs


def bidding(state: State, d: Decision, m: Move) -> tuple[Move, dict[str, jax.Array]]:
    """PHASE_BID: raise, hold or pass; the last seat left in names trump.  Also returns the
    auction's changes (bid, bidder, passed)."""
    n = d.seats.shape[0]
    in_bid = state.phase == PHASE_BID
    is_bid = (d.a >= BID_15) & (d.a <= BID_30)
    raises = in_bid & is_bid
    bid = jnp.where(raises, 15 + 5 * (d.a - BID_15), state.bid)
    bidder = jnp.where(raises | (in_bid & (d.a == HOLD)), d.cur, state.bidder)
    passed = state.passed | (in_bid & (d.a == PASS) & (d.seats == d.cur))
    mask = jnp.sum(jnp.where(passed, 1 << d.seats, 0)).astype(jnp.int32)
    auction_over, next_active = auction_turn(mask, bid, d.cur, n)
    move = m._replace(
        phase=jnp.where(in_bid, jnp.where(auction_over, PHASE_TRUMP, PHASE_BID), m.phase),
        player=jnp.where(in_bid, jnp.where(auction_over, bidder, next_active), m.player),
    )
    return move, {"bid": bid, "bidder": bidder, "passed": passed}


def name_trump(state: State, d: Decision, m: Move) -> tuple[Move, jax.Array]:
    """PHASE_TRUMP: the bid winner names trump; the eldest hand discards first.  Also returns
    the trump suit."""
    in_trump = state.phase == PHASE_TRUMP
    trump = jnp.where(in_trump, d.a - NAME_CLUBS, state.trump)
    move = m._replace(
        phase=jnp.where(in_trump, PHASE_DISCARD, m.phase),
        player=jnp.where(in_trump, d.eldest, m.player),
    )
    return move, trump


def discard_and_draw(
    state: State, d: Decision, m: Move, bidder: jax.Array
) -> tuple[Move, dict[str, Any]]:
    """PHASE_DISCARD: lay a card away, or DONE and draw back to five from the stock; after the
    dealer the seat after the bidder leads.  Also returns the stock's changes."""
    n = d.seats.shape[0]
    in_discard = state.phase == PHASE_DISCARD
    lays = in_discard & d.is_card
    draws = in_discard & ~d.is_card
    refill = stock_draw(state.stock, state.stock_top, state.pending)
    hand = bits.where(lays, d.hand.without(d.card), m.hand)
    last = d.cur == state.dealer
    first_leader = tricks.next_seat(bidder, n)
    move = Move(
        hand=bits.where(draws, d.hand | refill, hand),
        laid_away=bits.where(lays, d.card, m.laid_away),
        phase=jnp.where(draws & last, PHASE_PLAY, m.phase),
        player=jnp.where(
            draws, jnp.where(last, first_leader, tricks.next_seat(d.cur, n)), m.player
        ),
        leader=jnp.where(draws & last, first_leader, m.leader),
    )
    stock = {
        "stock_top": jnp.where(draws, state.stock_top + state.pending, state.stock_top),
        "pending": jnp.where(lays, state.pending + 1, jnp.where(draws, 0, state.pending)),
        "drawn": set_seat(state.drawn, d.cur, refill, draws),
    }
    return move, stock


def stock_draw(stock: jax.Array, top: jax.Array, count: jax.Array) -> Bits:
    """The cards ``stock[top : top + count]`` (``count`` <= 5, ``top + count`` <= S), read from
    the window of the five cards from ``top`` (moved back to fit the stock): a seat draws back
    at most the five it laid away, so the set is built from five cards, not the whole stock (a
    reduction over the stock at every decision was an eighth of Auction's step)."""
    width = min(NUM_TRICKS, stock.shape[0])
    start = jnp.clip(top, 0, stock.shape[0] - width)
    window = jax.lax.dynamic_slice_in_dim(stock, start, width)
    k = start + jnp.arange(width)
    return bits.from_positions(jnp.where((k >= top) & (k < top + count), window, -1))


def announce(state: State, d: Decision, m: Move) -> tuple[Move, jax.Array]:
    """PHASE_ANNOUNCE: jink announcements from the eldest hand; the first one closes them.
    Also returns the jinker."""
    n = d.seats.shape[0]
    in_ann = state.phase == PHASE_ANNOUNCE
    announces = in_ann & (d.a == JINK)
    jinker = jnp.where(announces, d.cur, state.jinker)
    closes = announces | (d.cur == state.dealer)
    move = m._replace(
        phase=jnp.where(in_ann, jnp.where(closes, PHASE_PLAY, PHASE_ANNOUNCE), m.phase),
        player=jnp.where(in_ann, jnp.where(closes, d.eldest, tricks.next_seat(d.cur, n)), m.player),
    )
    return move, jinker


class TrickPlay(NamedTuple):
    """The current trick once the mover's card is on it (``play_to_trick``); int32[] each."""

    leading: jax.Array  # bool[]: the card leads the trick
    strength: jax.Array  # the card's trump strength, -1 if not a trump
    led_class: jax.Array
    best_power: jax.Array
    best_seat: jax.Array
    renege_level: jax.Array


def play_to_trick(state: State, d: Decision, trump: jax.Array, rules: FortyFiveRules) -> TrickPlay:
    """The mover plays card ``d.a`` to the current trick under ``trump``: the suit led, the
    winning card so far and the renege level (``rules.renege``: which trumps played count)."""
    a = d.a
    leading = d.cur == state.leader
    ts = trump_strength(a, jnp.maximum(trump, 0), rules)
    play = tricks.card_to_trick(a, ts, d.cur, leading, state, rules.renege)
    led_class, best_power, best_seat, level = play
    return TrickPlay(leading, ts, led_class, best_power, best_seat, level)


def revealed(
    state: State, d: Decision, trump: jax.Array, leading: jax.Array, rules: FortyFiveRules
) -> Bits:
    """``cannot_hold`` once the mover's card shows what it cannot hold (a play only)."""
    trump_ = jnp.maximum(trump, 0)
    shown = tricks.revealed_void(
        d.a,
        trump_set(trump_, rules),
        state.led_class,
        may_withhold(trump_, state.renege_level, rules),
        leading,
        rules.follow,
    )
    shown_me = (state.phase == PHASE_PLAY) & (d.seats == d.cur)
    return Bits(
        state.cannot_hold.lo | jnp.where(shown_me, shown.lo, jnp.uint32(0)),
        state.cannot_hold.hi | jnp.where(shown_me, shown.hi, jnp.uint32(0)),
    )


def play_card(
    state: State,
    d: Decision,
    m: Move,
    trump: jax.Array,
    jinker: jax.Array,
    rules: FortyFiveRules,
) -> tuple[Move, dict[str, Any], jax.Array, jax.Array]:
    """PHASE_PLAY: play a card to the trick.  Also returns the play's changes of the State,
    whether the hand is over and whether an announced jink failed."""
    n = d.seats.shape[0]
    in_play = state.phase == PHASE_PLAY
    trick = play_to_trick(state, d, trump, rules)
    higher = trick.strength > state.best_trump
    nxt = tricks.next_seat(d.cur, n)
    trick_over = in_play & (nxt == state.leader)
    trick_num = state.trick_num + trick_over.astype(jnp.int32)
    tricks_won = state.tricks_won + (trick_over & (d.seats == trick.best_seat)).astype(jnp.int32)
    hand_over = trick_over & (trick_num == NUM_TRICKS)
    jink_failed = jnp.bool_(False)
    if rules.jink == "announced":
        t = num_teams(n)
        jink_failed = trick_over & (jinker >= 0) & (trick.best_seat % t != jinker % t)
        hand_over = hand_over | jink_failed
    move = m._replace(
        hand=bits.where(in_play, d.hand.without(d.card), m.hand),
        phase=jnp.where(in_play, PHASE_PLAY, m.phase),
        player=jnp.where(in_play, jnp.where(trick_over, trick.best_seat, nxt), m.player),
        leader=jnp.where(trick_over, trick.best_seat, m.leader),
    )
    trick_cards = jnp.where(in_play & trick.leading, NO_CARD, state.trick_cards)

    def pick(play_value: jax.Array, other: jax.Array) -> jax.Array:
        return jnp.where(in_play, play_value, other)

    changes = {
        "tricks_won": tricks_won,
        "trick_cards": jnp.where(in_play & (d.seats == d.cur), d.a, trick_cards),
        "cannot_hold": revealed(state, d, trump, trick.leading, rules),
        "led_class": pick(trick.led_class, state.led_class),
        "best_power": pick(trick.best_power, state.best_power),
        "best_seat": pick(trick.best_seat, state.best_seat),
        "renege_level": pick(trick.renege_level, state.renege_level),
        "played": bits.where(in_play, state.played | d.card, state.played),
        "trick_num": trick_num,
        "trick_plays": jnp.where(
            in_play,
            state.trick_plays.at[jnp.minimum(state.trick_num, NUM_TRICKS - 1), d.cur].set(
                d.a.astype(jnp.int8)
            ),
            state.trick_plays,
        ),
        "best_trump": pick(jnp.maximum(state.best_trump, trick.strength), state.best_trump),
        "best_trump_seat": pick(
            jnp.where(higher, d.cur, state.best_trump_seat), state.best_trump_seat
        ),
    }
    return move, changes, hand_over, jink_failed
