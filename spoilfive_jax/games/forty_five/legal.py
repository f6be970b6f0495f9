"""The Forty-Five family's cards and legal sets (docs/rules.md#the-forty-five-family): trump
strengths with the joker, the trumps, following suit and reneging, the bids a seat may make and
the legal action set of the player to act (re-exported by ``game``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from spoilfive_jax.core import bits, ranking, tricks
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.games.forty_five.rules import MIN_BID_SCORE, FortyFiveRules
from spoilfive_jax.games.forty_five.state import (
    _ALL_ACTIONS,
    _ANNOUNCE_SET,
    _JOKER_SET,
    _JOKER_STRENGTH,
    _NAME_SET,
    _PASS_SET,
    HOLD,
    JOKER,
    PASS,
    PHASE_ANNOUNCE,
    PHASE_BID,
    PHASE_DISCARD,
    PHASE_DONE,
    PHASE_JOKER,
    PHASE_ROB,
    PHASE_TRUMP,
    State,
    team_of,
    top_trump_strengths,
)

# --------------------------------------------------------------------------- cards


def trump_strength(card: ArrayLike, trump: jax.Array, rules: FortyFiveRules) -> jax.Array:
    """int32: strength of ``card`` as a trump (-1 if not a trump); the joker always is one."""
    c = jnp.asarray(card, jnp.int32)
    ts = ranking.trump_strength(c, trump)  # the joker (52) is in no suit: -1 here
    if not rules.joker:
        return ts
    k = _JOKER_STRENGTH[rules.joker_rank]
    return jnp.where(c == JOKER, k, jnp.where(ts >= k, ts + 1, ts))


def trump_set(trump: jax.Array, rules: FortyFiveRules) -> Bits:
    """The trumps: the 13 cards of the trump suit, A♥ and (with the joker) the joker."""
    out = ranking.trump_set(trump)
    return out | Bits(*_JOKER_SET) if rules.joker else out


def legal_plays(
    hand: Bits,
    trump: jax.Array,
    led_class: jax.Array,
    renege_level: jax.Array,
    leading: jax.Array,
    rules: FortyFiveRules,
) -> Bits:
    """The cards of ``hand`` that may be played (docs/rules.md#reneging with the joker as a top
    trump)."""
    trumps = trump_set(trump, rules)
    return tricks.follow_plays(
        hand, trumps, led_class, may_withhold(trump, renege_level, rules), leading, rules.follow
    )


def may_withhold(trump: jax.Array, renege_level: jax.Array, rules: FortyFiveRules) -> Bits:
    """The top trumps (5, J of trumps, A♥, the joker) stronger than ``renege_level``: those a
    player may withhold from a trump lead (``core.tricks.top_trumps`` and the joker)."""
    tops = top_trump_strengths(rules)
    out = tricks.top_trumps(trump, renege_level, tops["five"], tops["jack"], tops["ace_hearts"])
    if rules.joker:
        zero = Bits(jnp.uint32(0), jnp.uint32(0))
        out = out | bits.where(renege_level < tops["joker"], Bits(*_JOKER_SET), zero)
    return out


# --------------------------------------------------------------------------- legality


def min_bid(team_score: jax.Array, rules: FortyFiveRules) -> jax.Array:
    """int32: the lowest bid a team with ``team_score`` may make (15, or 20 at 100 or more)."""
    if not rules.min_bid_at_100:
        return jnp.int32(15)
    return jnp.where(team_score >= MIN_BID_SCORE, 20, 15).astype(jnp.int32)


# A bid as a code: an action less PASS (0 PASS, 1..4 BID_15..BID_30, 5 HOLD); bit c of a set
# of codes is action PASS + c.
CODE_PASS, CODE_HOLD = 0, HOLD - PASS
_RAISE_CODES = 0x1E  # codes 1..4


def bid_code(value: jax.Array) -> jax.Array:
    """int32: the code of a bid's value (15..30 -> 1..4; 0, no bid, -> 0)."""
    return jnp.where(value > 0, (value - 10) // 5, 0).astype(jnp.int32)


def bid_codes(
    bid: jax.Array, bidder: jax.Array, cur: jax.Array, dealer: jax.Array, lowest: ArrayLike
) -> jax.Array:
    """uint32: the bids ``cur`` may make, as codes (docs/rules.md, the auction): a raise of the
    standing ``bid`` (its code, 0 if none) to ``lowest`` (the lowest code ``cur`` may bid,
    ``min_bid``) or more; the dealer may hold a standing bid another seat made (at ``lowest``
    or more) and must bid ``lowest`` when everybody else passed; every other seat may pass.
    One rule for the public step (``legal_set``) and the kernel (``fast``), any shape."""
    lowest = jnp.asarray(lowest)
    low = lowest.astype(jnp.uint32)
    is_dealer = cur == dealer
    forced = (bid == 0) & is_dealer  # everybody else passed: the dealer bids the lowest
    raises = np.uint32(_RAISE_CODES) & ~((np.uint32(2) << bid.astype(jnp.uint32)) - 1)
    raises = jnp.where(forced, np.uint32(1) << low, raises & ~((np.uint32(1) << low) - 1))
    hold = is_dealer & (bid > 0) & (bidder != dealer) & (bid >= lowest)
    return (
        raises
        | jnp.where(hold, np.uint32(1 << CODE_HOLD), np.uint32(0))
        | jnp.where(forced, np.uint32(0), np.uint32(1 << CODE_PASS))
    )


def auction_turn(
    passed: jax.Array, bid: jax.Array, cur: jax.Array, num_players: int
) -> tuple[jax.Array, jax.Array]:
    """(the auction is over bool, the next seat in it int32) after ``cur``'s bid: ``passed``
    int32, bit s set once seat s passed (out of the auction for good), ``bid`` the standing
    bid (0: none).  It ends when one seat is left in and a bid stands; else the turn passes to
    the next seat round the table still in.  One rule for the public step and the kernel."""
    n, every = num_players, (1 << num_players) - 1
    active = every & ~passed
    over = (jax.lax.population_count(active.astype(jnp.uint32)) == 1) & (bid > 0)
    ahead = ((active >> (cur + 1)) | (active << (n - 1 - cur))) & every  # bit k: seat cur + 1 + k
    ahead = ahead.astype(jnp.uint32)
    step = jax.lax.population_count((ahead & -ahead) - 1).astype(jnp.int32)  # its lowest bit
    return over, (cur + 1 + step) % n


def rob_choices(hand: Bits, pass_: Bits, rules: FortyFiveRules) -> Bits:
    """The robber's choices: any card of ``hand`` to lay away for the turn-up, and ``pass_``
    (PASS in the numbering of ``hand``) where robbing is optional (docs/rules.md, robbing the
    pack).  One rule for the public step (card ids) and the kernel (strength positions)."""
    return hand | pass_ if rules.rob == "optional" else hand


def discard_choices(hand: Bits, pass_: Bits, can_replace: jax.Array) -> Bits:
    """A discarding seat's choices (the auction's discard and draw): a card of ``hand`` to lay
    away while the stock ``can_replace`` one more, and ``pass_`` (DONE: draw back to five).
    One rule for the public step and the kernel, in either numbering."""
    return bits.where(can_replace, hand, bits.EMPTY) | pass_


def _bid_legal(state: State, num_players: int, rules: FortyFiveRules) -> Bits:
    cur = state.current_player
    lowest = min_bid(state.scores[team_of(num_players)][jnp.clip(cur, 0)], rules)
    codes = bid_codes(bid_code(state.bid), state.bidder, cur, state.dealer, bid_code(lowest))
    return Bits(jnp.uint32(0), codes << np.uint32(PASS - 32))


def _hand_and_plays(state: State, rules: FortyFiveRules) -> tuple[Bits, Bits]:
    """(the hand of ``state.current_player``, the cards of it it may play to the trick)."""
    hand = tricks.seat_bits(state.hands, state.current_player)
    leading = state.current_player == state.leader
    trump = jnp.maximum(state.trump, 0)
    return hand, legal_plays(hand, trump, state.led_class, state.renege_level, leading, rules)


def _or_every_action(state: State, out: Bits) -> Bits:
    return bits.where(state.phase == PHASE_DONE, Bits(*_ALL_ACTIONS), out)


def play_legal_set(state: State, rules: FortyFiveRules) -> Bits:
    """``legal_set`` of a state in the play or a finished hand (every action), without the
    phases before the first lead: the set the family's view of a hand in play holds."""
    return _or_every_action(state, _hand_and_plays(state, rules)[1])


def legal_set(state: State, rules: FortyFiveRules) -> Bits:
    """The legal action set of ``state.current_player``."""
    n = state.tricks_won.shape[0]
    hand, out = _hand_and_plays(state, rules)
    if rules.joker and not rules.auction:
        out = bits.where(state.phase == PHASE_JOKER, hand, out)
    if rules.robbing:
        rob = rob_choices(hand, Bits(*_PASS_SET), rules)
        out = bits.where(state.phase == PHASE_ROB, rob, out)
    if rules.auction:
        out = bits.where(state.phase == PHASE_BID, _bid_legal(state, n, rules), out)
        out = bits.where(state.phase == PHASE_TRUMP, Bits(*_NAME_SET), out)
        can_discard = state.stock_top + state.pending < state.stock.shape[0]
        discard = discard_choices(hand, Bits(*_PASS_SET), can_discard)
        out = bits.where(state.phase == PHASE_DISCARD, discard, out)
    if rules.jink == "announced":
        out = bits.where(state.phase == PHASE_ANNOUNCE, Bits(*_ANNOUNCE_SET), out)
    return _or_every_action(state, out)
