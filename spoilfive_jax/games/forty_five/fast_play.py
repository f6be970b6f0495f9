"""The layout of the Forty-Five family's rollout kernel (``fast``) and its play of the tricks.

Batch-major records (``Table``, ``Play``, ``Outcome``, ``Record``), who chooses (``Chooser``:
each seat's policy kind, counter-hash randomness), seats and decks as ``[B]`` vectors, then the
play of the five tricks on the strength encoding and the scoring of a batch.  ``fast`` deals,
runs the phases before the play (joker, rob, jink; or bidding, trump, discard-and-draw) and is
the entry point; the module docstring there describes the design.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.policies as pol
import spoilfive_jax.games.forty_five.strength as sx
from spoilfive_jax.core import bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.deal import deal_positions
from spoilfive_jax.core.kernel import (
    follow_positions,
    mix,
    random_choice,
    seat_select,
    trick_play,
)
from spoilfive_jax.core.packed import Field, get, is_clear, put, seat_value
from spoilfive_jax.games.forty_five.game import NUM_TRICKS
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams
from spoilfive_jax.games.forty_five.scoring import team_points, team_totals

U32, I32 = sx.U32, sx.I32

KINDS = ("random", "greedy", "heuristic")  # a seat's policy kind is its index here
RANDOM, GREEDY, HEURISTIC = 0, 1, 2
KIND_BITS = 2  # bits per seat in ``seat_kinds``

_DECK_COUNTER = 0x10000  # hash counters of the deck draws (decisions count from 0)
_TRICK_BITS = 3  # tricks won per seat in ``Play.tricks``
_BEST_SEAT_SHIFT = 16  # ``Play.trumps``: bits 0..14 trump strengths played, 16..19 the seat

# The packed play status (``core.packed``); a field that can be -1 is stored + 1.
_F_CUR = Field(0, 4)  # seat to act
_F_LEADER = Field(4, 4)  # seat that leads the current trick
_F_LED = Field(8, 3, offset=1)  # slot led (-1: nothing led yet this trick)
_F_BEST = Field(11, 5, offset=1)  # trick power winning
_F_SEAT = Field(16, 4)  # seat winning the trick
_F_LEVEL = Field(20, 5, offset=1)  # renege level
_F_TRICK = Field(25, 3)  # tricks completed
_F_DONE = Field(28, 1, flag=True)  # the hand is over


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
    rows = deal_positions(n, rules)  # [N, 5]: deck indices by offset
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


def add_record(
    trace: list[Record] | None,
    valid: jax.Array,
    player: jax.Array,
    legal: Bits,
    choice: jax.Array,
    space: int,
    trump: jax.Array,
) -> None:
    if trace is not None:
        trace.append(make_record(valid, player, legal, choice, space, trump))


def make_record(
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


# ------------------------------------------------------------------------ the play


def legal_play(hand: Bits, status: jax.Array, rules: FortyFiveRules) -> Bits:
    """The cards of ``hand`` that may be played (docs/rules.md) given the packed status."""
    led, level = get(status, _F_LED), get(status, _F_LEVEL)
    trumps, tops = int(sx.trump_mask(rules)), int(sx.top_mask(rules))
    return follow_positions(hand, led, level, trumps, tops, rules.follow)


def play_step(
    p: Play, table: Table, pos: jax.Array, num_players: int, rules: FortyFiveRules
) -> Play:
    """Play position ``pos`` (int32[B], legal) in every live hand; finished hands stand."""
    n = num_players
    t = num_teams(n)
    st = p.status
    live = is_clear(st, _F_DONE)
    cur = get(st, _F_CUR)
    led, best, seat, level, is_trump, strength = trick_play(
        pos,
        cur,
        get(st, _F_LED),
        get(st, _F_BEST),
        get(st, _F_SEAT),
        get(st, _F_LEVEL),
        rules.renege,
        sx.TRUMP_SLOT,
        sx.TRUMP_POWER,
    )
    leader = get(st, _F_LEADER)
    nxt = next_seat(cur, n)
    trick_over = nxt == leader
    trick_num = get(st, _F_TRICK) + trick_over.astype(I32)
    done = trick_over & (trick_num == NUM_TRICKS)
    if rules.jink == "announced":  # a trick lost ends an announced jink at once
        done = done | (trick_over & (table.jinker >= 0) & (seat % t != table.jinker % t))
    new = put(st, _F_CUR, jnp.where(trick_over, seat, nxt))
    new = put(new, _F_LEADER, jnp.where(trick_over, seat, leader))
    new = put(new, _F_LED, jnp.where(trick_over, -1, led))
    new = put(new, _F_BEST, jnp.where(trick_over, -1, best))
    new = put(new, _F_SEAT, seat)
    new = put(new, _F_LEVEL, level)
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


def play_legal(p: Play, table: Table, rules: FortyFiveRules) -> tuple[jax.Array, Bits, Bits]:
    """(the seat to act int32[B], its cards, its legal cards) of a batch in play."""
    cur = get(p.status, _F_CUR)
    hand = hand_now(p, table, cur)
    return cur, hand, legal_play(hand, p.status, rules)


def choose_play(
    p: Play,
    table: Table,
    chooser: Chooser,
    decision: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
) -> jax.Array:
    """int32[B]: the position the seat to act plays (its policy's choice; ``decision``: the
    hands' decision counters, for the random choices)."""
    t = num_teams(num_players)
    cur, hand, legal = play_legal(p, table, rules)
    led = get(p.status, _F_LED)
    best = get(p.status, _F_BEST)
    partner_winning = (led >= 0) & (get(p.status, _F_SEAT) % t == cur % t)
    every = sx.every_trump(table.trump, rules)
    live = pol.live_trumps(hand, p.trumps & U32(sx.SLOT2_MASK), table.dead, every)
    cores = {
        GREEDY: lambda: pol.greedy_play(legal, led, best, partner_winning),
        HEURISTIC: lambda: pol.heuristic_play(hand, legal, led, best, partner_winning, live),
    }
    return chooser.pick(cur, decision, legal, cores)


def play_tricks(
    table: Table,
    chooser: Chooser,
    num_players: int,
    rules: FortyFiveRules,
    trace: list[Record] | None,
) -> Play:
    """Play the tricks of every hand to the end (a scan of 5N steps)."""
    n = num_players

    def legal_of(p: Play) -> tuple[jax.Array, Bits, Bits]:
        return play_legal(p, table, rules)

    def choose(p: Play, step: jax.Array) -> jax.Array:
        return choose_play(p, table, chooser, table.decisions + step, n, rules)

    def body(
        carry: tuple[Play, jax.Array], step: jax.Array
    ) -> tuple[tuple[Play, jax.Array], Record | None]:
        p, pos = carry
        record = None
        if trace is not None:
            cur, _, legal = legal_of(p)
            live = is_clear(p.status, _F_DONE)
            record = make_record(live, cur, legal, pos, CARD_SPACE, table.trump)
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
        assert records is not None
        trace.extend(Record(*(x[i] for x in records)) for i in range(steps))
    return p


def outcome(p: Play, table: Table, num_players: int, rules: FortyFiveRules) -> Outcome:
    """Score a batch of finished hands (``game.hand_points`` on the kernel's layout)."""
    n = num_players
    t = num_teams(n)
    tricks = jnp.stack([seat_value(p.tricks, s, _TRICK_BITS) for s in range(n)], axis=-1)
    team_tricks = team_totals(tricks, n)  # [B, T]
    any_trump = (p.trumps & U32(sx.SLOT2_MASK)) != 0
    best_seat = (p.trumps >> U32(_BEST_SEAT_SHIFT)).astype(I32)
    jinked = table.jinker >= 0
    jinker_team = jnp.maximum(table.jinker, 0) % t
    jink_tricks = jnp.take_along_axis(team_tricks, jinker_team[:, None], axis=1)[:, 0]
    jink_won = jinked & (jink_tricks == NUM_TRICKS)
    pts = team_points(
        team_tricks,
        jnp.where(any_trump, best_seat % t, -1),
        jnp.where(jinked, jinker_team, -1),
        jinked & ~jink_won,
        table.bid,
        table.bidder % t,
        rules,
    )
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
