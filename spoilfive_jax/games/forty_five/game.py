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

The rules are in five modules: ``state`` (action ids, phases, the ``State`` pytree and static
sizes), ``legal`` (trump strengths and legal sets), ``phases`` (what a decision does in each
phase), ``scoring`` (a hand's points and the end of a game), and this one (the deal, a
decision: ``apply_action`` combines the phases, across hands); the names of ``state``, ``legal``
and ``scoring`` are re-exported here.

Phases (``PHASE_*``): joker exchange (the joker was turned up: the dealer discards a card and
takes it), rob, auction bidding, naming trump, discard-and-draw, jink announcements, play, done.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.phases as phases
from spoilfive_jax.core import bits, record, tricks
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.deal import hands_from_deck, shuffled_deck
from spoilfive_jax.core.validate import check_num_players
from spoilfive_jax.games.forty_five.legal import legal_plays as legal_plays
from spoilfive_jax.games.forty_five.legal import legal_set as legal_set
from spoilfive_jax.games.forty_five.legal import may_withhold as may_withhold
from spoilfive_jax.games.forty_five.legal import min_bid as min_bid
from spoilfive_jax.games.forty_five.legal import play_legal_set as play_legal_set
from spoilfive_jax.games.forty_five.legal import trump_set as trump_set
from spoilfive_jax.games.forty_five.legal import trump_strength as trump_strength
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams
from spoilfive_jax.games.forty_five.scoring import _finish
from spoilfive_jax.games.forty_five.scoring import counting_rank as counting_rank
from spoilfive_jax.games.forty_five.scoring import game_result as game_result
from spoilfive_jax.games.forty_five.scoring import hand_points as hand_points
from spoilfive_jax.games.forty_five.scoring import team_totals as team_totals
from spoilfive_jax.games.forty_five.state import _ALL_ACTIONS
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

# --------------------------------------------------------------------------- a new hand


class _Start(NamedTuple):
    """How a hand starts (``new_hand``); int32[] unless said."""

    turnup: jax.Array  # the trump-deciding card turned up, -1 in Auction
    joker_up: jax.Array  # bool[]: the joker was turned up
    trump: jax.Array  # trump suit, -1 until named in Auction
    robber: jax.Array  # seat entitled to rob, -1 if nobody (or not known yet)
    phase: jax.Array  # the first decision's phase
    player: jax.Array  # the first seat to act


def _turnup_start(
    hands: Bits,
    turnup: jax.Array,
    next_card: jax.Array,
    dealer: jax.Array,
    eldest: jax.Array,
    rules: FortyFiveRules,
) -> _Start:
    """A turn-up game's start: the joker exchange if the joker is turned up (``next_card``
    then decides trump), else the rob, else the announcements or the first lead."""
    i32 = jnp.int32
    turnup = jnp.asarray(turnup, i32)
    joker_up = (turnup == JOKER) if rules.joker else jnp.bool_(False)
    if rules.joker:
        turnup = jnp.where(joker_up, jnp.asarray(next_card, i32), turnup)
    trump = turnup // 13
    robber = phases.robber_seat(hands, turnup, dealer, rules)
    robber = jnp.where(joker_up, -1, robber)  # known once the dealer has exchanged
    phase = jnp.where(robber >= 0, PHASE_ROB, PHASE_ANNOUNCE)
    if rules.jink != "announced":
        phase = jnp.where(robber >= 0, PHASE_ROB, PHASE_PLAY)
    player = jnp.where(robber >= 0, robber, eldest)
    phase = jnp.where(joker_up, PHASE_JOKER, phase).astype(i32)
    player = jnp.where(joker_up, dealer, player).astype(i32)
    return _Start(turnup, joker_up, trump, robber, phase, player)


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
        start = _Start(i32(-1), jnp.bool_(False), i32(-1), i32(-1), i32(PHASE_BID), eldest)
    else:
        start = _turnup_start(hands, turnup, next_card, dealer, eldest, rules)
    turnup, joker_up, trump, robber, phase, player = start
    state = State(
        current_player=player,
        terminated=jnp.bool_(False),
        truncated=jnp.bool_(False),
        rewards=jnp.zeros(n, jnp.float32),
        game_rewards=jnp.zeros(n, jnp.float32),
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
        jinker=i32(-1),
        bid=i32(0),
        bidder=i32(-1),
        passed=jnp.zeros(n, jnp.bool_),
        stock=jnp.asarray(stock, i32).reshape(stock_size(n, rules)),
        stock_top=i32(0),
        pending=i32(0),
        drawn=Bits(jnp.zeros(n, jnp.uint32), jnp.zeros(n, jnp.uint32)),
        moves=record.empty(max_decisions(n, rules)),
        scores=jnp.asarray(scores, i32).reshape(num_teams(n)),
        hand_points=jnp.zeros(num_teams(n), i32),
        game_over=jnp.bool_(False),
        game_winner=i32(-1),
        illegal=jnp.bool_(False),
        _step_count=i32(0),
        rules=rules,
        **before_the_play(n),
    )
    return with_legal(state, rules)


def before_the_play(n: int) -> dict[str, Any]:
    """The play's fields before the first lead of a hand of ``n`` seats (a new hand's; a world
    wound back to its first lead takes them again: ``likelihood.play_start``)."""
    i32 = jnp.int32
    no_cards = Bits(jnp.uint32(0), jnp.uint32(0))
    return {
        "tricks_won": jnp.zeros(n, i32),
        "trick_cards": jnp.full(n, NO_CARD, i32),
        "led_class": i32(-1),
        "best_power": i32(-1),
        "best_seat": i32(-1),
        "renege_level": i32(-1),
        "played": no_cards,
        "cannot_hold": Bits(jnp.zeros(n, jnp.uint32), jnp.zeros(n, jnp.uint32)),
        "trick_num": i32(0),
        "trick_plays": jnp.full((NUM_TRICKS, n), NO_CARD, jnp.int8),
        "best_trump": i32(-1),
        "best_trump_seat": i32(-1),
    }


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
    deck = shuffled_deck(key, deck_prefix(num_players, rules), rules.deck_size)
    return deal_from_deck(deck, dealer, scores, num_players, rules)


def state_bytes(num_players: int, rules: FortyFiveRules | None = None) -> int:
    """Bytes of one hand's ``State`` (measured from the real field shapes) at a table of
    ``num_players`` (2..10, else ``ValueError``)."""
    n, rules = check_num_players(num_players), rules or FortyFiveRules()
    shapes = jax.eval_shape(
        lambda: deal_from_deck(
            jnp.arange(deck_prefix(n, rules), dtype=jnp.int32),
            jnp.int32(0),
            jnp.zeros(num_teams(n), jnp.int32),
            n,
            rules,
        )
    )
    return sum(int(np.prod(x.shape)) * x.dtype.itemsize for x in jax.tree.leaves(shapes))


# --------------------------------------------------------------------------- a decision


def _end_of_hand(
    new: State, hand_over: jax.Array, jink_failed: jax.Array, rules: FortyFiveRules
) -> State:
    """``new`` once the hand is over (where ``hand_over``): score it and settle the game."""
    n = new.tricks_won.shape[0]
    t = num_teams(n)
    minus_one = jnp.int32(-1)
    loser = jnp.where(jink_failed, new.jinker % t, minus_one)
    points = hand_points(new, jink_failed, rules)
    slam = minus_one
    if rules.jink == "wins_game":
        team_tricks = team_totals(new.tricks_won, n)
        slam = jnp.where(team_tricks.max() == NUM_TRICKS, jnp.argmax(team_tricks), -1)
    ended = _finish(new, points, loser, slam.astype(jnp.int32), rules)
    return jax.tree.map(lambda e, x: jnp.where(hand_over, e, x), ended, new)


def apply_action(
    state: State, action: jax.Array, rules: FortyFiveRules, play: bool = True
) -> State:
    """The state after a LEGAL ``action`` by ``current_player`` in a live hand.

    No legality or terminal check (``step`` adds them).  Every phase's outcome is computed (one
    helper a phase) and the right one selected, so it vmaps over hands in different phases.
    ``play=False``: for a hand before its first lead only (robbing, the joker, the auction, a
    jink's announcement), the play's outcome is not computed (a card played leaves such a
    hand as it was, and nothing ends it): the same state for such a hand, at a fraction of the
    cost; a hand in play gets an unspecified state.  ``legal_set`` is NOT refreshed:
    ``with_legal`` does that (the step calls it on the state it returns)."""
    n = state.tricks_won.shape[0]
    cur = state.current_player
    a = jnp.asarray(action, jnp.int32)
    hand = tricks.seat_bits(state.hands, cur)
    d = phases.Decision(
        cur=cur,
        a=a,
        hand=hand,
        card=bits.bit(jnp.clip(a, 0, JOKER)),
        is_card=a <= JOKER,
        seats=jnp.arange(n),
        eldest=tricks.next_seat(state.dealer, n),
    )
    # What a decision of no phase below changes: nothing.
    m = phases.Move(hand, Bits(jnp.uint32(0), jnp.uint32(0)), state.phase, cur, state.leader)
    robber, robs, jinker = state.robber, jnp.bool_(False), state.jinker
    changes: dict[str, Any] = {}
    if rules.joker and not rules.auction:
        m, robber = phases.joker_exchange(state, d, m, rules)
    if rules.robbing:
        m, robs = phases.rob(state, d, m, rules)
    if rules.auction:
        m, auction = phases.bidding(state, d, m)
        m, trump = phases.name_trump(state, d, m)
        m, stock = phases.discard_and_draw(state, d, m, auction["bidder"])
        changes.update(auction, trump=trump, **stock)
    if rules.jink == "announced":
        m, jinker = phases.announce(state, d, m)
    played: dict[str, Any] = {}
    if play:
        m, played, hand_over, jink_failed = phases.play_card(
            state, d, m, changes.get("trump", state.trump), jinker, rules
        )
    new = state.replace(
        current_player=m.player.astype(jnp.int32),
        rewards=jnp.zeros_like(state.rewards),  # (``step_game`` may carry the last hand's)
        game_rewards=jnp.zeros_like(state.game_rewards),
        hand_points=jnp.zeros_like(state.hand_points),
        hands=phases.set_seat(state.hands, cur, m.hand, jnp.bool_(True)),
        phase=m.phase.astype(jnp.int32),
        robber=robber,
        robbed=state.robbed | robs,
        discards=phases.set_seat(
            state.discards,
            cur,
            tricks.seat_bits(state.discards, cur) | m.laid_away,
            jnp.bool_(True),
        ),
        leader=m.leader.astype(jnp.int32),
        jinker=jinker,
        _step_count=state._step_count + 1,
        **played,
        **changes,
    )
    if play:
        new = _end_of_hand(new, hand_over, jink_failed, rules)
    return new


def with_legal(state: State, rules: FortyFiveRules) -> State:
    """``state`` with ``legal_set`` computed from its other fields.

    The step calls it once on the state it returns (``env._settle``, after choosing between the
    legal, illegal and finished outcomes), not inside ``apply_action``: computed from the fields
    the step stores, the legal set reads them back instead of recomputing the transition in each
    of its words (XLA:CPU fuses a shared intermediate into every output that uses it).  The
    same set either way: a finished hand's (phase ``PHASE_DONE``) is every action."""
    return state.replace(legal_set=legal_set(state, rules))


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
