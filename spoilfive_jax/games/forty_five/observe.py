"""Observations of a Forty-Five hand as fixed float32 vectors (pure, jit/vmap-able, one hand).

``observe(state, player, rules)`` is what ``player`` knows at a real table.  Seats are RELATIVE
to the observer: relative seat ``r`` is absolute seat ``(player + r) % N`` (r = 0 the observer,
r = 1 the player on its left, who plays after it).  Cards are one-hot over the 53 card ids (52 is
the joker, always 0 without it).  N = num_players; size ``observation_size(N)`` = 242 + 116 N.

==============  ======  ===========================================================================
block           size    content
==============  ======  ===========================================================================
HAND            53      the observer's cards
DISCARDS        53      cards the observer laid away (rob, joker exchange, Auction discards)
PLAYED          53      every card played to a trick so far
TURNUP          53      the turn-up (zeros in Auction); public even once robbed
TRUMP           4       trump suit C D H S (zeros until named in Auction)
FLAGS           2       the turn-up was robbed; the joker was turned up (and went to the dealer)
PHASE           8       joker exchange, rob, bid, name trump, discard, announce, play, done
LED             5       the current trick was led with suit C D H S, or a trump; zeros at a lead
TRICK_NUM       6       tricks completed 0..5
BID             5       standing bid: none, 15, 20, 25, 30
TRICK           N x 53  the CURRENT trick by relative seat (empty at a lead)
LAST_TRICK      N x 53  the trick just completed, by relative seat, until the next lead
DEALER          N       relative seat of the dealer
LEADER          N       relative seat leading the current trick
TO_ACT          N       relative seat to act (zeros once the hand is over)
PARTNERS        N       relative seats on the observer's team (the observer included)
TRICKS_WON      N       tricks won / 5
SCORES          N       the game score of each relative seat's team / the target
BIDDER          N       relative seat holding the bid (Auction)
PASSED          N       relative seats out of the auction
JINKER          N       relative seat that announced a jink
BEST_TRUMP      N       relative seat that played the highest trump so far
==============  ======  ===========================================================================

Hidden from ``observe``: the other hands, the other seats' discards and the stock.

``current_observation(state)`` is ``observe(state, current_player, state.rules)`` (seat 0's view
once the hand is over) for any leading batch dimensions.

``observe_full(state, rules)`` -> float32[``full_observation_size(N)``] = observation_size(N)
+ 106 N + 106, the perfect-information view: ``observe`` from seat 0 (its HAND and DISCARDS are
seat 0's), then

==============  ======  ===========================================================================
HANDS           N x 53  every seat's hand, by ABSOLUTE seat
ALL_DISCARDS    N x 53  the cards each seat laid away, by absolute seat
STOCK           53      cards held by nobody: not in a hand, not laid away, not played, not the
                        turn-up (nor the turned-up joker); in Auction the cards still to be drawn
STOCK_ORDER     53      Auction: (k + 1) / S for the card drawn k-th from now (S = the stock's
                        length), 0 for every other card; zeros outside Auction
==============  ======  ===========================================================================
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.game as game
from spoilfive_jax.core import bits
from spoilfive_jax.core.tricks import seat_bits
from spoilfive_jax.games.forty_five.rules import FortyFiveRules

F32 = jnp.float32
NUM_CARD_IDS = game.NUM_CARD_IDS
FIXED_SIZE = 4 * NUM_CARD_IDS + 4 + 2 + 8 + 5 + 6 + 5  # 242


def observation_size(num_players: int) -> int:
    return FIXED_SIZE + 2 * NUM_CARD_IDS * num_players + 10 * num_players


_FIXED_BLOCKS = (
    ("HAND", NUM_CARD_IDS),
    ("DISCARDS", NUM_CARD_IDS),
    ("PLAYED", NUM_CARD_IDS),
    ("TURNUP", NUM_CARD_IDS),
    ("TRUMP", 4),
    ("FLAGS", 2),
    ("PHASE", 8),
    ("LED", 5),
    ("TRICK_NUM", 6),
    ("BID", 5),
)
_SEAT_BLOCKS = (
    "DEALER",
    "LEADER",
    "TO_ACT",
    "PARTNERS",
    "TRICKS_WON",
    "SCORES",
    "BIDDER",
    "PASSED",
    "JINKER",
    "BEST_TRUMP",
)


def layout(num_players: int) -> dict[str, tuple[int, int]]:
    """Each block of the module table: name -> (offset, size) in ``observe``'s vector."""
    n = num_players
    sizes = [
        *_FIXED_BLOCKS,
        ("TRICK", NUM_CARD_IDS * n),
        ("LAST_TRICK", NUM_CARD_IDS * n),
        *((name, n) for name in _SEAT_BLOCKS),
    ]
    out, offset = {}, 0
    for name, size in sizes:
        out[name] = (offset, size)
        offset += size
    return out


def observe(state: game.State, player: jax.Array, rules: FortyFiveRules) -> jax.Array:
    """float32[observation_size(N)]: ``player``'s view of one hand (see the module table)."""
    n = state.tricks_won.shape[0]
    p = jnp.asarray(player, jnp.int32)
    rel = (jnp.arange(n) + p) % n  # rel[r]: the absolute seat r places left of the observer
    ids = jnp.arange(NUM_CARD_IDS)

    def card_set(s: bits.Bits) -> jax.Array:
        return bits.to_bool(s, NUM_CARD_IDS).astype(F32)

    def seat(s: jax.Array) -> jax.Array:
        return ((s >= 0) & (rel == s)).astype(F32)

    def one_hot(value: jax.Array, size: int) -> jax.Array:
        return (jnp.arange(size) == value).astype(F32)

    at_lead = (state.current_player == state.leader) | state.terminated
    in_trick = (state.phase == game.PHASE_PLAY) & ~at_lead
    shown = state.trick_cards[rel]
    trick = jnp.where(in_trick, shown, game.NO_CARD)
    last = jnp.where(at_lead & (state.trick_num > 0), shown, game.NO_CARD)
    team = jnp.asarray(game.team_of(n))
    bid_level = jnp.where(state.bid > 0, (state.bid - 10) // 5, 0)
    parts = [
        card_set(seat_bits(state.hands, p)),
        card_set(seat_bits(state.discards, p)),
        card_set(state.played),
        one_hot(state.turnup, NUM_CARD_IDS),
        one_hot(state.trump, 4),
        jnp.stack([state.robbed, state.joker_up]).astype(F32),
        one_hot(state.phase, 8),
        one_hot(jnp.where(in_trick, state.led_class, -1), 5),
        one_hot(state.trick_num, 6),
        one_hot(bid_level, 5),
        (trick[:, None] == ids[None, :]).astype(F32).reshape(-1),
        (last[:, None] == ids[None, :]).astype(F32).reshape(-1),
        seat(state.dealer),
        seat(state.leader),
        seat(state.current_player),
        (team[rel] == team[p]).astype(F32),
        state.tricks_won[rel].astype(F32) / 5.0,
        state.scores[team][rel].astype(F32) / rules.goal,
        seat(state.bidder),
        state.passed[rel].astype(F32),
        seat(state.jinker),
        seat(state.best_trump_seat),
    ]
    return jnp.concatenate(parts)


def current_observation(state: game.State) -> jax.Array:
    """``observe(state, current_player, state.rules)`` for a state with any leading batch
    dimensions; seat 0's view once the hand is over."""

    def one(s: game.State, p: jax.Array) -> jax.Array:
        return observe(s, p, state.rules)

    fn = one
    for _ in range(np.ndim(state.current_player)):
        fn = jax.vmap(fn)
    return fn(state, jnp.maximum(state.current_player, 0))


def full_observation_size(num_players: int) -> int:
    return observation_size(num_players) + 2 * NUM_CARD_IDS * num_players + 2 * NUM_CARD_IDS


def observe_full(state: game.State, rules: FortyFiveRules) -> jax.Array:
    """float32[full_observation_size(N)]: the perfect-information view of one hand (see the
    module docstring)."""
    ids = jnp.arange(NUM_CARD_IDS)
    hands = bits.to_bool(state.hands, NUM_CARD_IDS)  # [N, 53]
    discards = bits.to_bool(state.discards, NUM_CARD_IDS)  # [N, 53]
    played = bits.to_bool(state.played, NUM_CARD_IDS)
    in_deck = ids < rules.deck_size
    up = (ids == state.turnup) | ((ids == game.JOKER) & state.joker_up)
    free = in_deck & ~hands.any(0) & ~discards.any(0) & ~played & ~up
    size = state.stock.shape[0]
    if size:
        k = jnp.arange(size)
        left = k >= state.stock_top
        rank = jnp.where(left, (k - state.stock_top + 1) / size, 0.0).astype(F32)
        order = (
            jnp.zeros(NUM_CARD_IDS, F32)
            .at[jnp.clip(state.stock, 0, NUM_CARD_IDS - 1)]
            .max(jnp.where(state.stock >= 0, rank, 0.0))
        )
    else:
        order = jnp.zeros(NUM_CARD_IDS, F32)
    return jnp.concatenate(
        [
            observe(state, jnp.int32(0), rules),
            hands.astype(F32).reshape(-1),
            discards.astype(F32).reshape(-1),
            free.astype(F32),
            order,
        ]
    )
