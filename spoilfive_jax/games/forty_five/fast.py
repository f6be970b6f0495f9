"""The Forty-Five family's rollout kernel: whole hands of any game of the family (Forty-Five,
Twenty-Five, Auction Forty-Fives; the joker, robbing, jink and scoring options; 2..10 players)
played by the built-in policies on a batch-major, strength-encoded layout.

The public ``State``/``step`` (``game``) is general and pgx-shaped; rollouts need raw speed.
This module plays the SAME rules (``tests/test_fortyfive_fast.py`` replays its choices through
``FortyFive.step``) on a layout built for XLA loops:

- Batch-major: every field is a ``[B]`` vector; per-seat data is a Python list of ``[B]``
  vectors, so each op is one vectorised elementwise loop.
- Phases in sequence: a hand's phases always come in the same order (joker exchange, rob, jink
  announcements, play; or bidding, naming trump, discard-and-draw, play), so each runs as its
  own short step or scan over the batch instead of one step that computes every phase.
- Strength encoding (``strength``): once trump is known a card's position is its class and
  strength; following, reneging and trick winners are masks and comparisons.  Bidding, before
  trump is named, reads the hands as card ids.
- Packed small integers: the play status lives in one int32 word (``_F_*`` fields), the tricks
  of all seats in another (3 bits a seat), the trumps played and the seat of the highest in a
  third; a seat's hand is its cards at the first lead less one shared ``removed`` set.
- Random choices come from a counter hash of (seed, hand id, decision number): no key
  splitting, and results do not depend on the batch size.

Policies: ``KINDS`` (random, greedy, heuristic), one per seat, packed 2 bits a seat in
``seat_kinds``; the cores are in ``policies``.  Hands start a new game (team scores zero), so
Auction's "no bid below 20 at 100 points" never applies here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.games.forty_five import game
from spoilfive_jax.games.forty_five import policies as pol
from spoilfive_jax.games.forty_five import strength as sx
from spoilfive_jax.games.forty_five.game import (
    JOKER,
    NAME_CLUBS,
    NUM_TRICKS,
    PASS,
    POINTS_PER_TRICK,
)
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams
from spoilfive_jax.games.spoil_five.fast import get, mix, put, random_choice, seat_select
from spoilfive_jax.games.spoil_five.game import deal_positions

U32, I32 = sx.U32, sx.I32

KINDS = ("random", "greedy", "heuristic")  # a seat's policy kind is its index here
RANDOM, GREEDY, HEURISTIC = 0, 1, 2
KIND_BITS = 2  # bits per seat in ``seat_kinds``

_DECK_COUNTER = 0x10000  # hash counters of the deck draws (decisions count from 0)
_TRICK_BITS = 3  # tricks won per seat in ``Play.tricks``
_BEST_SEAT_SHIFT = 16  # ``Play.trumps``: bits 0..14 trump strengths played, 16..19 the seat
NUM_BID_CODES = 6  # PASS, BID_15..BID_30, HOLD (action - PASS)
_RAISE_CODES = 0x1E  # codes 1..4
_NAME_CODES = 0xF  # the four suits
_DISCARDS_PER_SEAT = 6  # up to five cards laid away, then DONE

# Packed play status (shift, width); values that can be -1 are stored + 1.
_F_CUR = (0, 4)  # seat to act
_F_LEADER = (4, 4)  # seat that leads the current trick
_F_LED = (8, 3)  # slot led + 1 (0: nothing led yet this trick)
_F_BEST = (11, 5)  # trick power winning + 1
_F_SEAT = (16, 4)  # seat winning the trick
_F_LEVEL = (20, 5)  # renege level + 1
_F_TRICK = (25, 3)  # tricks completed
_F_DONE = (28, 1)  # the hand is over


class Table(NamedTuple):
    """What the play of a batch starts from (``[B]`` vectors, fixed during play)."""

    held_lo: list[jax.Array]  # N x uint32[B]: each seat's cards at the first lead (positions)
    held_hi: list[jax.Array]  # N x uint32[B]
    trump: jax.Array  # int32[B]: trump suit 0..3
    first_leader: jax.Array  # int32[B]: seat that leads the first trick
    dead: jax.Array  # uint32[B]: trump strengths known out of play (an unrobbed turn-up)
    jinker: jax.Array  # int32[B]: seat that announced a jink, -1 if none
    robber: jax.Array  # int32[B]: seat entitled to rob, -1 if nobody
    robbed: jax.Array  # bool[B]: the robber took the turn-up
    bid: jax.Array  # int32[B]: the winning bid (15..30) in Auction, else 0
    bidder: jax.Array  # int32[B]: the bidder's seat in Auction, else -1
    decisions: jax.Array  # int32[B]: decisions taken before the first lead


class Play(NamedTuple):
    """The play of a batch of hands (the play loop's carry)."""

    removed_lo: jax.Array  # uint32[B]: cards played to tricks (positions 0..31)
    removed_hi: jax.Array  # uint32[B]: positions 32..63
    status: jax.Array  # int32[B]: packed ``_F_*`` fields
    tricks: jax.Array  # int32[B]: 3 bits of tricks won per seat
    trumps: jax.Array  # uint32[B]: trump strengths played (bits 0..14), seat of the highest << 16


class Outcome(NamedTuple):
    """Per-hand results of a batch (T = num_teams(N))."""

    team_points: jax.Array  # int32[B, T]: the hand's points per team
    tricks_won: jax.Array  # int32[B, N]
    decisions: jax.Array  # int32[B]
    jinked: jax.Array  # bool[B]: a jink was announced
    jink_won: jax.Array  # bool[B]: its team took all five tricks
    robbed: jax.Array  # bool[B]
    robber: jax.Array  # int32[B]
    bid: jax.Array  # int32[B]: the winning bid in Auction, else 0
    bidder: jax.Array  # int32[B]: the bidder in Auction, else -1


class Record(NamedTuple):
    """One decision slot of every hand of a batch, as the kernel saw it (``trace=True`` only;
    ``public_trace`` turns it into action ids)."""

    valid: jax.Array  # bool[B]: the hand took this decision
    player: jax.Array  # int32[B]
    legal_lo: jax.Array  # uint32[B]: the legal set, kernel encoding (positions or codes)
    legal_hi: jax.Array  # uint32[B]
    choice: jax.Array  # int32[B]: the choice, kernel encoding
    space: jax.Array  # int32[B]: CARD_SPACE (strength positions) or the action id of code 0
    trump: jax.Array  # int32[B]: the trump suit (for positions)


CARD_SPACE = -1  # ``Record.space`` of the card phases (joker, rob, announce, discard, play)


def public_trace(record: Record, rules: FortyFiveRules) -> tuple[np.ndarray, np.ndarray]:
    """Host (numpy) view of a traced ``Record`` [D, B]: (legal action-id masks uint64[D, B],
    action ids int32[D, B])."""
    action_table = sx.tables(rules)[1]  # [4, 64]
    lo, hi = np.asarray(record.legal_lo, np.uint64), np.asarray(record.legal_hi, np.uint64)
    word = lo | (hi << np.uint64(32))
    choice, space = np.asarray(record.choice), np.asarray(record.space)
    trump = np.clip(np.asarray(record.trump), 0, 3)
    cards = space == CARD_SPACE
    ids = np.where(cards[..., None], action_table[trump], space[..., None] + np.arange(64))
    member = ((word[..., None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)) == 1
    one = np.uint64(1) << np.clip(ids, 0, 63).astype(np.uint64)
    legal = np.where(member & (ids >= 0), one, np.uint64(0)).sum(-1, dtype=np.uint64)
    picked = np.take_along_axis(action_table[trump], np.clip(choice, 0, 63)[..., None], -1)[..., 0]
    return legal, np.where(cards, picked, space + choice).astype(np.int32)


# ------------------------------------------------------------------------ choosing


class Chooser(NamedTuple):
    """Who chooses: the counter-hash source and each seat's policy kind (Python-side value)."""

    seed: jax.Array  # uint32[]: the rollout's seed
    ids: jax.Array  # uint32[B]: hand ids
    seat_kinds: jax.Array  # int32[]: KIND_BITS per seat, a ``KINDS`` index
    kinds: frozenset[int]  # the kinds present (static): only their cores are computed

    def pick(
        self,
        seat: jax.Array,
        decision: jax.Array,
        legal: Bits,
        cores: dict[int, Callable[[], jax.Array]],
    ) -> jax.Array:
        """int32[B]: the choice of ``seat``'s policy; random picks uniformly from ``legal``."""
        kind = (self.seat_kinds >> (KIND_BITS * seat)) & ((1 << KIND_BITS) - 1)
        out: jax.Array | None = None
        for k in sorted(self.kinds):
            if k == RANDOM:
                u = mix(self.seed, self.ids, decision.astype(U32))
                value = random_choice(legal.lo, legal.hi, u)
            else:
                value = cores[k]()
            out = value if out is None else jnp.where(kind == k, value, out)
        assert out is not None
        return out.astype(I32)


def pack_kinds(kinds_by_seat: list[int] | np.ndarray) -> int:
    """``seat_kinds`` from one ``KINDS`` index per seat."""
    return sum(int(k) << (KIND_BITS * s) for s, k in enumerate(kinds_by_seat))


# ------------------------------------------------------------------------ seats and decks


def select_seat(sets: list[Bits], seat: jax.Array) -> Bits:
    return Bits(seat_select([s.lo for s in sets], seat), seat_select([s.hi for s in sets], seat))


def set_seat(sets: list[Bits], seat: jax.Array, value: Bits, when: jax.Array) -> list[Bits]:
    return [bits.where(when & (seat == i), value, s) for i, s in enumerate(sets)]


def next_seat(seat: jax.Array, num_players: int) -> jax.Array:
    return jnp.where(seat + 1 == num_players, 0, seat + 1)


def random_deck(seed: jax.Array, ids: jax.Array, num_cards: int, deck_size: int) -> jax.Array:
    """int32[num_cards, B]: the top ``num_cards`` of a uniformly shuffled ``deck_size``-card
    deck (52, or 53 with the joker) for each hand id, deck[0] first.  Card k is drawn uniformly
    from those not yet drawn, with the hash of (seed, id, 0x10000 + k)."""
    full = bits.const(range(deck_size))

    def draw(
        carry: tuple[Bits, jax.Array], k: jax.Array
    ) -> tuple[tuple[Bits, jax.Array], jax.Array]:
        avail, last = carry
        avail = avail.without(bits.bit(last))  # (removed one draw late: see spoil_five.fast)
        u = mix(seed, ids, U32(_DECK_COUNTER) + k.astype(U32)) >> 8
        pick = ((u * (deck_size - k).astype(U32)) >> 24).astype(I32)
        card = bits.nth(avail, pick)
        return (avail, card), card

    init = (
        Bits(jnp.full_like(ids, full.lo, U32), jnp.full_like(ids, full.hi, U32)),
        jnp.full(ids.shape, 63, I32),  # position 63: never a card
    )
    _, cards = jax.lax.scan(draw, init, jnp.arange(num_cards, dtype=I32))
    return cards


def deal_sets(
    positions: jax.Array, dealer: jax.Array, num_players: int, rules: FortyFiveRules
) -> list[Bits]:
    """Each seat's five cards as position sets, from ``positions`` int32[>= 5N, B] in deck
    order (dealt from the eldest hand in ``rules.deal_packets``)."""
    n = num_players
    rows = deal_positions(n, game._core_rules(rules))  # [N, 5]: deck indices by offset
    by_offset = []
    for row in rows:
        sets = [bits.bit(positions[k]) for k in row]
        by_offset.append(
            Bits(
                functools.reduce(jnp.bitwise_or, [s.lo for s in sets]),
                functools.reduce(jnp.bitwise_or, [s.hi for s in sets]),
            )
        )
    return [select_seat(by_offset, (s - dealer - 1) % n) for s in range(n)]


def _record(
    trace: list[Record] | None,
    valid: jax.Array,
    player: jax.Array,
    legal: Bits,
    choice: jax.Array,
    space: int,
    trump: jax.Array,
) -> None:
    if trace is not None:
        trace.append(_make_record(valid, player, legal, choice, space, trump))


def _make_record(
    valid: jax.Array,
    player: jax.Array,
    legal: Bits,
    choice: jax.Array,
    space: int,
    trump: jax.Array,
) -> Record:
    lo = jnp.broadcast_to(legal.lo, valid.shape)
    hi = jnp.broadcast_to(legal.hi, valid.shape)
    return Record(valid, player, lo, hi, choice, jnp.full_like(choice, space), trump)


# ------------------------------------------------------------------------ before the play


def _turnup_hand(
    chooser: Chooser,
    dealer: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
    trace: list[Record] | None,
) -> Table:
    """Deal a turn-up game and take its joker exchange, rob and jink announcements."""
    n = num_players
    seed, ids = chooser.seed, chooser.ids
    deck = random_deck(seed, ids, game.deck_prefix(n, rules), rules.deck_size)
    turnup = deck[5 * n]
    joker_up = jnp.zeros_like(turnup, jnp.bool_)
    if rules.joker:
        joker_up = turnup == JOKER
        turnup = jnp.where(joker_up, deck[5 * n + 1], turnup)
    trump = turnup // 13
    table = jnp.asarray(sx.tables(rules)[0])
    held = deal_sets(table[trump[None, :], deck[: 5 * n]], dealer, n, rules)
    turn_pos = table[trump, turnup]
    decisions = jnp.zeros_like(dealer)

    if rules.joker:  # the dealer lays a card away and takes the turned-up joker
        hand = select_seat(held, dealer)
        lay = pol.weakest(hand)
        choice = chooser.pick(
            dealer, decisions, hand, {GREEDY: lambda: lay, HEURISTIC: lambda: lay}
        )
        took = hand.without(bits.bit(choice)) | bits.bit(table[trump, JOKER])
        held = set_seat(held, dealer, took, joker_up)
        _record(trace, joker_up, dealer, hand, choice, CARD_SPACE, trump)
        decisions = decisions + joker_up.astype(I32)

    robber = jnp.full_like(dealer, -1)
    robbed = jnp.zeros_like(joker_up)
    if rules.robbing:  # an ace turned up: the dealer; else the holder of the ace of trumps
        ace = table[trump, trump * 13]
        for s in reversed(range(n)):
            robber = jnp.where(bits.has(held[s], ace), s, robber)
        robber = jnp.where(turnup % 13 == 0, dealer, robber)
        seat = jnp.maximum(robber, 0)
        hand = select_seat(held, seat)
        legal = hand
        if rules.rob == "optional":
            legal = Bits(hand.lo | U32(sx.PASS_BIT), hand.hi)
        lay = pol.weakest(hand)
        choice = chooser.pick(seat, decisions, legal, {GREEDY: lambda: lay, HEURISTIC: lambda: lay})
        asked = robber >= 0
        robbed = asked & (choice != sx.P_PASS)
        held = set_seat(held, seat, hand.without(bits.bit(choice)) | bits.bit(turn_pos), robbed)
        _record(trace, asked, seat, legal, choice, CARD_SPACE, trump)
        decisions = decisions + asked.astype(I32)

    dead = jnp.where(robbed, U32(0), U32(1) << (turn_pos - sx.TRUMP_BASE).astype(U32))
    jinker = jnp.full_like(dealer, -1)
    if rules.jink == "announced":  # from the eldest hand; the first announcement closes it
        every = sx.every_trump(trump, rules)
        asking = jnp.ones_like(joker_up)
        legal = Bits(jnp.full_like(dealer, sx.PASS_BIT | sx.JINK_BIT, U32), jnp.zeros_like(dead))
        for o in range(n):
            seat = (dealer + 1 + o) % n
            hand = select_seat(held, seat)
            live = pol.live_trumps(hand, U32(0), dead, every)
            sure = pol.heuristic_announce(hand, live)
            no = jnp.full_like(dealer, sx.P_PASS)
            choice = chooser.pick(
                seat, decisions, legal, {GREEDY: lambda no=no: no, HEURISTIC: lambda s=sure: s}
            )
            announces = asking & (choice == sx.P_JINK)
            jinker = jnp.where(announces, seat, jinker)
            _record(trace, asking, seat, legal, choice, CARD_SPACE, trump)
            decisions = decisions + asking.astype(I32)
            asking = asking & ~announces

    return Table(
        held_lo=[s.lo for s in held],
        held_hi=[s.hi for s in held],
        trump=trump,
        first_leader=next_seat(dealer, n),
        dead=dead,
        jinker=jinker,
        robber=robber,
        robbed=robbed,
        bid=jnp.zeros_like(dealer),
        bidder=jnp.full_like(dealer, -1),
        decisions=decisions,
    )


def _bid_codes(bid: jax.Array, bidder: jax.Array, cur: jax.Array, dealer: jax.Array) -> jax.Array:
    """uint32[B]: the legal bid codes (bit c: action PASS + c) of ``cur``."""
    is_dealer = cur == dealer
    forced = (bid == 0) & is_dealer  # everybody else passed: the dealer bids 15
    raises = U32(_RAISE_CODES) & ~((U32(2) << bid.astype(U32)) - U32(1))
    raises = jnp.where(forced, U32(1 << 1), raises)
    hold = is_dealer & (bid > 0) & (bidder != dealer)
    return (
        raises
        | jnp.where(hold, U32(1 << pol.CODE_HOLD), U32(0))
        | jnp.where(forced, U32(0), U32(1))
    )


def _partner_holds(cur: jax.Array, bidder: jax.Array, num_players: int) -> jax.Array:
    t = num_teams(num_players)
    if t == num_players:
        return jnp.zeros_like(cur, jnp.bool_)
    return (bidder >= 0) & (bidder != cur) & (bidder % t == cur % t)


class Bidding(NamedTuple):
    """The auction of a batch (the bidding loop's carry)."""

    bid: jax.Array  # int32[B]: standing bid code 0 (none), 1..4 (15..30)
    bidder: jax.Array  # int32[B]: seat holding the bid, -1 if none
    passed: jax.Array  # int32[B]: bit s: seat s has passed (is out of the auction)
    cur: jax.Array  # int32[B]: seat to bid
    over: jax.Array  # bool[B]: the auction is over
    decisions: jax.Array  # int32[B]: decisions taken


class Discarding(NamedTuple):
    """One seat's discarding in a batch (the inner discard loop's carry)."""

    hand: Bits  # Bits(uint32[B], uint32[B]): the seat's cards (positions)
    pending: jax.Array  # int32[B]: cards laid away so far, drawn on DONE
    active: jax.Array  # bool[B]: the seat is still discarding
    decisions: jax.Array  # int32[B]: decisions taken in the hand


def _bidding(
    chooser: Chooser,
    natural: list[Bits],
    dealer: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
    trace: list[Record] | None,
) -> Bidding:
    """The auction, from the eldest hand, as a scan long enough for the longest one
    (``game.max_decisions``); finished hands stand.  ``natural``: the hands as card ids."""
    n = num_players
    all_seats = (1 << n) - 1

    def bid_step(b: Bidding, _: jax.Array) -> tuple[Bidding, Record | None]:
        live = ~b.over
        hand = select_seat(natural, b.cur)
        codes = _bid_codes(b.bid, b.bidder, b.cur, dealer)
        legal = Bits(codes, jnp.zeros_like(codes))
        partner = _partner_holds(b.cur, b.bidder, n)
        cores = {
            GREEDY: lambda: pol.greedy_bid(hand, codes, rules),
            HEURISTIC: lambda: pol.heuristic_bid(hand, codes, b.bid, partner, rules),
        }
        code = chooser.pick(b.cur, b.decisions, legal, cores)
        raises = (code >= 1) & (code <= len(game.BID_VALUES))
        bid = jnp.where(live & raises, code, b.bid)
        bidder = jnp.where(live & (raises | (code == pol.CODE_HOLD)), b.cur, b.bidder)
        passed = b.passed | jnp.where(live & (code == pol.CODE_PASS), 1 << b.cur, 0)
        active = all_seats & ~passed
        ends = (sx.popcount(active.astype(U32)) == 1) & (bid > 0)
        # the next active seat: rotate the active set so that bit k is seat cur + 1 + k
        ahead = ((active >> (b.cur + 1)) | (active << (n - 1 - b.cur))) & all_seats
        following = (b.cur + 1 + sx.lowbit(ahead.astype(U32))) % n
        cur = jnp.where(live, jnp.where(ends, bidder, following), b.cur)
        record = None
        if trace is not None:
            record = _make_record(live, b.cur, legal, code, PASS, jnp.full_like(b.cur, -1))
        over = b.over | (live & ends)
        return Bidding(bid, bidder, passed, cur, over, b.decisions + live), record

    zero = jnp.zeros_like(dealer)
    start = Bidding(zero, zero - 1, zero, next_seat(dealer, n), zero != 0, zero)
    steps = n - 1 + 2 * len(game.BID_VALUES)  # passes, rising bids and holds
    b, records = jax.lax.scan(bid_step, start, jnp.arange(steps, dtype=I32))
    if trace is not None:
        trace.extend(Record(*(x[i] for x in records)) for i in range(steps))
    return b


def _name_trump(
    chooser: Chooser,
    natural: list[Bits],
    b: Bidding,
    rules: FortyFiveRules,
    trace: list[Record] | None,
) -> jax.Array:
    """int32[B]: the suit the bidder names."""
    hand = select_seat(natural, b.bidder)
    names = Bits(jnp.full_like(b.bid, _NAME_CODES, U32), jnp.zeros_like(b.bid, U32))
    cores = {
        GREEDY: lambda: pol.greedy_name(hand, rules),
        HEURISTIC: lambda: pol.heuristic_name(hand, rules),
    }
    trump = chooser.pick(b.bidder, b.decisions, names, cores)
    _record(trace, jnp.ones_like(b.over), b.bidder, names, trump, NAME_CLUBS, trump)
    return trump


def _stock_prefixes(stock: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(lo, hi) uint32[S + 1, B]: the sets of the stock's first k cards, k = 0..S."""
    prefix = [Bits(jnp.zeros_like(stock[0], U32), jnp.zeros_like(stock[0], U32))]
    for k in range(stock.shape[0]):
        prefix.append(prefix[-1] | bits.bit(stock[k]))
    return jnp.stack([p.lo for p in prefix]), jnp.stack([p.hi for p in prefix])


def _discarding(
    chooser: Chooser,
    held: list[Bits],
    stock: jax.Array,
    trump: jax.Array,
    dealer: jax.Array,
    decisions: jax.Array,
    num_players: int,
    trace: list[Record] | None,
) -> tuple[list[Bits], jax.Array]:
    """Discard and draw from the eldest hand round to the dealer: (the hands after it, the
    decisions taken).  ``stock``: the stock's positions int32[S, B], top first.

    A scan over the seats; for each, a scan of six decision slots (up to five cards laid away,
    then DONE) on that seat's hand alone, after which it draws back to five at once."""
    n = num_players
    size = stock.shape[0]
    prefix_lo, prefix_hi = _stock_prefixes(stock)

    def prefix(k: jax.Array) -> Bits:
        def at(a: jax.Array) -> jax.Array:
            return jnp.take_along_axis(a, k[None, :], axis=0)[0]

        return Bits(at(prefix_lo), at(prefix_hi))

    def seat_turn(
        carry: tuple[list[Bits], jax.Array, jax.Array], offset: jax.Array
    ) -> tuple[tuple[list[Bits], jax.Array, jax.Array], Record | None]:
        held, top, decisions = carry
        seat = (dealer + 1 + offset) % n

        def decide(c: Discarding, _: jax.Array) -> tuple[Discarding, Record | None]:
            can = top + c.pending < size  # the stock can still replace one more card
            hand = c.hand
            legal = Bits(
                jnp.where(can, hand.lo, U32(0)) | U32(sx.PASS_BIT), jnp.where(can, hand.hi, 0)
            )
            done = jnp.full_like(dealer, sx.P_PASS)
            cores = {GREEDY: lambda: done, HEURISTIC: lambda: pol.heuristic_discard(legal)}
            choice = chooser.pick(seat, c.decisions, legal, cores)
            lays = c.active & (choice != sx.P_PASS)
            record = None
            if trace is not None:
                record = _make_record(c.active, seat, legal, choice, CARD_SPACE, trump)
            return (
                Discarding(
                    hand=bits.where(lays, hand.without(bits.bit(choice)), hand),
                    pending=c.pending + lays.astype(I32),
                    active=lays,  # DONE (or nothing left to decide) ends the seat's turn
                    decisions=c.decisions + c.active.astype(I32),
                ),
                record,
            )

        start = Discarding(select_seat(held, seat), jnp.zeros_like(top), top == top, decisions)
        c, records = jax.lax.scan(decide, start, jnp.arange(_DISCARDS_PER_SEAT, dtype=I32))
        refill = prefix(top + c.pending).without(prefix(top))
        held = set_seat(held, seat, c.hand | refill, jnp.ones_like(c.active))
        return (held, top + c.pending, c.decisions), records

    top = jnp.zeros_like(dealer)
    (held, _, decisions), records = jax.lax.scan(
        seat_turn, (held, top, decisions), jnp.arange(n, dtype=I32)
    )
    if trace is not None:
        for o in range(n):
            trace.extend(Record(*(x[o, j] for x in records)) for j in range(_DISCARDS_PER_SEAT))
    return held, decisions


def _auction_hand(
    chooser: Chooser,
    dealer: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
    trace: list[Record] | None,
) -> Table:
    """Deal an Auction hand and take its bidding, naming of trump and discard-and-draw."""
    n = num_players
    deck = random_deck(chooser.seed, chooser.ids, rules.deck_size, rules.deck_size)
    natural = deal_sets(deck, dealer, n, rules)  # card ids are their own positions here
    b = _bidding(chooser, natural, dealer, n, rules, trace)
    trump = _name_trump(chooser, natural, b, rules, trace)
    positions = jnp.asarray(sx.tables(rules)[0])[trump[None, :], deck]  # int32[D, B]
    held = deal_sets(positions, dealer, n, rules)
    stock = positions[5 * n :]
    held, decisions = _discarding(chooser, held, stock, trump, dealer, b.decisions + 1, n, trace)
    minus_one = jnp.full_like(dealer, -1)
    return Table(
        held_lo=[s.lo for s in held],
        held_hi=[s.hi for s in held],
        trump=trump,
        first_leader=next_seat(b.bidder, n),
        dead=jnp.zeros_like(dealer, U32),
        jinker=minus_one,
        robber=minus_one,
        robbed=jnp.zeros_like(dealer, jnp.bool_),
        bid=jnp.where(b.bid > 0, 10 + 5 * b.bid, 0),  # code c bids BID_VALUES[c - 1]
        bidder=b.bidder,
        decisions=decisions,
    )


# ------------------------------------------------------------------------ the play


def legal_play(hand: Bits, status: jax.Array, rules: FortyFiveRules) -> Bits:
    """The cards of ``hand`` that may be played (RULES.md §5, §7) given the packed status."""
    led = get(status, _F_LED) - 1
    level = get(status, _F_LEVEL) - 1
    trumps = hand.hi & U32(sx.trump_mask(rules))
    suit = hand & sx.slot_mask(led)
    follow = Bits(suit.lo, suit.hi | trumps)
    obliged = follow if rules.follow == "seed" else suit
    must = bits.nonempty(obliged)
    plain_led = bits.where(must, follow, hand)
    eligible = U32(sx.top_mask(rules)) & sx.above(level)  # top trumps that may be withheld
    forced = (trumps & ~eligible) != 0
    trump_led = Bits(jnp.where(forced, U32(0), hand.lo), jnp.where(forced, trumps, hand.hi))
    followed = bits.where(led == sx.TRUMP_SLOT, trump_led, plain_led)
    return bits.where(led < 0, hand, followed)


def play_step(
    p: Play, table: Table, pos: jax.Array, num_players: int, rules: FortyFiveRules
) -> Play:
    """Play position ``pos`` (int32[B], legal) in every live hand; finished hands stand."""
    n = num_players
    t = num_teams(n)
    st = p.status
    live = get(st, _F_DONE) == 0
    cur = get(st, _F_CUR)
    slot, strength = pos >> 4, pos & 15
    led_old = get(st, _F_LED) - 1
    leading = led_old < 0
    led = jnp.where(leading, slot, led_old)
    is_trump = slot == sx.TRUMP_SLOT
    power = jnp.where(is_trump, sx.TRUMP_POWER + strength, jnp.where(slot == led, strength, -1))
    best_old = get(st, _F_BEST) - 1
    take = leading | (power > best_old)
    best = jnp.where(take, power, best_old)
    seat = jnp.where(take, cur, get(st, _F_SEAT))
    level_old = get(st, _F_LEVEL) - 1
    trump_played = jnp.where(is_trump, strength, -1)
    if rules.renege == "deal":
        level = jnp.maximum(level_old, trump_played)
    elif rules.renege == "trick":
        level = jnp.where(leading, trump_played, jnp.maximum(level_old, trump_played))
    else:  # "led"
        level = jnp.where(leading, trump_played, level_old)
    leader = get(st, _F_LEADER)
    nxt = next_seat(cur, n)
    trick_over = nxt == leader
    trick_num = get(st, _F_TRICK) + trick_over.astype(I32)
    done = trick_over & (trick_num == NUM_TRICKS)
    if rules.jink == "announced":  # a trick lost ends an announced jink at once
        done = done | (trick_over & (table.jinker >= 0) & (seat % t != table.jinker % t))
    new = put(st, _F_CUR, jnp.where(trick_over, seat, nxt))
    new = put(new, _F_LEADER, jnp.where(trick_over, seat, leader))
    new = put(new, _F_LED, jnp.where(trick_over, 0, led + 1))
    new = put(new, _F_BEST, jnp.where(trick_over, 0, best + 1))
    new = put(new, _F_SEAT, seat)
    new = put(new, _F_LEVEL, level + 1)
    new = put(new, _F_TRICK, trick_num)
    new = put(new, _F_DONE, done)
    card = bits.bit(pos)
    played = p.trumps & U32(sx.SLOT2_MASK)
    counts = live & is_trump
    higher = counts & (strength > sx.highbit(played))
    trumps = p.trumps | jnp.where(counts, U32(1) << strength.astype(U32), U32(0))
    best_seat = cur.astype(U32) << U32(_BEST_SEAT_SHIFT)
    trumps = jnp.where(higher, (trumps & U32(sx.SLOT2_MASK)) | best_seat, trumps)
    won = jnp.where(live & trick_over, jnp.left_shift(1, _TRICK_BITS * seat), 0)
    return Play(
        removed_lo=p.removed_lo | jnp.where(live, card.lo, U32(0)),
        removed_hi=p.removed_hi | jnp.where(live, card.hi, U32(0)),
        status=jnp.where(live, new, st),
        tricks=p.tricks + won,
        trumps=trumps,
    )


def hand_now(p: Play, table: Table, seat: jax.Array) -> Bits:
    """The cards ``seat`` holds now."""
    dealt = Bits(seat_select(table.held_lo, seat), seat_select(table.held_hi, seat))
    return dealt.without(Bits(p.removed_lo, p.removed_hi))


def _play_hand(
    table: Table,
    chooser: Chooser,
    num_players: int,
    rules: FortyFiveRules,
    trace: list[Record] | None,
) -> Play:
    """Play the tricks of every hand to the end (a scan of 5N steps)."""
    n = num_players
    t = num_teams(n)
    every = sx.every_trump(table.trump, rules)

    def legal_of(p: Play) -> tuple[jax.Array, Bits, Bits]:
        cur = get(p.status, _F_CUR)
        hand = hand_now(p, table, cur)
        return cur, hand, legal_play(hand, p.status, rules)

    def choose(p: Play, step: jax.Array) -> jax.Array:
        cur, hand, legal = legal_of(p)
        led = get(p.status, _F_LED) - 1
        best = get(p.status, _F_BEST) - 1
        partner_winning = (led >= 0) & (get(p.status, _F_SEAT) % t == cur % t)
        live = pol.live_trumps(hand, p.trumps & U32(sx.SLOT2_MASK), table.dead, every)
        cores = {
            GREEDY: lambda: pol.greedy_play(legal, led, best, partner_winning),
            HEURISTIC: lambda: pol.heuristic_play(hand, legal, led, best, partner_winning, live),
        }
        return chooser.pick(cur, table.decisions + step, legal, cores)

    def body(
        carry: tuple[Play, jax.Array], step: jax.Array
    ) -> tuple[tuple[Play, jax.Array], Record | None]:
        p, pos = carry
        record = None
        if trace is not None:
            cur, _, legal = legal_of(p)
            live = get(p.status, _F_DONE) == 0
            record = _make_record(live, cur, legal, pos, CARD_SPACE, table.trump)
        p = play_step(p, table, pos, n, rules)
        # The next choice is carried: XLA then computes it once per step.
        return (p, choose(p, step + 1)), record

    zero = jnp.zeros_like(table.first_leader)
    status = put(put(zero, _F_CUR, table.first_leader), _F_LEADER, table.first_leader)
    u0 = zero.astype(U32)
    start = Play(u0, u0, status, zero, u0)
    steps = NUM_TRICKS * n
    (p, _), records = jax.lax.scan(
        body, (start, choose(start, jnp.int32(0))), jnp.arange(steps, dtype=I32)
    )
    if trace is not None:
        trace.extend(Record(*(x[i] for x in records)) for i in range(steps))
    return p


def outcome(p: Play, table: Table, num_players: int, rules: FortyFiveRules) -> Outcome:
    """Score a batch of finished hands (``game.hand_points`` on the kernel's layout)."""
    n = num_players
    t = num_teams(n)
    tricks = jnp.stack([(p.tricks >> (_TRICK_BITS * s)) & 7 for s in range(n)], axis=-1)
    team_of = np.arange(n) % t
    on_team = jnp.asarray(team_of[None, :] == np.arange(t)[:, None])  # bool[T, N]
    team_tricks = jnp.where(on_team[None], tricks[:, None, :], 0).sum(-1)  # [B, T]
    teams = jnp.arange(t)[None, :]
    if rules.scoring == "hoyle":
        pts = jnp.where(team_tricks == NUM_TRICKS, 10, jnp.where(team_tricks >= 3, 5, 0))
    else:
        pts = POINTS_PER_TRICK * team_tricks
        if rules.bonus:
            any_trump = (p.trumps & U32(sx.SLOT2_MASK)) != 0
            best_seat = (p.trumps >> U32(_BEST_SEAT_SHIFT)).astype(I32)
            bonus = any_trump[:, None] & (teams == (best_seat % t)[:, None])
            pts = pts + jnp.where(bonus, POINTS_PER_TRICK, 0)
    jinked = table.jinker >= 0
    jinker_team = jnp.maximum(table.jinker, 0) % t
    jink_tricks = jnp.take_along_axis(team_tricks, jinker_team[:, None], axis=1)[:, 0]
    jink_won = jinked & (jink_tricks == NUM_TRICKS)
    if rules.jink == "announced":
        mine = jinked[:, None] & (teams == jinker_team[:, None])
        pts = jnp.where(mine, 2 * pts, pts)
        pts = jnp.where((jinked & ~jink_won)[:, None], 0, pts)
    if rules.auction:
        on_bid = teams == (table.bidder % t)[:, None]
        made = jnp.where(on_bid, pts, 0).sum(-1)
        bid = table.bid
        scored = jnp.where(made >= bid, jnp.where(bid == 30, 2 * made, made), -bid)
        pts = jnp.where(on_bid, scored[:, None], pts)
    return Outcome(
        team_points=pts.astype(I32),
        tricks_won=tricks.astype(I32),
        decisions=table.decisions + n * get(p.status, _F_TRICK),
        jinked=jinked,
        jink_won=jink_won,
        robbed=table.robbed,
        robber=table.robber,
        bid=table.bid.astype(I32),
        bidder=table.bidder.astype(I32),
    )


# ------------------------------------------------------------------------ entry points


def play_hands(
    seed: jax.Array,
    ids: jax.Array,
    dealer: jax.Array,
    seat_kinds: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
    kinds: frozenset[int],
    trace: bool = False,
) -> Outcome | tuple[Outcome, Record]:
    """Deal and play hands ``ids`` uint32[B] to the end with the built-in policies.

    seed: uint32[] of the rollout; dealer: int32[B]; seat_kinds: int32[] (``pack_kinds``);
    kinds: the ``KINDS`` indices present (static).  With ``trace`` also every decision: a
    ``Record`` of [D, B] arrays, D decision slots in the order taken (``public_trace``).
    """
    chooser = Chooser(seed, ids, jnp.asarray(seat_kinds, I32), kinds)
    log: list[Record] | None = [] if trace else None
    prepare = _auction_hand if rules.auction else _turnup_hand
    table = prepare(chooser, dealer, num_players, rules, log)
    p = _play_hand(table, chooser, num_players, rules, log)
    out = outcome(p, table, num_players, rules)
    if log is None:
        return out
    return out, Record(*(jnp.stack([getattr(r, f) for r in log]) for f in Record._fields))


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3))
def rollout_chunk(
    num_players: int,
    rules: FortyFiveRules,
    kinds: frozenset[int],
    shape: tuple[int, int],
    seed: jax.Array,
    first: jax.Array,
    count: jax.Array,
    dealer: jax.Array,
    seat_kinds: jax.Array,
) -> Outcome:
    """Up to ``shape[0]`` batches of ``shape[1]`` hands, ids ``first``, ``first + 1``, ...; only
    the first ``count`` batches are played (traced: one compile for any run size), the rest of
    the output is zero.  Outcome fields are [shape[0] * shape[1], ...]."""
    from spoilfive_jax.tools.rollout import _shard_batch

    k, b = shape

    def one(i: jax.Array) -> Outcome:
        ids = _shard_batch(first + (i * b + jnp.arange(b, dtype=U32)))
        # A per-hand vector XLA cannot fold back to a scalar: with a broadcast scalar dealer,
        # the seat arithmetic of the Auction loops compiles to code several times slower.
        dl = jax.lax.optimization_barrier(jnp.broadcast_to(dealer, (b,)).astype(I32))
        out = play_hands(seed, ids, dl, seat_kinds, num_players, rules, kinds)
        assert isinstance(out, Outcome)
        return out

    def skip(i: jax.Array) -> Outcome:
        return jax.tree.map(jnp.zeros_like, jax.eval_shape(one, i))

    out = jax.lax.map(lambda i: jax.lax.cond(i < count, one, skip, i), jnp.arange(k, dtype=U32))
    return jax.tree.map(lambda x: x.reshape((k * b, *x.shape[2:])), out)


__all__ = [
    "GREEDY",
    "HEURISTIC",
    "KINDS",
    "RANDOM",
    "Outcome",
    "Record",
    "legal_play",
    "pack_kinds",
    "play_hands",
    "public_trace",
    "random_deck",
    "rollout_chunk",
]
