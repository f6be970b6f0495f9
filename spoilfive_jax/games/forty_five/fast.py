"""The Forty-Five family's rollout kernel: whole hands of any game of the family (Forty-Five,
Twenty-Five, Auction Forty-Fives; the joker, robbing, jink and scoring options; 2..10 players)
played by the built-in policies on a batch-major, strength-encoded layout.

The public ``State``/``step`` (``game``) is general and pgx-shaped; rollouts need raw speed.
This module plays the SAME rules (``tests/forty_five/test_fast.py`` replays its choices through
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

This module deals and runs the phases before the play, and ``play_hands`` is the entry point;
the layout, the play of the tricks and the scoring are in ``fast_play``.  The generic rollout
and scorer reach the kernel through ``FortyFive.rollout_kernel`` (``rollouts``), which plays
the decks of ``FortyFive.rollout_deal``/``known_deal`` (``random_deck`` for rollouts).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

import spoilfive_jax.games.forty_five.game as game
import spoilfive_jax.games.forty_five.policies as pol
import spoilfive_jax.games.forty_five.strength as sx
from spoilfive_jax.core import bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.deal import entitled_to_rob
from spoilfive_jax.core.kernel import seat_select
from spoilfive_jax.games.forty_five.fast_play import (
    CARD_SPACE,
    GREEDY,
    HEURISTIC,
    KIND_BITS,
    KINDS,
    RANDOM,
    Chooser,
    Outcome,
    Record,
    Table,
    add_record,
    deal_sets,
    legal_play,
    make_record,
    next_seat,
    outcome,
    pack_kinds,
    play_tricks,
    public_trace,
    random_deck,
    select_seat,
    set_seat,
)
from spoilfive_jax.games.forty_five.game import JOKER, NAME_CLUBS, PASS
from spoilfive_jax.games.forty_five.legal import (
    CODE_HOLD,
    CODE_PASS,
    auction_turn,
    bid_codes,
    discard_choices,
    rob_choices,
)
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams

U32, I32 = sx.U32, sx.I32

NUM_BID_CODES = 6  # PASS, BID_15..BID_30, HOLD (action - PASS)
_NAME_CODES = 0xF  # the four suits
_PASS_POSITION = bits.const([sx.P_PASS])  # PASS among the cards' strength positions
_DISCARDS_PER_SEAT = 6  # up to five cards laid away, then DONE


# ------------------------------------------------------------------------ before the play


def _const(x: jax.Array) -> Callable[[], jax.Array]:
    """A policy core that is already decided (``Chooser.pick`` calls it)."""
    return lambda: x


class _Turnup(NamedTuple):
    """A turn-up game's batch before the play (``_turnup_hand``); ``[B]`` vectors."""

    held: list[Bits]  # N sets: each seat's cards (strength positions)
    trump: jax.Array  # int32: trump suit
    turn_pos: jax.Array  # int32: the turn-up's position
    decisions: jax.Array  # int32: decisions taken so far


def _kernel_joker(
    chooser: Chooser,
    h: _Turnup,
    joker_up: jax.Array,
    dealer: jax.Array,
    joker_pos: jax.Array,
    trace: list[Record] | None,
) -> _Turnup:
    """The joker turned up: the dealer lays a card away and takes it."""
    hand = select_seat(h.held, dealer)
    lay = pol.weakest(hand)
    choice = chooser.pick(dealer, h.decisions, hand, {GREEDY: lambda: lay, HEURISTIC: lambda: lay})
    took = hand.without(bits.bit(choice)) | bits.bit(joker_pos)
    held = set_seat(h.held, dealer, took, joker_up)
    add_record(trace, joker_up, dealer, hand, choice, CARD_SPACE, h.trump)
    return h._replace(held=held, decisions=h.decisions + joker_up.astype(I32))


def _kernel_rob(
    chooser: Chooser,
    h: _Turnup,
    turnup: jax.Array,
    dealer: jax.Array,
    ace: jax.Array,
    rules: FortyFiveRules,
    trace: list[Record] | None,
) -> tuple[_Turnup, jax.Array, jax.Array]:
    """An ace turned up: the dealer may rob; else the holder of the ace of trumps (position
    ``ace``).  Returns the batch, the robber (-1: nobody) and whether it robbed."""
    holder = jnp.full_like(dealer, -1)
    for s in reversed(range(len(h.held))):
        holder = jnp.where(bits.has(h.held[s], ace), s, holder)
    robber = entitled_to_rob(turnup, dealer, holder)
    seat = jnp.maximum(robber, 0)
    hand = select_seat(h.held, seat)
    legal = rob_choices(hand, _PASS_POSITION, rules)
    lay = pol.weakest(hand)
    choice = chooser.pick(seat, h.decisions, legal, {GREEDY: lambda: lay, HEURISTIC: lambda: lay})
    asked = robber >= 0
    robbed = asked & (choice != sx.P_PASS)
    took = hand.without(bits.bit(choice)) | bits.bit(h.turn_pos)
    held = set_seat(h.held, seat, took, robbed)
    add_record(trace, asked, seat, legal, choice, CARD_SPACE, h.trump)
    return h._replace(held=held, decisions=h.decisions + asked.astype(I32)), robber, robbed


def _kernel_announce(
    chooser: Chooser,
    h: _Turnup,
    dealer: jax.Array,
    dead: jax.Array,
    rules: FortyFiveRules,
    trace: list[Record] | None,
    first: jax.Array | None = None,
) -> tuple[_Turnup, jax.Array]:
    """Jink announcements from the eldest hand; the first announcement closes them.  Returns
    the batch and the jinker (-1: none).  ``first`` int32[B]: start at the seat this far from
    the eldest hand (mid-hand; N: none left to ask), by default the eldest hand."""
    n = len(h.held)
    every = sx.every_trump(h.trump, rules)
    jinker = jnp.full_like(dealer, -1)
    decisions = h.decisions
    asking = jnp.ones_like(h.turn_pos, jnp.bool_)  # (the shape of the turn-ups)
    legal = Bits(jnp.full_like(dealer, sx.PASS_BIT | sx.JINK_BIT, U32), jnp.zeros_like(dead))
    for o in range(n):
        seat = (dealer + 1 + o) % n
        ask = asking if first is None else asking & (o >= first)
        hand = select_seat(h.held, seat)
        live = pol.live_trumps(hand, U32(0), dead, every)
        sure = pol.heuristic_announce(hand, live)
        no = jnp.full_like(dealer, sx.P_PASS)
        choice = chooser.pick(seat, decisions, legal, {GREEDY: _const(no), HEURISTIC: _const(sure)})
        announces = ask & (choice == sx.P_JINK)
        jinker = jnp.where(announces, seat, jinker)
        add_record(trace, ask, seat, legal, choice, CARD_SPACE, h.trump)
        decisions = decisions + ask.astype(I32)
        asking = asking & ~announces
    return h._replace(decisions=decisions), jinker


def _turnup_hand(
    chooser: Chooser,
    deck: jax.Array,
    dealer: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
    trace: list[Record] | None,
) -> Table:
    """Deal a turn-up game from ``deck`` int32[K, B] and take its joker exchange, rob and jink
    announcements."""
    n = num_players
    turnup = deck[5 * n]
    joker_up = jnp.zeros_like(turnup, jnp.bool_)
    if rules.joker:
        joker_up = turnup == JOKER
        turnup = jnp.where(joker_up, deck[5 * n + 1], turnup)
    trump = turnup // 13
    table = jnp.asarray(sx.tables(rules)[0])
    held = deal_sets(table[trump[None, :], deck[: 5 * n]], dealer, n, rules)
    h = _Turnup(held, trump, table[trump, turnup], jnp.zeros_like(dealer))
    if rules.joker:
        h = _kernel_joker(chooser, h, joker_up, dealer, table[trump, JOKER], trace)
    robber = jnp.full_like(dealer, -1)
    robbed = jnp.zeros_like(joker_up)
    if rules.robbing:
        ace = table[trump, trump * 13]
        h, robber, robbed = _kernel_rob(chooser, h, turnup, dealer, ace, rules, trace)
    dead = jnp.where(robbed, U32(0), U32(1) << (h.turn_pos - sx.TRUMP_BASE).astype(U32))
    jinker = jnp.full_like(dealer, -1)
    if rules.jink == "announced":
        h, jinker = _kernel_announce(chooser, h, dealer, dead, rules, trace)
    return Table(
        held_lo=[s.lo for s in h.held],
        held_hi=[s.hi for s in h.held],
        trump=trump,
        first_leader=next_seat(dealer, n),
        dead=dead,
        jinker=jinker,
        robber=robber,
        robbed=robbed,
        bid=jnp.zeros_like(dealer),
        bidder=jnp.full_like(dealer, -1),
        decisions=h.decisions,
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
    start: Bidding | None = None,
    lowest: list[jax.Array] | None = None,
) -> Bidding:
    """The auction, from the eldest hand, as a scan long enough for the longest one
    (``game.max_decisions``); finished hands stand.  ``natural``: the hands as card ids.
    Mid-hand: ``start`` the auction so far, ``lowest`` N x int32[B] each seat's lowest bid
    code (``legal.bid_codes``)."""
    n = num_players

    def bid_step(b: Bidding, _: jax.Array) -> tuple[Bidding, Record | None]:
        live = ~b.over
        hand = select_seat(natural, b.cur)
        low = 1 if lowest is None else seat_select(lowest, b.cur)
        codes = bid_codes(b.bid, b.bidder, b.cur, dealer, low)
        legal = Bits(codes, jnp.zeros_like(codes))
        partner = _partner_holds(b.cur, b.bidder, n)
        cores = {
            GREEDY: lambda: pol.greedy_bid(hand, codes, rules),
            HEURISTIC: lambda: pol.heuristic_bid(hand, codes, b.bid, partner, rules),
        }
        code = chooser.pick(b.cur, b.decisions, legal, cores)
        raises = (code >= 1) & (code <= len(game.BID_VALUES))
        bid = jnp.where(live & raises, code, b.bid)
        bidder = jnp.where(live & (raises | (code == CODE_HOLD)), b.cur, b.bidder)
        passed = b.passed | jnp.where(live & (code == CODE_PASS), 1 << b.cur, 0)
        ends, following = auction_turn(passed, bid, b.cur, n)
        cur = jnp.where(live, jnp.where(ends, bidder, following), b.cur)
        record = None
        if trace is not None:
            record = make_record(live, b.cur, legal, code, PASS, jnp.full_like(b.cur, -1))
        over = b.over | (live & ends)
        return Bidding(bid, bidder, passed, cur, over, b.decisions + live), record

    zero = jnp.zeros_like(dealer)
    if start is None:
        start = Bidding(zero, zero - 1, zero, next_seat(dealer, n), zero != 0, zero)
    steps = n - 1 + 2 * len(game.BID_VALUES)  # passes, rising bids and holds
    b, records = jax.lax.scan(bid_step, start, jnp.arange(steps, dtype=I32))
    if trace is not None:
        assert records is not None
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
    add_record(trace, jnp.ones_like(b.over), b.bidder, names, trump, NAME_CLUBS, trump)
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
    resume: tuple[jax.Array, jax.Array, jax.Array] | None = None,
) -> tuple[list[Bits], jax.Array]:
    """Discard and draw from the eldest hand round to the dealer: (the hands after it, the
    decisions taken).  ``stock``: the stock's positions int32[S, B], top first.  Mid-hand:
    ``resume`` = (first, top, pending) int32[B]: the seat this far from the eldest hand
    discards first (N: nobody), the stock's cards drawn so far, the cards it has laid away.

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
            legal = discard_choices(hand, _PASS_POSITION, can)
            done = jnp.full_like(dealer, sx.P_PASS)
            cores = {GREEDY: lambda: done, HEURISTIC: lambda: pol.heuristic_discard(legal)}
            choice = chooser.pick(seat, c.decisions, legal, cores)
            lays = c.active & (choice != sx.P_PASS)
            record = None
            if trace is not None:
                record = make_record(c.active, seat, legal, choice, CARD_SPACE, trump)
            return (
                Discarding(
                    hand=bits.where(lays, hand.without(bits.bit(choice)), hand),
                    pending=c.pending + lays.astype(I32),
                    active=lays,  # DONE (or nothing left to decide) ends the seat's turn
                    decisions=c.decisions + c.active.astype(I32),
                ),
                record,
            )

        pending, active = jnp.zeros_like(top), top == top
        if resume is not None:
            pending = jnp.where(offset == resume[0], resume[2], 0)
            active = offset >= resume[0]
        start = Discarding(select_seat(held, seat), pending, active, decisions)
        c, records = jax.lax.scan(decide, start, jnp.arange(_DISCARDS_PER_SEAT, dtype=I32))
        refill = prefix(top + c.pending).without(prefix(top))
        held = set_seat(held, seat, c.hand | refill, jnp.ones_like(c.active))
        return (held, top + c.pending, c.decisions), records

    top = jnp.zeros_like(dealer) if resume is None else resume[1]
    (held, _, decisions), records = jax.lax.scan(
        seat_turn, (held, top, decisions), jnp.arange(n, dtype=I32)
    )
    if trace is not None:
        for o in range(n):
            assert records is not None
            trace.extend(Record(*(x[o, j] for x in records)) for j in range(_DISCARDS_PER_SEAT))
    return held, decisions


def _auction_hand(
    chooser: Chooser,
    deck: jax.Array,
    dealer: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
    trace: list[Record] | None,
) -> Table:
    """Deal an Auction hand from ``deck`` int32[deck_size, B] (the whole deck) and take its
    bidding, naming of trump and discard-and-draw."""
    n = num_players
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
    deck: jax.Array | None = None,
) -> Outcome | tuple[Outcome, Record]:
    """Deal and play hands ``ids`` uint32[B] to the end with the built-in policies.

    seed: uint32[] of the rollout; dealer: int32[B]; seat_kinds: int32[] (``pack_kinds``);
    kinds: the ``KINDS`` indices present (static).  With ``trace`` also every decision: a
    ``Record`` of [D, B] arrays, D decision slots in the order taken (``public_trace``).
    ``deck``: int32[``game.deck_prefix``, B] the decks in deal order (card ids, deck[0] first);
    by default ``random_deck(seed, ids, ...)``, the decks of ``FortyFive.rollout_deal``.
    """
    if deck is None:
        deck = random_deck(seed, ids, game.deck_prefix(num_players, rules), rules.deck_size)
    chooser = Chooser(seed, ids, jnp.asarray(seat_kinds, I32), kinds)
    log: list[Record] | None = [] if trace else None
    prepare = _auction_hand if rules.auction else _turnup_hand
    table = prepare(chooser, deck, dealer, num_players, rules, log)
    p = play_tricks(table, chooser, num_players, rules, log)
    out = outcome(p, table, num_players, rules)
    if log is None:
        return out
    return out, Record(*(jnp.stack([getattr(r, f) for r in log]) for f in Record._fields))


__all__ = [
    "CARD_SPACE",
    "GREEDY",
    "HEURISTIC",
    "KINDS",
    "KIND_BITS",
    "RANDOM",
    "Outcome",
    "Record",
    "legal_play",
    "pack_kinds",
    "play_hands",
    "public_trace",
    "random_deck",
]
