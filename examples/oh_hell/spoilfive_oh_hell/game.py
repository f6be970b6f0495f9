"""The pure rules of one hand of Oh Hell, as OpenSpiel's ``oh_hell`` plays it (jittable).

Everything is for ONE hand (batch it with ``jax.vmap``); ``num_players`` and the rules are
static, every other value is an array.

- The deal: card i of the deal goes to seat ``i % N`` (seat 0 first, whoever deals), then one
  card is turned up: its suit is trump.
- Bidding: from the seat left of the dealer, clockwise, each seat bids 0..T tricks; the dealer
  (the last to bid) may not bid what would make the bids add up to T.
- Play: the seat left of the dealer leads the first trick; a seat holding the suit led must
  play one of it, otherwise anything; the highest trump wins, else the highest card of the
  suit led; the winner leads the next trick.
- Score (``hand_score``): ``points_per_trick`` a trick taken, and ``BONUS`` for taking exactly
  the bid; with ``off_bid_penalty`` a missed bid scores ``-points_per_trick * |tricks - bid|``.
- An illegal action: the hand ends at once, the offender scores ``-rules.illegal_penalty``
  (worse than any hand can score) and the others 0 (the core's default end,
  ``core.generic.end_illegal``, which reads the rules' penalty).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core import record
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.deal import shuffled_deck
from spoilfive_jax.core.tricks import legal_follow, next_seat, seat_bits
from spoilfive_oh_hell.rules import BID, BONUS, NUM_CARDS, NUM_SUITS, OhHellRules
from spoilfive_oh_hell.state import State

PHASE_BID, PHASE_PLAY, PHASE_DONE = 0, 1, 2
PHASE_NAMES = ("bid", "play", "done")
NO_CARD = -1

_SUIT_SETS = tuple(bits.const(range(s, NUM_CARDS, NUM_SUITS)) for s in range(NUM_SUITS))
_SUIT_LO = np.array([s.lo for s in _SUIT_SETS], np.uint32)
_SUIT_HI = np.array([s.hi for s in _SUIT_SETS], np.uint32)


def num_actions(rules: OhHellRules) -> int:
    """53 + T: the cards and the bids 0..T (OpenSpiel's ``NumDistinctActions``)."""
    return BID + rules.num_tricks + 1


def all_actions(rules: OhHellRules) -> Bits:
    return bits.const(range(num_actions(rules)))


def suit_set(suit: jax.Array) -> Bits:
    """Every card of ``suit`` (0..3; clipped)."""
    s = jnp.clip(suit, 0, NUM_SUITS - 1)
    return Bits(jnp.asarray(_SUIT_LO)[s], jnp.asarray(_SUIT_HI)[s])


def _zero() -> Bits:
    return Bits(jnp.uint32(0), jnp.uint32(0))


# --------------------------------------------------------------------------- a new hand


def new_hand(
    hands: jax.Array, trump_card: jax.Array, dealer: jax.Array, n: int, rules: OhHellRules
) -> State:
    """The state before the first bid: ``hands`` int32[N, T] card ids by seat."""
    i32 = jnp.int32
    dealer = jnp.asarray(dealer, i32)
    held = bits.from_positions(jnp.asarray(hands, i32))
    state = State(
        hands=Bits(held.lo.astype(jnp.uint32), held.hi.astype(jnp.uint32)),
        played=_zero(),
        cannot_hold=Bits(jnp.zeros(n, jnp.uint32), jnp.zeros(n, jnp.uint32)),
        trump_card=jnp.asarray(trump_card, i32),
        dealer=dealer,
        bids=jnp.full(n, -1, i32),
        trick_cards=jnp.full(n, NO_CARD, i32),
        last_trick=jnp.full(n, NO_CARD, i32),
        leader=next_seat(dealer, n).astype(i32),
        led_suit=i32(-1),
        best_seat=i32(-1),
        best_card=i32(NO_CARD),
        tricks_won=jnp.zeros(n, i32),
        current_player=next_seat(dealer, n).astype(i32),
        phase=i32(PHASE_BID),
        terminated=jnp.bool_(False),
        truncated=jnp.bool_(False),
        illegal=jnp.bool_(False),
        rewards=jnp.zeros(n, jnp.float32),
        legal_set=_zero(),
        _step_count=i32(0),
        moves=record.empty(n * (rules.num_tricks + 1)),
        num_actions=num_actions(rules),
    )
    return with_legal(state, rules)


def deal_random(key: jax.Array, dealer: jax.Array, n: int, rules: OhHellRules) -> State:
    """A uniformly random deal: the first ``N*T + 1`` cards of a uniform shuffle
    (``core.deal.shuffled_deck``: each card drawn from those left by a hash of ``key``'s words,
    no threefry), dealt round from seat 0 as OpenSpiel deals, the last one turned up."""
    t = rules.num_tricks
    deck = shuffled_deck(key, n * t + 1, NUM_CARDS)
    hands = deck[: n * t].reshape(t, n).T  # card i to seat i % N
    return new_hand(hands, deck[n * t], dealer, n, rules)


# --------------------------------------------------------------------------- legality


def bid_set(state: State, rules: OhHellRules) -> Bits:
    """Bids 0..T, less the one that would make the bids add up to T when the dealer (the last
    to bid) is to bid."""
    t = rules.num_tricks
    every = bits.const(range(BID, BID + t + 1))
    forbidden = t - jnp.maximum(state.bids, 0).sum()
    last = state.current_player == state.dealer
    drop = last & (forbidden >= 0) & (forbidden <= t)
    return bits.where(drop, Bits(*every).without(bits.bit(BID + jnp.clip(forbidden, 0, t))), every)


def play_set(hand: Bits, led_suit: jax.Array) -> Bits:
    """The cards of ``hand`` that may be played: the suit led if it holds any, else any.  The
    kit's rule of following (``core.tricks.legal_follow``) with no trump privilege: Oh Hell's
    trumps are only the strongest suit, so a seat holding the suit led may not trump."""
    none = _zero()
    never = jnp.bool_(False)
    return legal_follow(hand, none, suit_set(led_suit), none, led_suit < 0, never, "traditional")


def legal_set(state: State, rules: OhHellRules) -> Bits:
    """The legal action set of ``state.current_player`` (every action once the hand is over)."""
    hand = seat_bits(state.hands, jnp.maximum(state.current_player, 0))
    out = bits.where(
        state.phase == PHASE_BID, bid_set(state, rules), play_set(hand, state.led_suit)
    )
    return bits.where(state.phase == PHASE_DONE, all_actions(rules), out)


def with_legal(state: State, rules: OhHellRules) -> State:
    """``state`` with ``legal_set`` computed from its other fields (the step's ``_settle``)."""
    s = legal_set(state, rules)
    return state.replace(
        legal_set=Bits(jnp.asarray(s.lo, jnp.uint32), jnp.asarray(s.hi, jnp.uint32))
    )


# --------------------------------------------------------------------------- a decision


def beats(card: jax.Array, best: jax.Array, trump: jax.Array) -> jax.Array:
    """bool: ``card`` takes the trick from ``best`` (a higher card of its suit, or the first
    trump on a plain card)."""
    same = card % NUM_SUITS == best % NUM_SUITS
    return (same & (card > best)) | ((card % NUM_SUITS == trump) & (best % NUM_SUITS != trump))


def hand_score(tricks_won: jax.Array, bids: jax.Array, rules: OhHellRules) -> jax.Array:
    """float32[N]: the score of a finished hand (OpenSpiel's ``ComputeScore``)."""
    ppt = rules.points_per_trick
    made = tricks_won == bids
    if rules.off_bid_penalty:
        score = jnp.where(made, ppt * tricks_won + BONUS, -ppt * jnp.abs(tricks_won - bids))
    else:
        score = ppt * tricks_won + jnp.where(made, BONUS, 0)
    return score.astype(jnp.float32)


def apply_action(state: State, action: jax.Array, rules: OhHellRules) -> State:
    """The state after a LEGAL ``action`` of ``current_player`` in a live hand (both phases'
    outcomes computed and the right one selected, so it vmaps over mixed phases).  The legal
    set is left stale: ``with_legal`` refreshes it."""
    n = state.num_players
    seats = jnp.arange(n)
    cur = state.current_player
    me = seats == cur
    a = jnp.asarray(action, jnp.int32)
    bidding = state.phase == PHASE_BID
    nxt = next_seat(cur, n)

    # --- A bid: the next seat bids; once the dealer has bid, the eldest leads.
    bids = jnp.where(bidding & me, a - BID, state.bids)
    bids_done = bidding & (cur == state.dealer)

    # --- A card to the trick.
    playing = ~bidding
    card = jnp.clip(a, 0, NUM_CARDS - 1)
    suit = card % NUM_SUITS
    leading = state.best_seat < 0
    trump = state.trump_card % NUM_SUITS
    takes = leading | beats(card, state.best_card, trump)
    best_seat = jnp.where(takes, cur, state.best_seat)
    best_card = jnp.where(takes, card, state.best_card)
    trick_cards = jnp.where(me, card, state.trick_cards)
    trick_over = playing & (nxt == state.leader)
    hand_over = trick_over & (bits.count(state.played) + 1 == n * rules.num_tricks)
    tricks_won = state.tricks_won + (trick_over & (seats == best_seat)).astype(jnp.int32)
    void = ~leading & (suit != state.led_suit)  # shows it holds none of the suit led
    shown = bits.where(void, suit_set(state.led_suit), _zero())
    gone = bits.bit(card)

    def when_playing(mask: jax.Array) -> jax.Array:
        return jnp.where(playing & mask, jnp.uint32(0xFFFFFFFF), jnp.uint32(0))

    drop = when_playing(me)
    hands = Bits(state.hands.lo & ~(drop & gone.lo), state.hands.hi & ~(drop & gone.hi))
    cannot_hold = Bits(
        state.cannot_hold.lo | (drop & shown.lo), state.cannot_hold.hi | (drop & shown.hi)
    )
    next_player = jnp.where(trick_over, best_seat, nxt)
    next_player = jnp.where(hand_over, -1, next_player)

    def pick(play_value: jax.Array, bid_value: jax.Array | int) -> jax.Array:
        return jnp.where(playing, play_value, bid_value)

    clear = trick_over
    return state.replace(
        hands=hands,
        played=bits.where(playing, state.played | gone, state.played),
        cannot_hold=cannot_hold,
        bids=bids,
        trick_cards=pick(jnp.where(clear, NO_CARD, trick_cards), state.trick_cards),
        last_trick=jnp.where(clear, trick_cards, state.last_trick),
        leader=pick(jnp.where(clear, best_seat, state.leader), state.leader).astype(jnp.int32),
        led_suit=pick(jnp.where(clear, -1, jnp.where(leading, suit, state.led_suit)), -1),
        best_seat=pick(jnp.where(clear, -1, best_seat), -1).astype(jnp.int32),
        best_card=pick(jnp.where(clear, NO_CARD, best_card), NO_CARD).astype(jnp.int32),
        tricks_won=tricks_won,
        current_player=pick(next_player, nxt).astype(jnp.int32),
        phase=jnp.where(
            hand_over, PHASE_DONE, jnp.where(bids_done | playing, PHASE_PLAY, PHASE_BID)
        ).astype(jnp.int32),
        terminated=hand_over,
        rewards=jnp.where(hand_over, hand_score(tricks_won, bids, rules), 0.0).astype(jnp.float32),
        _step_count=state._step_count + 1,
    )


def held(state: State, seat: jax.Array) -> Bits:
    """The cards ``seat`` holds now."""
    return seat_bits(state.hands, seat)
