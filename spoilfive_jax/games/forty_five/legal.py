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
    BID_15,
    BID_VALUES,
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
    _hi_bit,
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


def _bid_legal(state: State, num_players: int, rules: FortyFiveRules) -> Bits:
    cur = state.current_player
    lowest = min_bid(state.scores[team_of(num_players)][jnp.clip(cur, 0)], rules)
    is_dealer = cur == state.dealer
    forced = (state.bid == 0) & is_dealer  # everybody else passed: the dealer must bid
    hi = jnp.uint32(0)
    for i, v in enumerate(BID_VALUES):
        ok = jnp.where(forced, v == lowest, (v > state.bid) & (v >= lowest))
        hi = hi | jnp.where(ok, _hi_bit(BID_15 + i), np.uint32(0))
    hold = is_dealer & (state.bid > 0) & (state.bidder != state.dealer) & (state.bid >= lowest)
    hi = hi | jnp.where(hold, _hi_bit(HOLD), np.uint32(0))
    hi = hi | jnp.where(forced, np.uint32(0), _hi_bit(PASS))
    return Bits(jnp.uint32(0), hi)


def legal_set(state: State, rules: FortyFiveRules) -> Bits:
    """The legal action set of ``state.current_player``."""
    n = state.tricks_won.shape[0]
    hand = tricks.seat_bits(state.hands, state.current_player)
    leading = state.current_player == state.leader
    trump = jnp.maximum(state.trump, 0)
    out = legal_plays(hand, trump, state.led_class, state.renege_level, leading, rules)
    if rules.joker and not rules.auction:
        out = bits.where(state.phase == PHASE_JOKER, hand, out)
    if rules.robbing:
        rob = hand | Bits(*_PASS_SET) if rules.rob == "optional" else hand
        out = bits.where(state.phase == PHASE_ROB, rob, out)
    if rules.auction:
        out = bits.where(state.phase == PHASE_BID, _bid_legal(state, n, rules), out)
        out = bits.where(state.phase == PHASE_TRUMP, Bits(*_NAME_SET), out)
        can_discard = state.stock_top + state.pending < state.stock.shape[0]
        empty = Bits(jnp.uint32(0), jnp.uint32(0))
        discard = bits.where(can_discard, hand, empty) | Bits(*_PASS_SET)
        out = bits.where(state.phase == PHASE_DISCARD, discard, out)
    if rules.jink == "announced":
        out = bits.where(state.phase == PHASE_ANNOUNCE, Bits(*_ANNOUNCE_SET), out)
    return bits.where(state.phase == PHASE_DONE, Bits(*_ALL_ACTIONS), out)
