"""The pure rules of one hand of the Forty-Five family (RULES.md §7) as jittable array functions.

Written for ONE hand and batched with ``jax.vmap``, like ``games.spoil_five.game`` whose card
core it reuses (trump and plain strengths, suit sets, the deal order, bitsets).  ``num_players``
(N) and ``rules`` are static; everything else is an array.  Card sets are 64-position bitsets
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

Phases (``PHASE_*``): joker exchange (the joker was turned up: the dealer discards a card and
takes it), rob, auction bidding, naming trump, discard-and-draw, jink announcements, play, done.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import ACE_OF_HEARTS
from spoilfive_jax.games.forty_five.rules import MIN_BID_SCORE, FortyFiveRules, num_teams
from spoilfive_jax.games.spoil_five import game as core
from spoilfive_jax.games.spoil_five.rules import Rules as _CoreRules

# --------------------------------------------------------------------------- actions
# 0..51: a card (play it; in the joker, rob and discard decisions: discard it).  52: the joker.
JOKER = 52
NUM_CARD_IDS = 53
PASS = 53  # decline the rob, pass in the auction, end discarding, decline to announce a jink
DONE = PASS  # discard phase: stop discarding and draw back to five
NO_JINK = PASS  # jink announcement: do not announce
BID_15, BID_20, BID_25, BID_30 = 54, 55, 56, 57
BID_VALUES = (15, 20, 25, 30)
HOLD = 58  # the dealer takes the standing bid at the same value
NAME_CLUBS, NAME_DIAMONDS, NAME_HEARTS, NAME_SPADES = 59, 60, 61, 62  # the bid winner names trump
JINK = 63  # announce that my team will take all five tricks
NUM_ACTIONS = 64

# --------------------------------------------------------------------------- phases
PHASE_JOKER, PHASE_ROB, PHASE_BID, PHASE_TRUMP = 0, 1, 2, 3
PHASE_DISCARD, PHASE_ANNOUNCE, PHASE_PLAY, PHASE_DONE = 4, 5, 6, 7
PHASE_NAMES = ("joker", "rob", "bid", "trump", "discard", "announce", "play", "done")

TRUMP_CLASS = core.TRUMP_CLASS  # ``led_class`` of a trump lead (the joker included)
NO_CARD = -1
NUM_TRICKS = 5
POINTS_PER_TRICK = 5
_TRUMP_POWER = 16  # trick power of a trump = 16 + its strength (plain cards 0..12)
_BIG = 1 << 20

# Trump strengths.  Without the joker: core strengths (5 = 13, J = 12, A♥ = 11, ace 10, ...).
# With the joker every strength from ``joker_strength`` up moves one step up to make room.
_JOKER_STRENGTH = {"below_AH": 11, "above_AH": 12}

_AH = bits.const([ACE_OF_HEARTS])
_JOKER_SET = bits.const([JOKER])
_ALL_ACTIONS = bits.const(range(NUM_ACTIONS))
_NAME_SET = bits.const(range(NAME_CLUBS, NAME_SPADES + 1))
_ANNOUNCE_SET = bits.const([JINK, PASS])
_PASS_SET = bits.const([PASS])


def _hi_bit(action: int) -> np.uint32:
    assert 32 <= action < 64
    return np.uint32(1 << (action - 32))


@dataclasses.dataclass(frozen=True)
class State:
    """One hand of a Forty-Five game; batch it with ``jax.vmap`` (every field gains [B]).

    N = num_players, T = num_teams(N), S = the auction stock (53 or 52 - 5N; 0 outside
    Auction).  Bitset fields are ``Bits(lo, hi)`` pairs of uint32 arrays.
    """

    current_player: jax.Array  # int32[]: seat to act; -1 once terminated
    terminated: jax.Array  # bool[]: the hand is over (``game_over`` says if the game is)
    truncated: jax.Array  # bool[]: always False (a hand ends within ``max_decisions``)
    rewards: jax.Array  # float32[N]: the hand's points for each seat's team, on its last step
    game_rewards: jax.Array  # float32[N]: +1 winners / -1 others, on the game's last step
    tricks_won: jax.Array  # int32[N]
    hands: Bits  # uint32[N] x 2: cards held by each seat
    legal_set: Bits  # uint32[] x 2: legal actions of current_player (all 64 once terminated)
    phase: jax.Array  # int32[]: PHASE_*
    dealer: jax.Array  # int32[]
    turnup: jax.Array  # int32[]: the trump-deciding turn-up, -1 in Auction
    joker_up: jax.Array  # bool[]: the joker was turned up (and goes to the dealer)
    trump: jax.Array  # int32[]: trump suit 0..3; -1 until named in Auction
    robber: jax.Array  # int32[]: seat entitled to rob, -1 if nobody (or not known yet)
    robbed: jax.Array  # bool[]: the robber took the turn-up (public)
    discards: Bits  # uint32[N] x 2: cards each seat laid away face down (HIDDEN from others)
    leader: jax.Array  # int32[]: seat that leads (or led) the current trick
    trick_cards: jax.Array  # int32[N]: card each seat played to the current trick, -1 if none;
    #   until the leader leads again it still shows the last completed trick
    led_class: jax.Array  # int32[]: suit led 0..3, 4 for a trump lead, -1 before the first lead
    best_power: jax.Array  # int32[]: trick power of the card winning the trick
    best_seat: jax.Array  # int32[]: seat winning the current (or last) trick
    renege_level: jax.Array  # int32[]: a top trump may be withheld only if stronger than this
    played: Bits  # uint32[] x 2: cards played to tricks so far
    cannot_hold: Bits  # uint32[N] x 2: PUBLIC information-state record: cards each seat has
    #   shown it does not hold (a play that would have been illegal had it held any of them);
    #   ``revealed_void``
    trick_num: jax.Array  # int32[]: tricks completed, 0..5
    best_trump: jax.Array  # int32[]: strength of the highest trump played this hand, -1 if none
    best_trump_seat: jax.Array  # int32[]: seat that played it, -1 if none
    jinker: jax.Array  # int32[]: seat that announced a jink, -1 if none
    bid: jax.Array  # int32[]: standing (then winning) bid, 0 if none (Auction)
    bidder: jax.Array  # int32[]: seat holding the bid, -1 if none
    passed: jax.Array  # bool[N]: seats out of the auction
    stock: jax.Array  # int32[S]: the undealt cards, top first (HIDDEN; Auction draws from it)
    stock_top: jax.Array  # int32[]: cards drawn from ``stock`` so far
    pending: jax.Array  # int32[]: cards the seat discarding has laid away, drawn on DONE
    scores: jax.Array  # int32[T]: game scores (before this hand; after it once terminated)
    hand_points: jax.Array  # int32[T]: the hand's points per team once it is over, else 0
    game_over: jax.Array  # bool[]: this hand ended the game
    game_winner: jax.Array  # int32[]: the winning team once ``game_over``, else -1
    illegal: jax.Array  # bool[]: the hand ended on an illegal action
    _step_count: jax.Array  # int32[]: decisions taken this hand
    #: the hand's rules: static pytree metadata (no array, no cost under jit/vmap); lets
    #: ``observation`` normalise the scores by the game's target
    rules: FortyFiveRules = dataclasses.field(default_factory=FortyFiveRules)

    @property
    def legal_action_mask(self) -> jax.Array:
        """bool[64]: legal actions of ``current_player`` (all True once terminated, as pgx)."""
        return bits.to_bool(self.legal_set, NUM_ACTIONS)

    @property
    def observation(self) -> jax.Array:
        """float32[..., D]: ``observe(self, current_player)`` (seat 0's view once terminated).

        Computed on access, not stored (rollouts never pay for it); works on a batched state
        too.  Layout: ``spoilfive_jax.games.forty_five.observe``.
        """
        from spoilfive_jax.games.forty_five.observe import current_observation

        return current_observation(self)

    @property
    def num_players(self) -> int:
        return int(self.tricks_won.shape[-1])

    def replace(self, **changes: Any) -> State:
        return dataclasses.replace(self, **changes)


jax.tree_util.register_dataclass(
    State,
    data_fields=[f.name for f in dataclasses.fields(State) if f.name != "rules"],
    meta_fields=["rules"],
)


# --------------------------------------------------------------------------- static helpers


def stock_size(num_players: int, rules: FortyFiveRules) -> int:
    """Length of ``State.stock``: the undealt cards in Auction, 0 otherwise."""
    return rules.deck_size - 5 * num_players if rules.auction else 0


def deck_prefix(num_players: int, rules: FortyFiveRules) -> int:
    """How many cards of a deck a deal reads: the whole deck in Auction, else 5N + 1 (+1 for the
    card turned up after the joker)."""
    if rules.auction:
        return rules.deck_size
    return 5 * num_players + 1 + int(rules.joker)


def max_decisions(num_players: int, rules: FortyFiveRules) -> int:
    """The most decisions one hand can take.

    Turn-up games: a joker exchange, a rob, N announcements, 5N plays.  Auction: at most N - 1
    passes, 4 rising bids and 4 holds, naming trump, 6 discard decisions a seat, 5N plays.
    """
    n = num_players
    if rules.auction:
        return (n - 1 + 8) + 1 + 6 * n + 5 * n
    return int(rules.joker) + int(rules.robbing) + (n if rules.jink == "announced" else 0) + 5 * n


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


def team_matrix(num_players: int) -> np.ndarray:
    """bool[T, N]: seat s plays for team t (``s % T == t``)."""
    t = num_teams(num_players)
    return np.arange(num_players)[None, :] % t == np.arange(t)[:, None]


def team_of(num_players: int) -> np.ndarray:
    """int32[N]: the team of each seat."""
    return (np.arange(num_players) % num_teams(num_players)).astype(np.int32)


def top_trump_strengths(rules: FortyFiveRules) -> dict[str, int]:
    """Strengths of the cards with the reneging privilege (5, J of trumps, A♥, the joker)."""
    if not rules.joker:
        return {"five": 13, "jack": 12, "ace_hearts": 11}
    k = _JOKER_STRENGTH[rules.joker_rank]
    return {"five": 14, "jack": 13, "ace_hearts": 11 if k == 12 else 12, "joker": k}


def _core_rules(rules: FortyFiveRules) -> _CoreRules:
    return _CoreRules(follow=rules.follow, renege=rules.renege, deal_packets=rules.deal_packets)


# --------------------------------------------------------------------------- cards


def trump_strength(card: jax.Array, trump: jax.Array, rules: FortyFiveRules) -> jax.Array:
    """int32: strength of ``card`` as a trump (-1 if not a trump); the joker always is one."""
    c = jnp.asarray(card, jnp.int32)
    ts = core.trump_strength(c, trump)  # the joker (52) is in no suit: -1 here
    if not rules.joker:
        return ts
    k = _JOKER_STRENGTH[rules.joker_rank]
    return jnp.where(c == JOKER, k, jnp.where(ts >= k, ts + 1, ts))


def trump_set(trump: jax.Array, rules: FortyFiveRules) -> Bits:
    """The trumps: the 13 cards of the trump suit, A♥ and (with the joker) the joker."""
    out = core.trump_set(trump)
    return out | Bits(*_JOKER_SET) if rules.joker else out


def legal_plays(
    hand: Bits,
    trump: jax.Array,
    led_class: jax.Array,
    renege_level: jax.Array,
    leading: jax.Array,
    rules: FortyFiveRules,
) -> Bits:
    """The cards of ``hand`` that may be played (RULES.md §5 with the joker as a top trump)."""
    trumps = trump_set(trump, rules)
    held_trumps = hand & trumps
    suit_led = core.suit_set(jnp.clip(led_class, 0, 3)).without(Bits(*_AH))
    follow = hand & (suit_led | trumps)
    must = bits.nonempty(follow if rules.follow == "seed" else hand & suit_led)
    plain_legal = bits.where(must, follow, hand)
    eligible = renege_eligible(trump, renege_level, rules)
    forced = bits.nonempty(held_trumps.without(eligible))
    trump_legal = bits.where(forced, held_trumps, hand)
    followed = bits.where(led_class == TRUMP_CLASS, trump_legal, plain_legal)
    return bits.where(leading, hand, followed)


def renege_eligible(trump: jax.Array, renege_level: jax.Array, rules: FortyFiveRules) -> Bits:
    """The top trumps (5, J of trumps, A♥, the joker) stronger than ``renege_level``: those a
    player may withhold from a trump lead."""
    tops = top_trump_strengths(rules)
    zero = Bits(jnp.uint32(0), jnp.uint32(0))
    eligible = (
        bits.where(renege_level < tops["five"], bits.bit(trump * 13 + 4), zero)
        | bits.where(renege_level < tops["jack"], bits.bit(trump * 13 + 10), zero)
        | bits.where(renege_level < tops["ace_hearts"], Bits(*_AH), zero)
    )
    if rules.joker:
        eligible = eligible | bits.where(renege_level < tops["joker"], Bits(*_JOKER_SET), zero)
    return eligible


def revealed_void(
    card: jax.Array,
    trump: jax.Array,
    led_class: jax.Array,
    renege_level: jax.Array,
    leading: jax.Array,
    rules: FortyFiveRules,
) -> Bits:
    """The cards a player has shown it does NOT hold by playing ``card`` (RULES.md §5, §7).

    ``legal_plays`` allows ``card`` from a hand H exactly when H holds none of the returned set:
    plain suit led, a card of a third suit shows a void in the suit led (and, under
    ``follow="seed"``, no trump); trump led, a plain card shows no trump but the top trumps it
    may renege.  A lead, a card of the suit led and any trump show nothing.
    """
    trumps = trump_set(trump, rules)
    suit_led = core.suit_set(jnp.clip(led_class, 0, 3)).without(Bits(*_AH))
    c = bits.bit(card)
    is_trump = bits.nonempty(c & trumps)
    in_suit = bits.nonempty(c & suit_led)
    zero = Bits(jnp.uint32(0), jnp.uint32(0))
    plain_void = (suit_led | trumps) if rules.follow == "seed" else suit_led
    plain = bits.where(~in_suit & ~is_trump, plain_void, zero)
    eligible = renege_eligible(trump, renege_level, rules)
    trump_void = bits.where(is_trump, zero, trumps.without(eligible))
    shown = bits.where(led_class == TRUMP_CLASS, trump_void, plain)
    return bits.where(leading, zero, shown)


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
    hand = core.seat_bits(state.hands, state.current_player)
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


def is_legal(state: State, action: jax.Array) -> jax.Array:
    """bool: ``action`` is in ``state.legal_set`` (False outside 0..63)."""
    a = jnp.asarray(action, jnp.int32)
    inside = (a >= 0) & (a < NUM_ACTIONS)
    return inside & bits.has(state.legal_set, jnp.clip(a, 0, NUM_ACTIONS - 1))


# --------------------------------------------------------------------------- a new hand


def _robber(hands: Bits, turnup: jax.Array, dealer: jax.Array, rules: FortyFiveRules) -> jax.Array:
    """Seat entitled to rob: the dealer if an ace is turned up, else the holder of the ace of
    trumps (A♥ when hearts), else -1 (RULES.md §4)."""
    if not rules.robbing:
        return jnp.int32(-1)
    trump = turnup // 13
    holds_ace = bits.has(hands, trump * 13)
    holder = jnp.where(holds_ace.any(), jnp.argmax(holds_ace).astype(jnp.int32), -1)
    return jnp.where(turnup % 13 == 0, dealer, holder).astype(jnp.int32)


def _after_deal(state: State, rules: FortyFiveRules) -> tuple[jax.Array, jax.Array]:
    """(phase, player) once the turn-up business is over: announcements or the first lead."""
    eldest = core.next_seat(state.dealer, state.tricks_won.shape[0])
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
    eldest = core.next_seat(dealer, n)
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
    by_offset = bits.from_positions(deck[core.deal_positions(n, _core_rules(rules))])
    shift = jnp.asarray(dealer, jnp.int32) + 1
    hands = Bits(jnp.roll(by_offset.lo, shift), jnp.roll(by_offset.hi, shift))
    stock = deck[5 * n : 5 * n + stock_size(n, rules)]
    next_card = deck[5 * n + 1] if rules.joker and not rules.auction else jnp.int32(-1)
    turnup = jnp.int32(-1) if rules.auction else deck[5 * n]
    return new_hand(hands, turnup, next_card, stock, dealer, scores, n, rules)


def draw_deck(u24: jax.Array, deck_size: int) -> jax.Array:
    """A uniformly random deck prefix int32[K] of a ``deck_size``-card deck (52, or 53 with the
    joker) from uniform 24-bit integers ``u24`` uint32[K]."""
    full = bits.const(range(deck_size))

    def draw(avail: Bits, x: tuple[jax.Array, jax.Array]) -> tuple[Bits, jax.Array]:
        u, remaining = x
        k = ((u * remaining.astype(jnp.uint32)) >> 24).astype(jnp.int32)
        card = bits.nth(avail, k)
        return avail.without(bits.bit(card)), card

    k = u24.shape[0]
    remaining = jnp.arange(deck_size, deck_size - k, -1, dtype=jnp.int32)
    _, deck = jax.lax.scan(draw, Bits(jnp.uint32(full.lo), jnp.uint32(full.hi)), (u24, remaining))
    return deck


def deal_random(
    key: jax.Array, dealer: jax.Array, scores: jax.Array, num_players: int, rules: FortyFiveRules
) -> State:
    """A uniformly random deal (``FortyFive.init``)."""
    k = deck_prefix(num_players, rules)
    u24 = jax.random.bits(key, (k,), jnp.uint32) >> 8
    return deal_from_deck(draw_deck(u24, rules.deck_size), dealer, scores, num_players, rules)


# --------------------------------------------------------------------------- hand and game end


def team_totals(per_seat: jax.Array, num_players: int) -> jax.Array:
    """int32[T]: a per-seat vector summed by team."""
    return jnp.where(team_matrix(num_players), per_seat[None, :], 0).sum(1).astype(jnp.int32)


def hand_points(state: State, rules: FortyFiveRules) -> jax.Array:
    """int32[T]: the points each team scores for a hand whose five tricks are over.

    ``tricks_won``, ``best_trump_seat``, ``jinker``, ``bid``/``bidder`` must be final.
    """
    n = state.tricks_won.shape[0]
    t = num_teams(n)
    teams = jnp.arange(t)
    tricks = team_totals(state.tricks_won, n)
    if rules.scoring == "hoyle":
        pts = jnp.where(tricks == NUM_TRICKS, 10, jnp.where(tricks >= 3, 5, 0))
    else:
        pts = POINTS_PER_TRICK * tricks
        if rules.bonus:
            best = state.best_trump_seat
            pts = pts + jnp.where((best >= 0) & (teams == best % t), POINTS_PER_TRICK, 0)
    if rules.jink == "announced":  # the hand got here: any jink succeeded
        pts = jnp.where((state.jinker >= 0) & (teams == state.jinker % t), 2 * pts, pts)
    if rules.auction:
        on_bid = teams == state.bidder % t
        made = jnp.where(on_bid, pts, 0).sum()
        scored = jnp.where(
            made >= state.bid, jnp.where(state.bid == 30, 2 * made, made), -state.bid
        )
        pts = jnp.where(on_bid, scored, pts)
    return pts.astype(jnp.int32)


def counting_rank(dealer: jax.Array, num_players: int) -> jax.Array:
    """int32[T]: the order in which teams are counted: from the eldest hand clockwise (0 first)."""
    n = num_players
    seat_rank = (jnp.arange(n) - (dealer + 1)) % n
    return jnp.where(team_matrix(n), seat_rank[None, :], n).min(1).astype(jnp.int32)


def game_result(
    scores: jax.Array,
    dealer: jax.Array,
    bidder: jax.Array,
    loser: jax.Array,
    slam: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
) -> tuple[jax.Array, jax.Array]:
    """(game_over, winning team or -1) after a hand, from the new ``scores`` int32[T].

    bidder: the Auction bidder's seat (-1 outside Auction); loser: the team of a failed jink
    announcement (-1 if none); slam: the team that took all five tricks under
    ``jink="wins_game"`` (-1 if none).
    """
    t = num_teams(num_players)
    teams = jnp.arange(t)
    rank = counting_rank(dealer, num_players)
    reached = scores >= rules.goal
    if rules.tie_break == "higher_total":
        top = jnp.where(reached, scores, -_BIG).max()
        eligible = reached & (scores == top)
    else:
        eligible = reached
    winner = jnp.argmin(jnp.where(eligible, rank, _BIG)).astype(jnp.int32)
    if rules.auction:
        bid_team = bidder % t
        winner = jnp.where((bidder >= 0) & reached[bid_team], bid_team, winner)
    over = reached.any()
    # A failed jink: among the other teams the highest total wins (first counted on a tie).
    others = teams != loser
    top_other = jnp.where(others, scores, -_BIG).max()
    best_other = jnp.argmin(jnp.where(others & (scores == top_other), rank, _BIG))
    winner = jnp.where(loser >= 0, best_other.astype(jnp.int32), winner)
    winner = jnp.where(slam >= 0, slam, winner)
    over = over | (loser >= 0) | (slam >= 0)
    return over, jnp.where(over, winner, -1).astype(jnp.int32)


def _finish(
    state: State, points: jax.Array, loser: jax.Array, slam: jax.Array, rules: FortyFiveRules
) -> State:
    """The hand is over: score ``points`` int32[T], settle the game, set the rewards."""
    n = state.tricks_won.shape[0]
    scores = state.scores + points
    over, winner = game_result(scores, state.dealer, state.bidder, loser, slam, n, rules)
    team = team_of(n)
    game_rewards = jnp.where(team == winner, 1.0, -1.0)
    return state.replace(
        current_player=jnp.int32(-1),
        terminated=jnp.bool_(True),
        rewards=points[team].astype(jnp.float32),
        game_rewards=jnp.where(over, game_rewards, 0.0).astype(jnp.float32),
        phase=jnp.int32(PHASE_DONE),
        scores=scores,
        hand_points=points,
        game_over=over,
        game_winner=winner,
    )


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
    hand = core.seat_bits(state.hands, cur)
    card = bits.bit(jnp.clip(a, 0, JOKER))
    is_card = a <= JOKER
    phase = state.phase
    in_play = phase == PHASE_PLAY
    eldest = core.next_seat(state.dealer, n)
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
        first_leader = core.next_seat(bidder, n)
        next_phase = jnp.where(draws & last, PHASE_PLAY, next_phase)
        next_player = jnp.where(
            draws, jnp.where(last, first_leader, core.next_seat(cur, n)), next_player
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
            in_ann, jnp.where(closes, eldest, core.next_seat(cur, n)), next_player
        )

    # --- Play a card to the trick.
    trump_now = changes.get("trump", state.trump)
    leading = cur == state.leader
    ts = trump_strength(a, jnp.maximum(trump_now, 0), rules)
    is_trump = ts >= 0
    led_class = jnp.where(leading, jnp.where(is_trump, TRUMP_CLASS, a // 13), state.led_class)
    # trick power: 16 + strength for a trump, plain strength for the suit led, else -1
    power = jnp.where(is_trump, _TRUMP_POWER + ts, -1)
    power = jnp.where(~is_trump & (a // 13 == led_class), core.plain_strength(a), power)
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
    nxt = core.next_seat(cur, n)
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
    shown = revealed_void(
        a, jnp.maximum(trump_now, 0), state.led_class, state.renege_level, leading, rules
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
            core.seat_bits(state.discards, cur) | laid_away,
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


def step(state: State, action: jax.Array, rules: FortyFiveRules) -> State:
    """Public step semantics: a terminated state comes back unchanged with zero rewards; an
    illegal action ends the hand (``end_illegal``); a legal one is applied."""
    live = ~state.terminated
    legal = is_legal(state, action)
    played = apply_action(state, action, rules)
    fouled = end_illegal(state, rules)
    done = state.replace(
        rewards=jnp.zeros_like(state.rewards), game_rewards=jnp.zeros_like(state.game_rewards)
    )

    def choose(p: jax.Array, f: jax.Array, d: jax.Array) -> jax.Array:
        return jnp.where(live, jnp.where(legal, p, f), d)

    return jax.tree.map(choose, played, fouled, done)


# --------------------------------------------------------------------------- across hands


def next_hand(key: jax.Array, state: State, rules: FortyFiveRules) -> State:
    """A random deal of the next hand: the dealer moves one seat left and the scores carry;
    after the game's last hand a new game starts (scores zero)."""
    n = state.tricks_won.shape[0]
    scores = jnp.where(state.game_over, 0, state.scores)
    return deal_random(key, core.next_seat(state.dealer, n), scores, n, rules)


def step_game(state: State, action: jax.Array, key: jax.Array, rules: FortyFiveRules) -> State:
    """``step`` for whole games: when a hand ends and the game goes on, the next hand is dealt
    (``next_hand`` with ``key``) and returned, still carrying the finished hand's ``rewards``,
    ``hand_points`` and ``scores``; ``terminated`` is set only when the game is over."""
    after = step(state, action, rules)
    fresh = next_hand(key, after, rules).replace(
        rewards=after.rewards, hand_points=after.hand_points
    )
    go_on = after.terminated & ~after.game_over
    return jax.tree.map(lambda f, x: jnp.where(go_on, f, x), fresh, after)
