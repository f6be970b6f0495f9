"""The rollout kernel: whole hands of Spoil Five on a batch-major, strength-encoded layout.

The public ``State``/``step`` (``game``) is general and pgx-shaped; rollouts need raw speed.
This module plays the SAME rules (an equivalence test replays its choices through ``step``)
on a layout built for XLA:CPU/GPU loops:

- Batch-major: every field is a ``[B]`` vector; per-seat data is a Python list of ``[B]``
  vectors, so each op is one vectorised elementwise loop (no [B, N, 2] broadcasts).
- Strength encoding: once the turn-up is known, a card's position in its 64-bit set says its
  class and strength.  Slot ``position >> 4``: 0, 1, 3 hold the three plain suits (the
  non-trump suits in suit order), slot 2 (positions 32..45) holds the trumps; ``position & 15``
  is the strength (``cards.TRUMP_STRENGTH`` / ``cards.PLAIN_STRENGTH``).  Following suit,
  reneging and trick winners become constant masks and comparisons.
- Packed status: the small per-hand integers live in one int32 word (``_F_*`` fields,
  ``core.packed``) and the tricks of all seats in another (3 bits a seat), so a decision writes
  few arrays.
- Random choices come from a counter-based hash of (seed, hand, decision): no key splitting.

Positions 13, 14, 15 (never cards) stand for PASS, JINK and CLAIM in action sets.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core import kernel
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import NUM_CARDS
from spoilfive_jax.core.deal import deal_positions, entitled_to_rob
from spoilfive_jax.core.kernel import (
    follow_positions,
    mix,
    plain_slot,
    seat_select,
    slot_of_class,
    suit_tables,
    trick_play,
)
from spoilfive_jax.core.kernel import random_choice as random_choice  # (re-exported)
from spoilfive_jax.core.packed import Field, get, is_clear, mask, put, seat_value
from spoilfive_jax.core.tricks import TRUMP_POWER
from spoilfive_jax.games.spoil_five.game import (
    CLAIM,
    JINK,
    PASS,
    State,
    antes,
    chip_rewards,
    hand_end,
    plain_strength,
    trump_strength,
)
from spoilfive_jax.games.spoil_five.rules import Rules

U32 = jnp.uint32
I32 = jnp.int32

P_PASS, P_JINK, P_CLAIM = 13, 14, 15  # action positions of the specials
MAX_LEGAL = 6  # the most legal actions: a robber's 5 cards and PASS
TRUMP_SLOT = kernel.TRUMP_SLOT  # 2
_TRUMPS_HI = np.uint32(0x3FFF)  # the trump slot, hi word bits 0..13
_TOPS_HI = np.uint32(0x3800)  # 5, J, A♥ of trumps: strengths 13, 12, 11
_SLOT_MASK = kernel.PLAIN_STRENGTHS  # a plain slot's 13 strengths


def _build_position_tables() -> tuple[np.ndarray, np.ndarray]:
    """POSITION[t, card] (0..63) and CARD[t, position] (-1 where empty; specials map to
    PASS/JINK/CLAIM)."""
    position, card = kernel.standard_tables()
    card[:, P_PASS], card[:, P_JINK], card[:, P_CLAIM] = PASS, JINK, CLAIM
    return position, card


POSITION, CARD = _build_position_tables()


@functools.cache
def card_tables() -> tuple[np.ndarray, np.ndarray]:
    """``core.kernel.suit_tables`` of ``POSITION`` (card ids to positions, ``positions_of``),
    built once."""
    return suit_tables(POSITION)


_PASS_BIT = np.uint32(1 << P_PASS)
_JINK_CLAIM_BITS = np.uint32((1 << P_JINK) | (1 << P_CLAIM))

# The packed status word (``core.packed``); a field that can be -1 is stored + 1.
_F_CUR = Field(0, 4)  # seat to act
_F_LEADER = Field(4, 4)  # seat that leads the current trick
_F_PHASE = Field(8, 2)  # 0 rob, 1 play, 2 jink decision, 3 done
_F_LED = Field(10, 3, offset=1)  # led slot (-1: nothing led yet this trick)
_F_BEST = Field(13, 5, offset=1)  # best power (plain strength 0..12, trump 16 + strength)
_F_SEAT = Field(18, 4)  # seat winning the trick
_F_LEVEL = Field(22, 4, offset=1)  # renege level
_F_TRICK = Field(26, 3)  # tricks completed
_F_JINKING = Field(29, 1, flag=True)  # a jink was declared (the jinker is the leader)
_F_ROBBED = Field(30, 1, flag=True)  # the robber took the turn-up
_TRICK_BITS = 3  # ``Hands.tricks``: tricks won, 3 bits a seat

ROB, PLAY, JINK_PHASE, DONE = 0, 1, 2, 3

_FLAGS = mask(_F_JINKING, _F_ROBBED)
_CUR_PHASE = mask(_F_CUR, _F_PHASE)
_PHASE_MASK = mask(_F_PHASE)
_JINK_PLAY = (PLAY << _F_PHASE.first) | (1 << _F_JINKING.first)  # a jink declared: play on


class Table(NamedTuple):
    """Per-hand constants of a batch (set at the deal, never changed): ``[B]`` vectors."""

    trump: jax.Array  # int32: trump suit
    turnup_pos: jax.Array  # int32: strength position of the turn-up
    dealer: jax.Array  # int32
    robber: jax.Array  # int32: -1 if nobody may rob
    carried: jax.Array  # int32: chips carried in
    dealt_lo: list[jax.Array]  # N x uint32[B]: the cards dealt to each seat, positions 0..31
    dealt_hi: list[jax.Array]  # N x uint32[B]: positions 32..63


class Hands(NamedTuple):
    """The mutable part of a batch of hands (the rollout loop's carry).

    A seat's hand is derived: the cards dealt to it, less the cards ``removed`` (played, or the
    rob discard), plus the turn-up for a robber who robbed.  So a decision writes a 2-word set
    instead of every seat's hand.
    """

    removed_lo: jax.Array  # uint32[B]: cards played to tricks or discarded by the robber
    removed_hi: jax.Array  # uint32[B]
    status: jax.Array  # int32[B]: packed ``_F_*`` fields
    tricks: jax.Array  # int32[B]: 3 bits of tricks won per seat
    played_trumps: jax.Array  # uint32[B]: trump strengths played so far (bit s = strength s)


def hand_of(h: Hands, table: Table, seat: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The cards (lo, hi) ``seat`` holds now."""
    robbed = get(h.status, _F_ROBBED) & (seat == table.robber)
    turn = bits.bit(table.turnup_pos)
    lo = seat_select(table.dealt_lo, seat) | jnp.where(robbed, turn.lo, U32(0))
    hi = seat_select(table.dealt_hi, seat) | jnp.where(robbed, turn.hi, U32(0))
    return lo & ~h.removed_lo, hi & ~h.removed_hi


def seat_tricks(tricks: jax.Array, seat: jax.Array) -> jax.Array:
    return seat_value(tricks, seat, _TRICK_BITS)


def slot_masks(slot: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(lo, hi) masks of strength slot ``slot`` (0..3); empty for any other value."""
    m = jnp.uint32(_SLOT_MASK)
    lo = jnp.where(slot == 0, m, jnp.where(slot == 1, m << 16, U32(0)))
    hi = jnp.where(slot == 2, jnp.uint32(_TRUMPS_HI), jnp.where(slot == 3, m << 16, U32(0)))
    return lo, hi


def legal_positions(
    lo: jax.Array, hi: jax.Array, status: jax.Array, rules: Rules
) -> tuple[jax.Array, jax.Array]:
    """Legal action positions (lo, hi) of the player to act, whose hand is (lo, hi)."""
    phase, led, level = get(status, _F_PHASE), get(status, _F_LED), get(status, _F_LEVEL)
    play = follow_positions(Bits(lo, hi), led, level, _TRUMPS_HI, _TOPS_HI, rules.follow)
    play_lo, play_hi = play.lo, play.hi
    rob_lo = lo | jnp.uint32(_PASS_BIT) if rules.rob == "optional" else lo
    out_lo = jnp.where(phase == ROB, rob_lo, play_lo)
    out_hi = jnp.where(phase == ROB, hi, play_hi)
    out_lo = jnp.where(phase == JINK_PHASE, jnp.uint32(_JINK_CLAIM_BITS), out_lo)
    out_hi = jnp.where(phase == JINK_PHASE, U32(0), out_hi)
    done = phase == DONE
    return jnp.where(done, U32(0), out_lo), jnp.where(done, U32(0), out_hi)


def legal(h: Hands, table: Table, rules: Rules) -> tuple[jax.Array, jax.Array]:
    """Legal action positions (lo, hi) of the player to act in each hand (empty once over)."""
    lo, hi = hand_of(h, table, get(h.status, _F_CUR))
    return legal_positions(lo, hi, h.status, rules)


def apply(h: Hands, table: Table, pos: jax.Array, num_players: int, rules: Rules) -> Hands:
    """Play action position ``pos`` (int32[B], legal) in every live hand of the batch.

    Finished hands are left unchanged.  No legality check: ``pos`` must come from ``legal``.
    """
    n = num_players
    st = h.status
    cur = get(st, _F_CUR)
    phase = get(st, _F_PHASE)
    in_rob, in_play, in_jink = phase == ROB, phase == PLAY, phase == JINK_PHASE
    is_card = (pos - P_PASS).astype(U32) > 2  # not PASS, JINK or CLAIM (13, 14, 15)
    card = bits.bit(pos)
    # --- play
    led, best, seat, level, is_trump, strength = trick_play(
        pos,
        cur,
        get(st, _F_LED),
        get(st, _F_BEST),
        get(st, _F_SEAT),
        get(st, _F_LEVEL),
        rules.renege,
        TRUMP_SLOT,
        TRUMP_POWER,
    )
    leader = get(st, _F_LEADER)
    nxt = jnp.where(cur + 1 == n, 0, cur + 1)
    trick_over = in_play & (nxt == leader)
    trick_num = get(st, _F_TRICK) + trick_over.astype(I32)
    won = seat_tricks(h.tricks, seat) + 1
    # (a jinker leads every trick after the jink: it took the trick iff the trick's seat leads)
    end = hand_end(trick_over, trick_num, won, get(st, _F_JINKING), seat == leader, rules)
    play_phase = jnp.where(end.play_over, DONE, jnp.where(end.ask_jink, JINK_PHASE, PLAY))
    # --- jink decision
    declares = pos == P_JINK

    # The new status word, built from its fields (one shift and one OR each) in each phase
    # rather than by successive ``put``s: fewer ops in the loop's largest fusion.
    play_st = (
        jnp.where(trick_over, seat, nxt)
        | (jnp.where(trick_over, seat, leader) << _F_LEADER.first)
        | (play_phase << _F_PHASE.first)
        | jnp.where(trick_over, 0, ((led + 1) << _F_LED.first) | ((best + 1) << _F_BEST.first))
        | (seat << _F_SEAT.first)
        | ((level + 1) << _F_LEVEL.first)  # a new lead resets it unless renege="deal"
        | (trick_num << _F_TRICK.first)
        | (st & _FLAGS)
    )
    eldest = jnp.where(table.dealer + 1 == n, 0, table.dealer + 1)
    rob_st = (st & ~_CUR_PHASE) | eldest | (PLAY << _F_PHASE.first)
    rob_st = rob_st | jnp.where(is_card, 1 << _F_ROBBED.first, 0)
    jink_st = (st & ~_PHASE_MASK) | jnp.where(declares, _JINK_PLAY, DONE << _F_PHASE.first)
    status = jnp.where(in_play, play_st, jnp.where(in_rob, rob_st, jnp.where(in_jink, jink_st, st)))

    # The card played or discarded leaves its holder's hand (robbing adds the turn-up, which
    # ``hand_of`` derives from the robbed flag).
    removed = ((st & (2 << _F_PHASE.first)) == 0) & is_card  # rob or play: phase < 2
    removed_lo = h.removed_lo | jnp.where(removed, card.lo, U32(0))
    removed_hi = h.removed_hi | jnp.where(removed, card.hi, U32(0))
    # The trick's winner is read back from the new status word (a trick just ended iff a card
    # was played and no suit is led now): XLA then reads the stored word instead of
    # recomputing the trick in the tricks update.
    ended = in_play & is_clear(status, _F_LED)
    won = jnp.left_shift(1, _TRICK_BITS * get(status, _F_SEAT))
    tricks = h.tricks + jnp.where(ended, won, 0)
    trump_bit = jnp.left_shift(U32(1), strength.astype(U32))
    pt = h.played_trumps | jnp.where(in_play & is_trump, trump_bit, U32(0))
    return Hands(removed_lo, removed_hi, status, tricks, pt)


# ------------------------------------------------------------------------------ the deal


def position(card: jax.Array, trump: jax.Array) -> jax.Array:
    """Strength position of ``card`` once ``trump`` is known (``POSITION[trump, card]``)."""
    ts = trump_strength(card, trump)
    slot = plain_slot(card // 13, trump)
    width = kernel.SLOT_WIDTH
    return jnp.where(ts >= 0, width * TRUMP_SLOT + ts, width * slot + plain_strength(card))


def deal(
    deck: jax.Array, dealer: jax.Array, carried: jax.Array, num_players: int, rules: Rules
) -> tuple[Table, Hands]:
    """Deal a batch from decks int32[B, >= 5N+1] (deck[:, 0] first, deck[:, 5N] turned up)."""
    cards = [deck[:, k] for k in range(5 * num_players + 1)]
    return deal_cards(cards, dealer, carried, num_players, rules)


def deal_cards(
    cards: list[jax.Array],
    dealer: jax.Array,
    carried: jax.Array,
    num_players: int,
    rules: Rules,
    positions: list[jax.Array] | None = None,
) -> tuple[Table, Hands]:
    """Deal a batch from the deck's top 5N+1 cards, one int32[B] vector per deck position
    (``positions``: their strength positions, when already known)."""
    n = num_players
    dealer = jnp.asarray(dealer, I32)
    turnup = cards[5 * n]
    trump = turnup // 13
    if positions is None:
        positions = [position(c, trump) for c in cards]
    card_bits = [bits.bit(p) for p in positions]
    rows = deal_positions(n, rules)
    by_offset = []  # eldest first
    for row in rows:
        lo = functools.reduce(jnp.bitwise_or, [card_bits[k].lo for k in row])
        hi = functools.reduce(jnp.bitwise_or, [card_bits[k].hi for k in row])
        by_offset.append((lo, hi))
    lo, hi = [], []
    for s in range(n):
        offset = (s - dealer - 1) % n
        lo.append(seat_select([b[0] for b in by_offset], offset))
        hi.append(seat_select([b[1] for b in by_offset], offset))
    if rules.rob == "off":
        robber = jnp.full_like(dealer, -1)
    else:
        # The ace of trumps' deck position says who holds it (a compare per card, not a test
        # of every seat's dealt set, which XLA would rebuild from the positions).
        ace = 16 * TRUMP_SLOT + jnp.where(trump == 2, 11, 10)  # position of the ace of trumps
        offset = jnp.full_like(dealer, -1)  # of its holder from the eldest; -1: not dealt
        for j, row in enumerate(rows):
            for k in row:
                offset = jnp.where(positions[k] == ace, j, offset)
        holder = dealer + 1 + offset
        holder = jnp.where(offset < 0, -1, jnp.where(holder >= n, holder - n, holder))
        robber = entitled_to_rob(turnup, dealer, holder)
    eldest = jnp.where(dealer + 1 == n, 0, dealer + 1)
    zero = jnp.zeros_like(dealer)
    status = put(zero, _F_CUR, jnp.where(robber >= 0, robber, eldest))
    status = put(status, _F_LEADER, eldest)
    status = put(status, _F_PHASE, jnp.where(robber >= 0, ROB, PLAY))
    table = Table(
        trump=trump,
        turnup_pos=positions[5 * n],
        dealer=dealer,
        robber=robber,
        carried=jnp.broadcast_to(jnp.asarray(carried, I32), dealer.shape),
        dealt_lo=lo,
        dealt_hi=hi,
    )
    u0 = zero.astype(U32)
    return table, Hands(u0, u0, status, zero, u0)


# ------------------------------------------------------------------------------ outcomes


class Outcome(NamedTuple):
    """Per-hand results of a batch (``[B]`` or ``[B, N]``)."""

    rewards: jax.Array  # float32[B, N]: net chips of the hand
    tricks_won: jax.Array  # int32[B, N]
    winner: jax.Array  # int32[B]: seat that took the pot, -1 if spoiled or the jink failed
    decisions: jax.Array  # int32[B]
    jinked: jax.Array  # bool[B]: a jink was declared
    jink_won: jax.Array  # bool[B]
    robbed: jax.Array  # bool[B]: the robber took the turn-up
    robber: jax.Array  # int32[B]: seat entitled to rob, -1 if nobody
    carried_out: jax.Array  # int32[B]: pot carried to the next hand
    done: jax.Array  # bool[B]: the hand is over (always True after a full rollout)


def outcome(h: Hands, table: Table, num_players: int, rules: Rules) -> Outcome:
    n = num_players
    tricks = jnp.stack([seat_tricks(h.tricks, jnp.int32(i)) for i in range(n)], axis=-1)
    st = h.status
    jinking = get(st, _F_JINKING)
    leader = get(st, _F_LEADER)
    trick_num = get(st, _F_TRICK)
    has3 = (tricks >= 3).any(-1)
    top = jnp.argmax(tricks, axis=-1).astype(I32)
    jink_won = jinking & (seat_tricks(h.tricks, leader) == 5)
    winner = jnp.where(jinking, jnp.where(jink_won, leader, -1), jnp.where(has3, top, -1))
    paid = antes(table.dealer, table.carried, n, rules)
    pot = table.carried + paid.sum(-1)
    asked = (jinking | (has3 & (trick_num == 3))) if rules.jink else jnp.zeros_like(jinking)
    decisions = (table.robber >= 0).astype(I32) + trick_num * n + asked.astype(I32)
    return Outcome(
        rewards=chip_rewards(pot, winner, jink_won, paid, rules),
        tricks_won=tricks,
        winner=winner,
        decisions=decisions,
        jinked=jinking,
        jink_won=jink_won,
        robbed=get(st, _F_ROBBED),
        robber=table.robber,
        carried_out=jnp.where(winner < 0, pot, 0),
        done=get(st, _F_PHASE) == DONE,
    )


# ------------------------------------------------------------------------------ randomness


def _full_sets() -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) uint32[4]: the strength positions of the whole pack under each trump suit."""
    word = [sum(1 << int(p) for p in POSITION[t]) for t in range(4)]
    return (
        np.array([w & 0xFFFFFFFF for w in word], np.uint32),
        np.array([w >> 32 for w in word], np.uint32),
    )


_FULL_LO, _FULL_HI = _full_sets()
_CARD_FLAT = CARD.reshape(-1)  # CARD[t, p] at 64 t + p


def random_cards(
    seed: jax.Array, hand_ids: jax.Array, num_cards: int
) -> tuple[list[jax.Array], list[jax.Array]]:
    """The top ``num_cards`` of a uniformly shuffled deck for each hand id, in deck order (the
    last one is the turn-up): card ids and their strength positions, lists of int32[B].

    The turn-up is drawn first, uniformly from the 52 cards (draw counter 0x10000); it fixes
    trumps, so every later card (counter 0x10000 + k) is drawn uniformly from the strength
    positions not yet drawn, straight in position space: no per-card position arithmetic in
    the loop, and the card ids (``CARD[trump, position]``) cost nothing when only the
    positions are used (the kernel).  The draw is a scan (batch-major, no sorting).
    """
    u = mix(seed, hand_ids, U32(0x10000)) >> 8
    turnup = ((u * U32(NUM_CARDS)) >> 24).astype(I32)
    trump = turnup // 13
    turnup_pos = position(turnup, trump)
    full_lo = seat_select([jnp.full_like(hand_ids, w) for w in _FULL_LO], trump)
    full_hi = seat_select([jnp.full_like(hand_ids, w) for w in _FULL_HI], trump)

    def draw(carry: tuple[Bits, jax.Array], k: jax.Array) -> Any:
        avail, last = carry
        # The position drawn is carried and removed at the next draw: the heavy ``nth`` then
        # feeds few outputs instead of being recomputed for each word of the remaining set.
        avail = avail.without(bits.bit(last))
        u = mix(seed, hand_ids, U32(0x10000) + k.astype(U32)) >> 8
        pick = ((u * (NUM_CARDS - k).astype(U32)) >> 24).astype(I32)
        pos = bits.nth(avail, pick)
        return (avail, pos), pos

    init = (Bits(full_lo, full_hi), turnup_pos)
    _, pos = jax.lax.scan(draw, init, jnp.arange(1, num_cards, dtype=I32))  # [K - 1, B]
    positions = [*(pos[i] for i in range(num_cards - 1)), turnup_pos]
    table = jnp.asarray(_CARD_FLAT)
    cards = [table[64 * trump + p] for p in positions[:-1]] + [turnup]
    return cards, positions


def status_word(state: State) -> jax.Array:
    """The packed status word of one public ``State`` (for policies that read both layouts)."""
    leading = state.current_player == state.leader
    slot = slot_of_class(state.led_class, state.trump)
    w = put(jnp.int32(0), _F_CUR, jnp.maximum(state.current_player, 0))
    w = put(w, _F_LEADER, state.leader)
    w = put(w, _F_PHASE, state.phase)
    w = put(w, _F_LED, jnp.where(leading, -1, slot))
    w = put(w, _F_BEST, jnp.where(leading, -1, state.best_power))
    w = put(w, _F_SEAT, jnp.maximum(state.best_seat, 0))
    w = put(w, _F_LEVEL, state.renege_level)
    w = put(w, _F_TRICK, state.trick_num)
    w = put(w, _F_JINKING, state.jinker >= 0)
    return put(w, _F_ROBBED, state.robbed)


def cards_with_known(
    seed: jax.Array,
    hand_ids: jax.Array,
    known: jax.Array,
    seat: jax.Array,
    turnup: jax.Array,
    dealer: jax.Array,
    num_players: int,
    rules: Rules,
) -> list[jax.Array]:
    """Deck tops (5N+1 cards, list of int32[B]) in which ``seat`` is dealt ``known`` int32[B, 5]
    and ``turnup`` is turned up; every other card is drawn uniformly from the 46 left (a
    determinization of what that seat knows)."""
    n = num_players
    rows = deal_positions(n, rules)  # [N, 5]: deck positions of each offset from the eldest
    owner = np.zeros(5 * n + 1, np.int32)
    index = np.zeros(5 * n + 1, np.int32)
    for j in range(n):
        for i, p in enumerate(rows[j]):
            owner[p], index[p] = j, i
    owner[5 * n] = -1  # the turn-up
    offset = (seat - dealer - 1) % n
    taken = bits.from_positions(jnp.concatenate([known, turnup[:, None]], axis=1))
    full = Bits(jnp.full_like(hand_ids, 0xFFFFFFFF, U32), jnp.full_like(hand_ids, 0xFFFFF, U32))

    def draw(carry: tuple[Bits, jax.Array, jax.Array], x: tuple[jax.Array, ...]) -> Any:
        avail, last, drawn = carry
        p, own, idx = x
        avail = avail.without(bits.bit(last))
        u = mix(seed, hand_ids, U32(0x10000) + p.astype(U32)) >> 8
        pick = ((u * (NUM_CARDS - 6 - drawn).astype(U32)) >> 24).astype(I32)
        random_card = bits.nth(avail, pick)
        mine = known[:, 0]
        for i in range(1, 5):
            mine = jnp.where(idx == i, known[:, i], mine)
        is_known = own == offset
        card = jnp.where(own < 0, turnup, jnp.where(is_known, mine, random_card))
        fresh = (own >= 0) & ~is_known
        nxt = jnp.where(fresh, random_card, 63)
        return (avail, nxt, drawn + fresh.astype(I32)), card

    none = jnp.full(hand_ids.shape, 63, I32)
    xs = (jnp.arange(5 * n + 1, dtype=I32), jnp.asarray(owner), jnp.asarray(index))
    init = (full.without(taken), none, jnp.zeros(hand_ids.shape, I32))
    _, cards = jax.lax.scan(draw, init, xs)
    return list(cards)
