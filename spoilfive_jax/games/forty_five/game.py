"""The pure rules of one hand of the Forty-Five family (docs/rules.md#the-forty-five-family) as
jittable array functions.

Written for ONE hand and batched with ``jax.vmap``, like ``games.spoil_five.game``, on the card
mechanics both games share in ``core`` (trump and plain strengths, suit sets, following suit and
reneging, the deal order, bitsets).  ``num_players`` (N) and ``rules`` are static; everything
else is an array.  Card sets are 64-position bitsets
(``bits.Bits``): positions 0..51 are the cards, 52 is the joker; action sets use 0..63.

A ``State`` is one hand plus the game around it: the teams' running ``scores`` and, once the
hand is over, the game result.  What the reward fields hold:

- ``rewards`` float32[N]: on the step that ends a hand, the points that hand scored for each
  seat's team (each seat gets its team's points: 5 a trick and the best-trump bonus, doubled for
  a successful jink, ``-bid`` for a failed auction bid, ``-illegal_penalty`` for an illegal
  action); zero on every other step.
- ``game_rewards`` float32[N]: on the step that ends the GAME (a team at the target, a failed
  announced jink, a ``wins_game`` slam), +1 for the seats of the winning team and -1 for every
  other seat; zero on every other step.
- ``scores`` int32[T]: the teams' game scores, before this hand while it is played and
  including it once ``terminated`` (T = ``num_teams(N)``; seat s plays for team ``s % T``).

The module is in three parts: ``state`` (action ids, phases, the ``State`` pytree and static
sizes, all re-exported here), this module (legal sets, the deal, a decision) and ``scoring``
(a hand's points and the end of a game).

Phases (``PHASE_*``): joker exchange (the joker was turned up: the dealer discards a card and
takes it), rob, auction bidding, naming trump, discard-and-draw, jink announcements, play, done.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from spoilfive_jax.core import bits, ranking, tricks
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.deal import draw_deck, hands_from_deck, rob_seat
from spoilfive_jax.games.forty_five.rules import MIN_BID_SCORE, FortyFiveRules, num_teams
from spoilfive_jax.games.forty_five.scoring import _finish
from spoilfive_jax.games.forty_five.scoring import counting_rank as counting_rank
from spoilfive_jax.games.forty_five.scoring import game_result as game_result
from spoilfive_jax.games.forty_five.scoring import hand_points as hand_points
from spoilfive_jax.games.forty_five.scoring import team_totals as team_totals
from spoilfive_jax.games.forty_five.state import (
    _ALL_ACTIONS,
    _ANNOUNCE_SET,
    _JOKER_SET,
    _JOKER_STRENGTH,
    _NAME_SET,
    _PASS_SET,
    _TRUMP_POWER,
    _hi_bit,
)
from spoilfive_jax.games.forty_five.state import BID_15 as BID_15
from spoilfive_jax.games.forty_five.state import BID_20 as BID_20
from spoilfive_jax.games.forty_five.state import BID_25 as BID_25
from spoilfive_jax.games.forty_five.state import BID_30 as BID_30
from spoilfive_jax.games.forty_five.state import BID_VALUES as BID_VALUES
from spoilfive_jax.games.forty_five.state import DONE as DONE
from spoilfive_jax.games.forty_five.state import HOLD as HOLD
from spoilfive_jax.games.forty_five.state import JINK as JINK
from spoilfive_jax.games.forty_five.state import JOKER as JOKER
from spoilfive_jax.games.forty_five.state import NAME_CLUBS as NAME_CLUBS
from spoilfive_jax.games.forty_five.state import NAME_DIAMONDS as NAME_DIAMONDS
from spoilfive_jax.games.forty_five.state import NAME_HEARTS as NAME_HEARTS
from spoilfive_jax.games.forty_five.state import NAME_SPADES as NAME_SPADES
from spoilfive_jax.games.forty_five.state import NO_CARD as NO_CARD
from spoilfive_jax.games.forty_five.state import NO_JINK as NO_JINK
from spoilfive_jax.games.forty_five.state import NUM_ACTIONS as NUM_ACTIONS
from spoilfive_jax.games.forty_five.state import NUM_CARD_IDS as NUM_CARD_IDS
from spoilfive_jax.games.forty_five.state import NUM_TRICKS as NUM_TRICKS
from spoilfive_jax.games.forty_five.state import PASS as PASS
from spoilfive_jax.games.forty_five.state import PHASE_ANNOUNCE as PHASE_ANNOUNCE
from spoilfive_jax.games.forty_five.state import PHASE_BID as PHASE_BID
from spoilfive_jax.games.forty_five.state import PHASE_DISCARD as PHASE_DISCARD
from spoilfive_jax.games.forty_five.state import PHASE_DONE as PHASE_DONE
from spoilfive_jax.games.forty_five.state import PHASE_JOKER as PHASE_JOKER
from spoilfive_jax.games.forty_five.state import PHASE_NAMES as PHASE_NAMES
from spoilfive_jax.games.forty_five.state import PHASE_PLAY as PHASE_PLAY
from spoilfive_jax.games.forty_five.state import PHASE_ROB as PHASE_ROB
from spoilfive_jax.games.forty_five.state import PHASE_TRUMP as PHASE_TRUMP
from spoilfive_jax.games.forty_five.state import POINTS_PER_TRICK as POINTS_PER_TRICK
from spoilfive_jax.games.forty_five.state import TRUMP_CLASS as TRUMP_CLASS
from spoilfive_jax.games.forty_five.state import State as State
from spoilfive_jax.games.forty_five.state import deck_prefix as deck_prefix
from spoilfive_jax.games.forty_five.state import max_decisions as max_decisions
from spoilfive_jax.games.forty_five.state import stock_size as stock_size
from spoilfive_jax.games.forty_five.state import team_matrix as team_matrix
from spoilfive_jax.games.forty_five.state import team_of as team_of
from spoilfive_jax.games.forty_five.state import top_trump_strengths as top_trump_strengths

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


# --------------------------------------------------------------------------- a new hand


def _robber(hands: Bits, turnup: jax.Array, dealer: jax.Array, rules: FortyFiveRules) -> jax.Array:
    """Seat entitled to rob: the dealer if an ace is turned up, else the holder of the ace of
    trumps (A♥ when hearts), else -1 (docs/rules.md#robbing-the-pack)."""
    if not rules.robbing:
        return jnp.int32(-1)
    return rob_seat(hands, turnup, dealer)


def _after_deal(state: State, rules: FortyFiveRules) -> tuple[jax.Array, jax.Array]:
    """(phase, player) once the turn-up business is over: announcements or the first lead."""
    eldest = tricks.next_seat(state.dealer, state.tricks_won.shape[0])
    phase = PHASE_ANNOUNCE if rules.jink == "announced" else PHASE_PLAY
    return jnp.int32(phase), eldest


def new_hand(
    hands: Bits,
    turnup: jax.Array,
    next_card: jax.Array,
    stock: jax.Array,
    dealer: jax.Array,
    scores: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
) -> State:
    """The state before the first decision.

    hands: uint32[N] x 2 card sets by seat.  turnup: the card turned up (ignored in Auction);
    next_card: the card turned up instead when ``turnup`` is the joker (joker games only);
    stock: int32[S] the Auction stock, top first; scores: int32[T] the game scores so far.
    """
    n = num_players
    i32 = jnp.int32
    dealer = jnp.asarray(dealer, i32)
    eldest = tricks.next_seat(dealer, n)
    hands = Bits(hands.lo.astype(jnp.uint32), hands.hi.astype(jnp.uint32))
    if rules.auction:
        turnup = i32(-1)
        joker_up = jnp.bool_(False)
        trump = i32(-1)
        robber = i32(-1)
        phase, player = i32(PHASE_BID), eldest
    else:
        turnup = jnp.asarray(turnup, i32)
        joker_up = (turnup == JOKER) if rules.joker else jnp.bool_(False)
        if rules.joker:
            turnup = jnp.where(joker_up, jnp.asarray(next_card, i32), turnup)
        trump = turnup // 13
        robber = _robber(hands, turnup, dealer, rules)
        robber = jnp.where(joker_up, -1, robber)  # known once the dealer has exchanged
        phase = jnp.where(robber >= 0, PHASE_ROB, PHASE_ANNOUNCE)
        if rules.jink != "announced":
            phase = jnp.where(robber >= 0, PHASE_ROB, PHASE_PLAY)
        player = jnp.where(robber >= 0, robber, eldest)
        phase = jnp.where(joker_up, PHASE_JOKER, phase).astype(i32)
        player = jnp.where(joker_up, dealer, player).astype(i32)
    state = State(
        current_player=player,
        terminated=jnp.bool_(False),
        truncated=jnp.bool_(False),
        rewards=jnp.zeros(n, jnp.float32),
        game_rewards=jnp.zeros(n, jnp.float32),
        tricks_won=jnp.zeros(n, i32),
        hands=hands,
        legal_set=Bits(jnp.uint32(0), jnp.uint32(0)),
        phase=phase,
        dealer=dealer,
        turnup=turnup,
        joker_up=joker_up,
        trump=trump,
        robber=robber,
        robbed=jnp.bool_(False),
        discards=Bits(jnp.zeros(n, jnp.uint32), jnp.zeros(n, jnp.uint32)),
        leader=eldest,
        trick_cards=jnp.full(n, NO_CARD, i32),
        led_class=i32(-1),
        best_power=i32(-1),
        best_seat=i32(-1),
        renege_level=i32(-1),
        played=Bits(jnp.uint32(0), jnp.uint32(0)),
        cannot_hold=Bits(jnp.zeros(n, jnp.uint32), jnp.zeros(n, jnp.uint32)),
        trick_num=i32(0),
        best_trump=i32(-1),
        best_trump_seat=i32(-1),
        jinker=i32(-1),
        bid=i32(0),
        bidder=i32(-1),
        passed=jnp.zeros(n, jnp.bool_),
        stock=jnp.asarray(stock, i32).reshape(stock_size(n, rules)),
        stock_top=i32(0),
        pending=i32(0),
        scores=jnp.asarray(scores, i32).reshape(num_teams(n)),
        hand_points=jnp.zeros(num_teams(n), i32),
        game_over=jnp.bool_(False),
        game_winner=i32(-1),
        illegal=jnp.bool_(False),
        _step_count=i32(0),
        rules=rules,
    )
    return state.replace(legal_set=legal_set(state, rules))


def deal_from_deck(
    deck: jax.Array, dealer: jax.Array, scores: jax.Array, num_players: int, rules: FortyFiveRules
) -> State:
    """Deal from ``deck`` (int32[>= ``deck_prefix``], deck[0] first): 5 cards a seat in the
    packets of ``rules.deal_packets`` from the eldest hand, then deck[5N] is turned up (and
    deck[5N + 1] after a joker); in Auction deck[5N:] is the stock."""
    n = num_players
    deck = jnp.asarray(deck, jnp.int32)
    hands = hands_from_deck(deck, dealer, n, rules)
    stock = deck[5 * n : 5 * n + stock_size(n, rules)]
    next_card = deck[5 * n + 1] if rules.joker and not rules.auction else jnp.int32(-1)
    turnup = jnp.int32(-1) if rules.auction else deck[5 * n]
    return new_hand(hands, turnup, next_card, stock, dealer, scores, n, rules)


def deal_random(
    key: jax.Array, dealer: jax.Array, scores: jax.Array, num_players: int, rules: FortyFiveRules
) -> State:
    """A uniformly random deal (``FortyFive.init``)."""
    k = deck_prefix(num_players, rules)
    u24 = jax.random.bits(key, (k,), jnp.uint32) >> 8
    return deal_from_deck(draw_deck(u24, rules.deck_size), dealer, scores, num_players, rules)


def state_bytes(num_players: int, rules: FortyFiveRules | None = None) -> int:
    """Bytes of one hand's ``State`` (measured from the real field shapes)."""
    rules = rules or FortyFiveRules()
    shapes = jax.eval_shape(
        lambda: deal_from_deck(
            jnp.arange(deck_prefix(num_players, rules), dtype=jnp.int32),
            jnp.int32(0),
            jnp.zeros(num_teams(num_players), jnp.int32),
            num_players,
            rules,
        )
    )
    return sum(int(np.prod(x.shape)) * x.dtype.itemsize for x in jax.tree.leaves(shapes))


# --------------------------------------------------------------------------- a decision


def _set_seat(sets: Bits, seat: jax.Array, value: Bits, when: jax.Array) -> Bits:
    mine = (jnp.arange(sets.lo.shape[0]) == seat) & when
    return Bits(jnp.where(mine, value.lo, sets.lo), jnp.where(mine, value.hi, sets.hi))


def apply_action(state: State, action: jax.Array, rules: FortyFiveRules) -> State:
    """The state after a LEGAL ``action`` by ``current_player`` in a live hand.

    No legality or terminal check (``step`` adds them).  Every phase's outcome is computed and
    the right one selected, so it vmaps over hands in different phases.
    """
    n = state.tricks_won.shape[0]
    t = num_teams(n)
    seats = jnp.arange(n)
    cur = state.current_player
    a = jnp.asarray(action, jnp.int32)
    hand = tricks.seat_bits(state.hands, cur)
    card = bits.bit(jnp.clip(a, 0, JOKER))
    is_card = a <= JOKER
    phase = state.phase
    in_play = phase == PHASE_PLAY
    eldest = tricks.next_seat(state.dealer, n)
    zero_bits = Bits(jnp.uint32(0), jnp.uint32(0))

    # Defaults: what a non-play decision leaves alone.
    new_hand_ = hand
    laid_away = zero_bits  # a card the mover discards face down
    next_phase = phase
    next_player = cur
    leader = state.leader
    changes: dict[str, Any] = {}
    after_phase, after_player = _after_deal(state, rules)

    # --- Joker exchange: the dealer discards a card and takes the turned-up joker.
    robber = state.robber
    if rules.joker and not rules.auction:
        in_joker = phase == PHASE_JOKER
        exchanged = hand.without(card) | Bits(*_JOKER_SET)
        new_hand_ = bits.where(in_joker, exchanged, new_hand_)
        laid_away = bits.where(in_joker, card, laid_away)
        hands_after = _set_seat(state.hands, cur, exchanged, jnp.bool_(True))
        found = _robber(hands_after, state.turnup, state.dealer, rules)
        robber = jnp.where(in_joker, found, robber)
        next_phase = jnp.where(in_joker, jnp.where(found >= 0, PHASE_ROB, after_phase), next_phase)
        next_player = jnp.where(in_joker, jnp.where(found >= 0, found, after_player), next_player)

    # --- Rob: discard a card and take the turn-up, or PASS.
    robs = jnp.bool_(False)
    if rules.robbing:
        in_rob = phase == PHASE_ROB
        robs = in_rob & is_card
        new_hand_ = bits.where(robs, hand.without(card) | bits.bit(state.turnup), new_hand_)
        laid_away = bits.where(robs, card, laid_away)
        next_phase = jnp.where(in_rob, after_phase, next_phase)
        next_player = jnp.where(in_rob, after_player, next_player)

    # --- Auction: bid, name trump, discard and draw.
    if rules.auction:
        in_bid = phase == PHASE_BID
        is_bid = (a >= BID_15) & (a <= BID_30)
        raises = in_bid & is_bid
        bid = jnp.where(raises, 15 + 5 * (a - BID_15), state.bid)
        bidder = jnp.where(raises | (in_bid & (a == HOLD)), cur, state.bidder)
        passed = state.passed | (in_bid & (a == PASS) & (seats == cur))
        active = ~passed
        auction_over = (active.sum() == 1) & (bid > 0)
        next_active = jnp.argmin(jnp.where(active, (seats - cur - 1) % n, n)).astype(jnp.int32)
        next_phase = jnp.where(in_bid, jnp.where(auction_over, PHASE_TRUMP, PHASE_BID), next_phase)
        next_player = jnp.where(in_bid, jnp.where(auction_over, bidder, next_active), next_player)

        in_trump = phase == PHASE_TRUMP
        trump = jnp.where(in_trump, a - NAME_CLUBS, state.trump)
        next_phase = jnp.where(in_trump, PHASE_DISCARD, next_phase)
        next_player = jnp.where(in_trump, eldest, next_player)

        in_discard = phase == PHASE_DISCARD
        lays = in_discard & is_card
        draws = in_discard & ~is_card
        k = jnp.arange(state.stock.shape[0])
        drawn = (k >= state.stock_top) & (k < state.stock_top + state.pending)
        refill = bits.from_positions(jnp.where(drawn, state.stock, -1))
        new_hand_ = bits.where(lays, hand.without(card), new_hand_)
        new_hand_ = bits.where(draws, hand | refill, new_hand_)
        laid_away = bits.where(lays, card, laid_away)
        last = cur == state.dealer
        first_leader = tricks.next_seat(bidder, n)
        next_phase = jnp.where(draws & last, PHASE_PLAY, next_phase)
        next_player = jnp.where(
            draws, jnp.where(last, first_leader, tricks.next_seat(cur, n)), next_player
        )
        leader = jnp.where(draws & last, first_leader, leader)
        changes.update(
            bid=bid,
            bidder=bidder,
            passed=passed,
            trump=trump,
            stock_top=jnp.where(draws, state.stock_top + state.pending, state.stock_top),
            pending=jnp.where(lays, state.pending + 1, jnp.where(draws, 0, state.pending)),
        )

    # --- Jink announcement, from the eldest hand; the first announcement closes it.
    jinker = state.jinker
    if rules.jink == "announced":
        in_ann = phase == PHASE_ANNOUNCE
        announces = in_ann & (a == JINK)
        jinker = jnp.where(announces, cur, jinker)
        closes = announces | (cur == state.dealer)
        next_phase = jnp.where(in_ann, jnp.where(closes, PHASE_PLAY, PHASE_ANNOUNCE), next_phase)
        next_player = jnp.where(
            in_ann, jnp.where(closes, eldest, tricks.next_seat(cur, n)), next_player
        )

    # --- Play a card to the trick.
    trump_now = changes.get("trump", state.trump)
    leading = cur == state.leader
    ts = trump_strength(a, jnp.maximum(trump_now, 0), rules)
    is_trump = ts >= 0
    led_class = jnp.where(leading, jnp.where(is_trump, TRUMP_CLASS, a // 13), state.led_class)
    # trick power: 16 + strength for a trump, plain strength for the suit led, else -1
    power = jnp.where(is_trump, _TRUMP_POWER + ts, -1)
    power = jnp.where(~is_trump & (a // 13 == led_class), ranking.plain_strength(a), power)
    take = leading | (power > state.best_power)
    best_power = jnp.where(take, power, state.best_power)
    best_seat = jnp.where(take, cur, state.best_seat)
    trump_played = jnp.where(is_trump, ts, -1)
    if rules.renege == "deal":
        level = jnp.maximum(state.renege_level, trump_played)
    elif rules.renege == "trick":
        level = jnp.where(leading, trump_played, jnp.maximum(state.renege_level, trump_played))
    else:  # "led"
        level = jnp.where(leading, trump_played, state.renege_level)
    higher = ts > state.best_trump
    nxt = tricks.next_seat(cur, n)
    trick_over = in_play & (nxt == state.leader)
    trick_num = state.trick_num + trick_over.astype(jnp.int32)
    tricks_won = state.tricks_won + (trick_over & (seats == best_seat)).astype(jnp.int32)
    hand_over = trick_over & (trick_num == NUM_TRICKS)
    jink_failed = jnp.bool_(False)
    if rules.jink == "announced":
        jink_failed = trick_over & (jinker >= 0) & (best_seat % t != jinker % t)
        hand_over = hand_over | jink_failed
    new_hand_ = bits.where(in_play, hand.without(card), new_hand_)
    next_phase = jnp.where(in_play, PHASE_PLAY, next_phase)
    next_player = jnp.where(in_play, jnp.where(trick_over, best_seat, nxt), next_player)
    leader = jnp.where(trick_over, best_seat, leader)
    trick_cards = jnp.where(in_play & leading, NO_CARD, state.trick_cards)
    trick_cards = jnp.where(in_play & (seats == cur), a, trick_cards)
    trump_ = jnp.maximum(trump_now, 0)
    shown = tricks.revealed_void(
        a,
        trump_set(trump_, rules),
        state.led_class,
        may_withhold(trump_, state.renege_level, rules),
        leading,
        rules.follow,
    )
    shown_me = in_play & (seats == cur)
    cannot_hold = Bits(
        state.cannot_hold.lo | jnp.where(shown_me, shown.lo, jnp.uint32(0)),
        state.cannot_hold.hi | jnp.where(shown_me, shown.hi, jnp.uint32(0)),
    )

    def pick(play_value: jax.Array, other: jax.Array) -> jax.Array:
        return jnp.where(in_play, play_value, other)

    new = state.replace(
        current_player=next_player.astype(jnp.int32),
        rewards=jnp.zeros_like(state.rewards),  # (``step_game`` may carry the last hand's)
        game_rewards=jnp.zeros_like(state.game_rewards),
        hand_points=jnp.zeros_like(state.hand_points),
        tricks_won=tricks_won,
        hands=_set_seat(state.hands, cur, new_hand_, jnp.bool_(True)),
        phase=next_phase.astype(jnp.int32),
        robber=robber,
        robbed=state.robbed | robs,
        discards=_set_seat(
            state.discards,
            cur,
            tricks.seat_bits(state.discards, cur) | laid_away,
            jnp.bool_(True),
        ),
        leader=leader.astype(jnp.int32),
        trick_cards=trick_cards,
        led_class=pick(led_class, state.led_class),
        best_power=pick(best_power, state.best_power),
        best_seat=pick(best_seat, state.best_seat),
        renege_level=pick(level, state.renege_level),
        played=bits.where(in_play, state.played | card, state.played),
        cannot_hold=cannot_hold,
        trick_num=trick_num,
        best_trump=pick(jnp.maximum(state.best_trump, ts), state.best_trump),
        best_trump_seat=pick(jnp.where(higher, cur, state.best_trump_seat), state.best_trump_seat),
        jinker=jinker,
        _step_count=state._step_count + 1,
        **changes,
    )

    # --- The end of the hand: score it and settle the game.
    minus_one = jnp.int32(-1)
    loser = jnp.where(jink_failed, jinker % t, minus_one)
    points = jnp.where(jink_failed, 0, hand_points(new, rules))
    slam = minus_one
    if rules.jink == "wins_game":
        team_tricks = team_totals(new.tricks_won, n)
        slam = jnp.where(team_tricks.max() == NUM_TRICKS, jnp.argmax(team_tricks), -1)
    ended = _finish(new, points, loser, slam.astype(jnp.int32), rules)
    new = jax.tree.map(lambda e, x: jnp.where(hand_over, e, x), ended, new)
    return new.replace(legal_set=legal_set(new, rules))


def end_illegal(state: State, rules: FortyFiveRules) -> State:
    """The hand ends at once: the offender's team loses ``illegal_penalty`` points, the others
    score nothing; the game goes on unless that settles it (it cannot reach a target)."""
    n = state.tricks_won.shape[0]
    t = num_teams(n)
    points = jnp.where(jnp.arange(t) == state.current_player % t, -rules.illegal_penalty, 0)
    minus_one = jnp.int32(-1)
    ended = _finish(state, points.astype(jnp.int32), minus_one, minus_one, rules)
    return ended.replace(
        illegal=jnp.bool_(True),
        legal_set=Bits(jnp.uint32(_ALL_ACTIONS.lo), jnp.uint32(_ALL_ACTIONS.hi)),
        _step_count=state._step_count + 1,
    )


# --------------------------------------------------------------------------- across hands


def next_hand(key: jax.Array, state: State, rules: FortyFiveRules) -> State:
    """A random deal of the next hand: the dealer moves one seat left and the scores carry;
    after the game's last hand a new game starts (scores zero)."""
    n = state.tricks_won.shape[0]
    scores = jnp.where(state.game_over, 0, state.scores)
    return deal_random(key, tricks.next_seat(state.dealer, n), scores, n, rules)


def continue_game(after: State, key: jax.Array, rules: FortyFiveRules) -> State:
    """Whole games: ``after`` is a state just stepped; when its hand has ended and the game goes
    on, the next hand is dealt (``next_hand`` with ``key``) and returned, still carrying the
    finished hand's ``rewards``, ``hand_points`` and ``scores``; ``terminated`` is set only
    when the game is over."""
    fresh = next_hand(key, after, rules).replace(
        rewards=after.rewards, hand_points=after.hand_points
    )
    go_on = after.terminated & ~after.game_over
    return jax.tree.map(lambda f, x: jnp.where(go_on, f, x), fresh, after)
