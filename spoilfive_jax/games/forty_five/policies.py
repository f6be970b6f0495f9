"""The Forty-Five family's built-in policies (``FortyFive.builtin_policy``, ``policy_names``)
and the strength-space cores the rollout kernel (``fast``) shares with them, so both paths
choose alike.

A policy is any jittable ``policy(key, state, player) -> action`` on ONE hand's
``forty_five.State``.  Built in: ``"random"`` (uniform over the legal actions), ``"greedy"``
(``greedy_policy``: a simple baseline) and ``"heuristic"`` (``heuristic_policy``: the family's
own player, partner-aware, bidding by trump strength).  On the rollout kernel they are the cores
below; ``tests/forty_five/test_fast.py`` replays the kernel's choices against these public
policies decision by decision.

Each core takes the view of the player to act in the strength encoding (``strength``): card
sets as ``Bits`` of positions, ``led`` the slot led (-1 when leading), ``best`` the trick power
winning so far, ``live`` the trump strengths the player has not seen.  Bidding and naming trump
happen before trump is known: they read the hand as card ids (``natural``: positions 0..52) and
answer bid codes (``PASS`` + code: 0 pass, 1..4 bid 15..30, 5 hold) or a suit 0..3.

``greedy`` (the cores behind ``greedy_policy``, which stays the public reference): lead the
strongest card; follow with the cheapest winner unless a partner is winning, else the weakest
card; rob always laying away the weakest card; bid the lowest bid with 3+ trumps in the best
suit; never discard, never announce.

``heuristic``, rules in order:

1. Joker exchange and rob: always take the card, laying away the weakest (the lowest plain
   card; only trumps: the lowest trump).
2. Jink announcement: only when every card held is a trump above every trump not seen.
3. Bidding (Auction): rate each suit as trump: its trumps held (the suit, A♥, the joker) plus
   its top cards held (5, J, A♥, the joker, the ace of the suit).  Rating 4 is worth 15, 5-6
   worth 20, 7-8 worth 25, 9+ worth 30.  Never bid over a partner who holds the bid; the dealer
   holds when the standing bid is within its worth, else everyone bids the lowest legal bid
   within it, else passes (the dealer bids 15 when forced).  Name the best-rated suit.
4. Discarding (Auction): lay away every plain card (the weakest first), keep the trumps.
5. Leading: the highest trump when it is a sure winner (above every trump not seen) or with 3+
   trumps (draw trumps); else the strongest plain card; else the lowest trump.
6. Following: never overtake a partner who is winning the trick (throw the weakest legal card);
   otherwise win as cheaply as possible (a card of the suit led before a trump, the lowest
   winning trump); if nothing wins, throw the weakest legal card.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.game as game
import spoilfive_jax.games.forty_five.strength as sx
from spoilfive_jax.core import bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import ACE_OF_HEARTS, FIVE, JACK
from spoilfive_jax.core.env import PolicyFn
from spoilfive_jax.core.kernel import random_choice
from spoilfive_jax.core.ranking import plain_strength
from spoilfive_jax.core.tricks import seat_bits
from spoilfive_jax.games.forty_five.game import (
    BID_15,
    HOLD,
    JOKER,
    NAME_CLUBS,
    NUM_ACTIONS,
    NUM_CARD_IDS,
    PASS,
    State,
)
from spoilfive_jax.games.forty_five.legal import CODE_HOLD, CODE_PASS
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams

SUPPORTED = (
    "'random', 'greedy', 'heuristic' or a jittable policy(key, state, player) -> action on "
    "spoilfive_jax.games.forty_five.State"
)

U32, I32 = sx.U32, sx.I32

MIN_RAISE_TRUMPS = 3  # greedy: trumps in the best suit needed to bid
STRONG_LEAD_TRUMPS = 3  # heuristic: lead the highest trump holding this many
BID_RATINGS = (4, 5, 7, 9)  # heuristic: the suit rating worth a bid of 15, 20, 25, 30


# ------------------------------------------------------------------------ the public State:
# random and greedy


@functools.cache
def random_policy(rules: FortyFiveRules) -> PolicyFn:
    """``"random"``: uniform over ``state.legal_set``, drawn as the rollout kernel draws: the
    k-th legal action from one 32-bit number of the key (``core.kernel.random_choice``), the
    actions ordered as the kernel orders them (the cards by strength position, PASS and JINK
    at theirs; bids and trump suits by id).  So under the loops' counter keys (``core.keys``:
    decision ``t``'s number is the kernel's ``mix(seed, id, t)``) it plays the kernel's hands.
    One closure per ``rules`` (cached: one compile)."""
    action_table = sx.tables(rules)[1]  # numpy (a cached closure holds no jnp value)

    def random(key: jax.Array, state: State, player: jax.Array) -> jax.Array:
        del player
        u = jax.random.bits(key, (), U32)
        legal = state.legal_set
        cards = sx.action_positions(legal, state.trump, rules)
        position = random_choice(cards.lo, cards.hi, u)
        card_phase = (state.phase != game.PHASE_BID) & (state.phase != game.PHASE_TRUMP)
        by_id = random_choice(legal.lo, legal.hi, u)  # (bids and suits: the kernel's order)
        by_position = jnp.asarray(action_table)[jnp.maximum(state.trump, 0), position]
        return jnp.where(card_phase, by_position, by_id).astype(I32)

    random.policy_name = "random"  # type: ignore[attr-defined]
    return random


_BIG = 1 << 10  # (greedy_policy: above every card value)


@functools.cache
def greedy_policy(rules: FortyFiveRules) -> PolicyFn:
    """``"greedy"``: a simple deterministic player of the family (a baseline, not a strong one).

    Play: lead the strongest card (a trump's strength above every plain card); follow with the
    cheapest card that takes the trick unless a partner is already taking it, else throw the
    weakest legal card.  Rob (and the joker exchange): always, laying away the weakest card.
    Auction: bid the lowest legal bid (or hold) with 3 or more trumps in the best suit (its
    cards plus A♥), else pass (the dealer bids 15 when forced); name that suit; keep the hand
    (DONE).  Never announce a jink.  One closure per ``rules`` (cached: one compile).
    """
    cards = np.arange(NUM_CARD_IDS, dtype=np.int32)  # numpy: the closure is cached, and a jnp
    # value made while a first caller is being traced would be a tracer leaking into later ones
    by_suit = np.zeros((4, NUM_CARD_IDS), np.bool_)  # the trumps of each suit (cards + A♥)
    for suit in range(4):
        by_suit[suit, suit * 13 : suit * 13 + 13] = True
        by_suit[suit, ACE_OF_HEARTS] = True
    by_suit[:, JOKER] = rules.joker

    def greedy(key: jax.Array, state: State, player: jax.Array) -> jax.Array:
        del key, player
        n = state.tricks_won.shape[0]
        cur = jnp.maximum(state.current_player, 0)
        legal = bits.to_bool(state.legal_set, NUM_ACTIONS)
        playable = legal[:NUM_CARD_IDS]
        trump = jnp.maximum(state.trump, 0)
        ts = game.trump_strength(cards, trump, rules)
        plain = plain_strength(jnp.minimum(cards, JOKER - 1))
        value = jnp.where(ts >= 0, 16 + ts, plain)
        power = jnp.where(ts >= 0, 16 + ts, jnp.where(cards // 13 == state.led_class, plain, -1))
        leading = cur == state.leader
        partner = ~leading & (state.best_seat % num_teams(n) == cur % num_teams(n))
        wins = playable & (power > state.best_power) & ~leading & ~partner
        cheapest_win = jnp.argmin(jnp.where(wins, value, _BIG))
        weakest = jnp.argmin(jnp.where(playable, value, _BIG))
        strongest = jnp.argmax(jnp.where(playable, value, -1))
        play = jnp.where(leading, strongest, jnp.where(wins.any(), cheapest_win, weakest))

        hand = bits.to_bool(seat_bits(state.hands, cur), NUM_ACTIONS)[:NUM_CARD_IDS]
        per_suit = (jnp.asarray(by_suit) & hand[None, :]).sum(1)
        best_suit = jnp.argmax(per_suit)
        bids = legal[BID_15 : HOLD + 1]
        lowest_bid = BID_15 + jnp.argmax(bids)
        strong = per_suit.max() >= 3
        bid = jnp.where((strong & bids.any()) | ~legal[PASS], lowest_bid, PASS)
        return jnp.select(
            [
                state.phase == game.PHASE_PLAY,
                (state.phase == game.PHASE_ROB) | (state.phase == game.PHASE_JOKER),
                state.phase == game.PHASE_BID,
                state.phase == game.PHASE_TRUMP,
            ],
            [play, weakest, bid, NAME_CLUBS + best_suit],
            PASS,  # discard: DONE; announcements: no jink
        ).astype(jnp.int32)

    greedy.policy_name = "greedy"  # type: ignore[attr-defined]
    return greedy


# ------------------------------------------------------------------------ card helpers


def weakest(s: Bits) -> jax.Array:
    """The weakest card of a set: the lowest plain strength (lowest suit first), else the
    lowest trump."""
    s0, s1, s3 = sx.plain_slots(s)
    plain = s0 | s1 | s3
    lowest_trump = sx.TRUMP_BASE + sx.lowbit(sx.trumps_of(s))
    return jnp.where(plain != 0, sx.plain_card(s, sx.lowbit(plain)), lowest_trump)


def strongest(s: Bits) -> jax.Array:
    """The strongest card of a set: the highest trump, else the highest plain strength."""
    s0, s1, s3 = sx.plain_slots(s)
    trumps = sx.trumps_of(s)
    plain_top = sx.plain_card(s, sx.highbit(s0 | s1 | s3))
    return jnp.where(trumps != 0, sx.TRUMP_BASE + sx.highbit(trumps), plain_top)


def cheapest_winner(legal: Bits, led: jax.Array, best: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(position, exists): the cheapest legal card beating trick power ``best`` when ``led``
    was led: a higher card of the suit led before any trump, else the lowest winning trump."""
    m = sx.slot_mask(led)
    in_led = (legal.lo & m.lo) | (legal.hi & m.hi)
    led_bits = jnp.where((led == 1) | (led == 3), in_led >> 16, in_led) & sx.PLAIN_MASK
    plain_best = best < sx.TRUMP_POWER
    plain_win = jnp.where(plain_best, led_bits & sx.above(best), U32(0))
    trumps = sx.trumps_of(legal)
    trump_win = jnp.where(plain_best, trumps, trumps & sx.above(best - sx.TRUMP_POWER))
    pos = jnp.where(
        plain_win != 0,
        sx.SLOT_WIDTH * led + sx.lowbit(plain_win),
        sx.TRUMP_BASE + sx.lowbit(trump_win),
    )
    return pos, (plain_win | trump_win) != 0


def live_trumps(hand: Bits, played: jax.Array, dead: jax.Array, every: jax.Array) -> jax.Array:
    """uint32: trump strengths not seen by the holder of ``hand``: not played, not held, not
    known out of play (``dead``: an unrobbed turn-up)."""
    return every & ~played & ~sx.trumps_of(hand) & ~dead


# ------------------------------------------------------------------------ play


def greedy_play(
    legal: Bits, led: jax.Array, best: jax.Array, partner_winning: jax.Array
) -> jax.Array:
    """``greedy_policy``'s card: lead the strongest; follow with the cheapest winner unless a
    partner is winning, else the weakest."""
    win, can_win = cheapest_winner(legal, led, best)
    follow = jnp.where(can_win & ~partner_winning, win, weakest(legal))
    return jnp.where(led < 0, strongest(legal), follow)


def heuristic_play(
    hand: Bits,
    legal: Bits,
    led: jax.Array,
    best: jax.Array,
    partner_winning: jax.Array,
    live: jax.Array,
) -> jax.Array:
    """The heuristic's card (rules 5 and 6 of the module docstring)."""
    mine = sx.trumps_of(hand)
    top = sx.highbit(mine)
    sure = (mine != 0) & ((U32(1) << jnp.maximum(top, 0).astype(U32)) > live)
    draw_trumps = sure | (sx.popcount(mine) >= STRONG_LEAD_TRUMPS)
    s0, s1, s3 = sx.plain_slots(hand)
    plain = s0 | s1 | s3
    lead = jnp.where(
        draw_trumps,
        sx.TRUMP_BASE + top,
        jnp.where(
            plain != 0, sx.plain_card(hand, sx.highbit(plain)), sx.TRUMP_BASE + sx.lowbit(mine)
        ),
    )
    win, can_win = cheapest_winner(legal, led, best)
    follow = jnp.where(can_win & ~partner_winning, win, weakest(legal))
    return jnp.where(led < 0, lead, follow)


# ------------------------------------------------------------------------ other card phases


def sure_jink(hand: Bits, live: jax.Array) -> jax.Array:
    """bool: every card held is a trump above every trump not seen."""
    mine = sx.trumps_of(hand)
    s0, s1, s3 = sx.plain_slots(hand)
    only_trumps = (mine != 0) & ((s0 | s1 | s3) == 0)
    return only_trumps & (live < (mine & (~mine + U32(1))))


def heuristic_announce(hand: Bits, live: jax.Array) -> jax.Array:
    """Announcement position: JINK when sure, else PASS."""
    return jnp.where(sure_jink(hand, live), sx.P_JINK, sx.P_PASS).astype(I32)


def heuristic_discard(legal: Bits) -> jax.Array:
    """Discard position: the weakest plain card that may be laid away, else DONE (PASS)."""
    s0, s1, s3 = sx.plain_slots(legal)
    plain = s0 | s1 | s3
    return jnp.where(plain != 0, sx.plain_card(legal, sx.lowbit(plain)), sx.P_PASS).astype(I32)


# ------------------------------------------------------------------------ bidding (card ids)


def _suit_sets(rules: FortyFiveRules) -> tuple[list[Bits], list[Bits]]:
    """(trumps, tops) of each suit as trump, as card-id sets."""
    joker = [JOKER] if rules.joker else []
    trumps, tops = [], []
    for s in range(4):
        trumps.append(bits.const([*range(13 * s, 13 * s + 13), ACE_OF_HEARTS, *joker]))
        tops.append(bits.const([13 * s + FIVE, 13 * s + JACK, 13 * s, ACE_OF_HEARTS, *joker]))
    return trumps, tops


def _count(hand: Bits, mask: Bits) -> jax.Array:
    return sx.popcount(hand.lo & mask.lo) + sx.popcount(hand.hi & mask.hi)


def _best_suit(scores: list[jax.Array]) -> tuple[jax.Array, jax.Array]:
    """(suit, score) of the highest score, the lowest suit on ties (as ``argmax``)."""
    suit, top = jnp.zeros_like(scores[0]), scores[0]
    for s in range(1, 4):
        better = scores[s] > top
        suit = jnp.where(better, s, suit)
        top = jnp.where(better, scores[s], top)
    return suit.astype(I32), top


def _lowest_bid(legal_codes: jax.Array) -> jax.Array:
    """The first legal code among BID_15..BID_30, HOLD (as ``greedy_policy``)."""
    return sx.lowbit(legal_codes & U32(0x3E)).astype(I32)


def greedy_bid(natural: Bits, legal_codes: jax.Array, rules: FortyFiveRules) -> jax.Array:
    """``greedy_policy``'s bid code: the lowest bid (or hold) with 3+ trumps in the best suit,
    else pass (the lowest bid when passing is not allowed)."""
    trumps, _ = _suit_sets(rules)
    _, most = _best_suit([_count(natural, m) for m in trumps])
    can_bid = (legal_codes & U32(0x3E)) != 0
    may_pass = (legal_codes & U32(1)) != 0
    bid = ((most >= MIN_RAISE_TRUMPS) & can_bid) | ~may_pass
    return jnp.where(bid, _lowest_bid(legal_codes), CODE_PASS).astype(I32)


def greedy_name(natural: Bits, rules: FortyFiveRules) -> jax.Array:
    """``greedy_policy``'s trump: the suit with the most trumps."""
    trumps, _ = _suit_sets(rules)
    return _best_suit([_count(natural, m) for m in trumps])[0]


def _ratings(natural: Bits, rules: FortyFiveRules) -> list[jax.Array]:
    trumps, tops = _suit_sets(rules)
    return [_count(natural, t) + _count(natural, p) for t, p in zip(trumps, tops, strict=True)]


def heuristic_name(natural: Bits, rules: FortyFiveRules) -> jax.Array:
    """The heuristic's trump: the best-rated suit (rule 3)."""
    return _best_suit(_ratings(natural, rules))[0]


def heuristic_bid(
    natural: Bits,
    legal_codes: jax.Array,
    bid_code: jax.Array,
    partner_holds: jax.Array,
    rules: FortyFiveRules,
) -> jax.Array:
    """The heuristic's bid code (rule 3); ``bid_code`` the standing bid (0 none, 1..4)."""
    _, rating = _best_suit(_ratings(natural, rules))
    worth = sum((rating >= r).astype(I32) for r in BID_RATINGS)  # 0..4: the highest bid code
    may_pass = (legal_codes & U32(1)) != 0
    can_hold = ((legal_codes >> CODE_HOLD) & 1) != 0
    raises = legal_codes & U32(0x1E)
    lowest_raise = sx.lowbit(raises)
    choice = jnp.where(
        can_hold & (bid_code <= worth),
        CODE_HOLD,
        jnp.where((raises != 0) & (lowest_raise <= worth), lowest_raise, CODE_PASS),
    )
    choice = jnp.where(partner_holds, CODE_PASS, choice)
    return jnp.where(may_pass, choice, _lowest_bid(legal_codes)).astype(I32)


# ------------------------------------------------------------------------ the public State:
# heuristic


def _partner_of(seat: jax.Array, other: jax.Array, num_players: int) -> jax.Array:
    """bool: ``other`` (>= 0) is a partner of ``seat`` (never the seat itself)."""
    t = num_teams(num_players)
    if t == num_players:
        return jnp.zeros_like(seat, jnp.bool_)
    return (other >= 0) & (other != seat) & (other % t == seat % t)


@functools.cache
def heuristic_policy(rules: FortyFiveRules) -> PolicyFn:
    """``"heuristic"`` on ONE hand's public ``State``: ``policy(key, state, player) -> action``
    (jittable, deterministic; the rules of the module docstring, the same cores as the rollout
    kernel's).  One closure per ``rules`` (cached: one compile)."""
    position_table = sx.tables(rules)[0]  # numpy (a cached closure holds no jnp value)

    def heuristic(key: jax.Array, state: State, player: jax.Array) -> jax.Array:
        del key, player
        n = state.tricks_won.shape[0]
        cur = jnp.maximum(state.current_player, 0)
        trump = jnp.maximum(state.trump, 0)
        natural = seat_bits(state.hands, cur)
        hand = sx.card_positions(natural, trump, rules)
        legal = sx.action_positions(state.legal_set, trump, rules)  # (JINK: announcing only)
        played_trumps = sx.card_positions(state.played, trump, rules).hi  # (positions >= 32)
        turn_ts = jnp.asarray(position_table)[trump, jnp.clip(state.turnup, 0, JOKER)]
        turn_ts = turn_ts - sx.TRUMP_BASE
        unrobbed = (state.turnup >= 0) & ~state.robbed
        dead = jnp.where(unrobbed, U32(1) << jnp.maximum(turn_ts, 0).astype(U32), U32(0))
        live = live_trumps(hand, played_trumps, dead, sx.every_trump(trump, rules))
        leading = cur == state.leader
        led = jnp.where(leading, -1, sx.slot_of_class(state.led_class, trump))
        partner_winning = ~leading & _partner_of(cur, state.best_seat, n)
        play = heuristic_play(hand, legal, led, state.best_power, partner_winning, live)
        exchange = weakest(hand)
        codes = (state.legal_set.hi >> (PASS - 32)) & U32((1 << (HOLD - PASS + 1)) - 1)
        bid_code = jnp.maximum(state.bid - 10, 0) // 5
        partner_holds = _partner_of(cur, state.bidder, n)
        bid = PASS + heuristic_bid(natural, codes, bid_code, partner_holds, rules)
        name = NAME_CLUBS + heuristic_name(natural, rules)
        announce = heuristic_announce(hand, live)
        card_choice = jnp.select(
            [
                state.phase == game.PHASE_PLAY,
                (state.phase == game.PHASE_ROB) | (state.phase == game.PHASE_JOKER),
                state.phase == game.PHASE_DISCARD,
            ],
            [play, exchange, heuristic_discard(legal)],
            announce,
        )
        card_action = jnp.asarray(sx.tables(rules)[1])[trump, card_choice]
        return jnp.select(
            [state.phase == game.PHASE_BID, state.phase == game.PHASE_TRUMP],
            [bid, name],
            card_action,
        ).astype(I32)

    heuristic.policy_name = "heuristic"  # type: ignore[attr-defined]
    return heuristic


def builtin_policy(name: str, rules: FortyFiveRules) -> PolicyFn:
    """The family's built-in policy ``name``: ``"random"``, ``"greedy"`` or ``"heuristic"``."""
    if name == "random":
        return random_policy(rules)
    if name == "greedy":
        return greedy_policy(rules)
    if name == "heuristic":
        return heuristic_policy(rules)
    raise ValueError(f"unknown policy {name!r}; the Forty-Five family takes {SUPPORTED}")


__all__ = [
    "SUPPORTED",
    "builtin_policy",
    "greedy_policy",
    "heuristic_policy",
    "random_policy",
]
