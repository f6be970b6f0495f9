"""The pure rules of one hand of Spoil Five (docs/rules.md) as jittable array functions.

Everything here is written for ONE hand and batched with ``jax.vmap``.  ``num_players`` (N) and
``rules`` are static Python values; every other value is an array.  Cards in hands, played cards
and legal actions are 64-position bitsets held as two uint32 words (``bits.Bits``), so following
suit, reneging and the trick winner are a handful of bitwise ops with no Python branching and no
table gathers.  Every per-hand value is a scalar or a short per-seat vector, so a vmapped batch is
a set of ``[B]`` / ``[B, N]`` arrays that XLA fuses into a few vectorised loops.

Layout of ``State``: see the field comments (N = num_players); ``state_bytes(N)`` gives the
bytes of one hand.  The rob discard is kept (cards are conserved) but is hidden information:
observations never read it.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core import record
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import NUM_CARDS
from spoilfive_jax.core.deal import hands_from_deck, rob_seat, shuffled_deck
from spoilfive_jax.core.ranking import plain_strength as plain_strength  # (re-exported)
from spoilfive_jax.core.ranking import trump_set, trump_strength
from spoilfive_jax.core.tricks import TRUMP_CLASS as TRUMP_CLASS  # (re-exported)
from spoilfive_jax.core.tricks import (
    card_to_trick,
    follow_plays,
    next_seat,
    revealed_void,
    top_trumps,
)
from spoilfive_jax.core.validate import check_num_players
from spoilfive_jax.games.spoil_five.rules import Rules
from spoilfive_jax.games.spoil_five.state import (
    NUM_ACTIONS,
    RECORD,
    STATUS,
    TRICK_BITS,
    State,
    held,
)

# Actions (docs/rules.md#robbing-the-pack, #jinks).  0..51: play that card, or in the rob decision
# discard it; NUM_ACTIONS = 55 (``state``).
PASS = 52
JINK = 53
CLAIM = 54

# Phases.
PHASE_ROB, PHASE_PLAY, PHASE_JINK, PHASE_DONE = 0, 1, 2, 3
PHASE_NAMES = ("rob", "play", "jink", "done")

NO_CARD = -1

# Constant sets, built once at import (host numpy scalars).
_ALL_ACTIONS = bits.const(range(NUM_ACTIONS))
_PASS_SET = bits.const([PASS])
_JINK_CLAIM_SET = bits.const([JINK, CLAIM])


def state_bytes(num_players: int, rules: Rules | None = None) -> int:
    """Bytes of one hand's ``State`` in memory (measured from the real field shapes) at a table
    of ``num_players`` (2..10, else ``ValueError``)."""
    n = check_num_players(num_players)
    shapes = jax.eval_shape(
        lambda: deal_from_deck(
            jnp.arange(NUM_CARDS, dtype=jnp.int32),
            jnp.int32(0),
            jnp.int32(0),
            n,
            rules or Rules(),
        )
    )
    return sum(int(np.prod(x.shape)) * x.dtype.itemsize for x in jax.tree.leaves(shapes))


# --------------------------------------------------------------------------- small helpers


def antes(dealer: jax.Array, carried: jax.Array, num_players: int, rules: Rules) -> jax.Array:
    """int32[..., N]: chips each seat antes this hand (docs/rules.md#winning-a-hand), for
    ``dealer`` and ``carried`` of any shape [...] (one hand, or the kernel's batch)."""
    dealer, carried = jnp.asarray(dealer), jnp.asarray(carried)
    seats = jnp.arange(num_players)
    if rules.ante_after_spoil == "all":
        pays = jnp.ones((*dealer.shape, num_players), jnp.bool_)
    else:
        pays = (carried[..., None] == 0) | (seats == dealer[..., None])
    return jnp.where(pays, rules.ante, 0).astype(jnp.int32)


def chip_rewards(
    pot: jax.Array, winner: jax.Array, jink_won: jax.Array, paid: jax.Array, rules: Rules
) -> jax.Array:
    """float32[..., N]: net chips of a finished hand (docs/rules.md#winning-a-hand): the winner
    takes the ``pot`` and, for a jink won, ``rules.bonus`` from every other seat; every seat
    has paid its ante ``paid`` int32[..., N] (``antes``).  ``winner`` -1: nobody (a spoil)."""
    n = paid.shape[-1]
    bonus = jnp.where(jink_won, rules.bonus, 0)[..., None]
    is_winner = jnp.arange(n) == jnp.asarray(winner)[..., None]
    received = jnp.where(is_winner, jnp.asarray(pot)[..., None] + bonus * (n - 1), -bonus)
    return (received - paid).astype(jnp.float32)


# --------------------------------------------------------------------------- holdings


# --------------------------------------------------------------------------- legality


def legal_plays(
    hand: Bits,
    trump: jax.Array,
    led_class: jax.Array,
    renege_level: jax.Array,
    leading: jax.Array,
    rules: Rules,
) -> Bits:
    """The cards of ``hand`` that may be played (docs/rules.md#reneging): the top trumps
    (5 = 13, J = 12, A♥ = 11) stronger than the renege level may be withheld from a trump lead."""
    may_withhold = top_trumps(trump, renege_level, five=13, jack=12, ace_hearts=11)
    return follow_plays(hand, trump_set(trump), led_class, may_withhold, leading, rules.follow)


def legal_set(state: State, rules: Rules) -> Bits:
    """The legal action set of ``state.current_player``."""
    hand = held(state, state.current_player)
    rob = hand | Bits(*_PASS_SET) if rules.rob == "optional" else hand
    leading = state.current_player == state.leader
    play = legal_plays(hand, state.trump, state.led_class, state.renege_level, leading, rules)
    out = bits.where(state.phase == PHASE_ROB, rob, play)
    out = bits.where(state.phase == PHASE_JINK, Bits(*_JINK_CLAIM_SET), out)
    return bits.where(state.phase == PHASE_DONE, Bits(*_ALL_ACTIONS), out)


# --------------------------------------------------------------------------- a new hand


def new_hand(
    hands: Bits,
    turnup: jax.Array,
    dealer: jax.Array,
    carried: jax.Array,
    num_players: int,
    rules: Rules,
) -> State:
    """The state before the first decision, from the seats' card sets ``hands`` (uint32[N] x 2)."""
    n = num_players
    i32 = jnp.int32
    dealer = jnp.asarray(dealer, i32)
    carried = jnp.asarray(carried, i32)
    turnup = jnp.asarray(turnup, i32)
    trump = turnup // 13
    robber = i32(-1) if rules.rob == "off" else rob_seat(hands, turnup, dealer)
    eldest = next_seat(dealer, n)
    state = State(
        status=STATUS.pack(
            0,
            phase=jnp.where(robber >= 0, PHASE_ROB, PHASE_PLAY),
            terminated=False,
            current_player=jnp.where(robber >= 0, robber, eldest),
            leader=eldest,
            led_class=-1,
            best_power=-1,
            best_seat=-1,
            renege_level=-1,
            winner=-1,
        ),
        record=RECORD.pack(0, trick_num=0, jinker=-1, robbed=False, illegal=False, _step_count=0),
        truncated=jnp.bool_(False),
        rewards=jnp.zeros(n, jnp.float32),
        tricks=i32(0),
        dealt=Bits(hands.lo.astype(jnp.uint32), hands.hi.astype(jnp.uint32)),
        legal_set=Bits(jnp.uint32(0), jnp.uint32(0)),
        dealer=dealer,
        turnup=turnup,
        trump=trump,
        robber=jnp.asarray(robber, i32),
        discard=i32(NO_CARD),
        trick_cards=jnp.full(n, NO_CARD, i32),
        played=Bits(jnp.uint32(0), jnp.uint32(0)),
        cannot_hold=Bits(jnp.zeros(n, jnp.uint32), jnp.zeros(n, jnp.uint32)),
        pot=carried + antes(dealer, carried, n, rules).sum(),
        carried=carried,
        moves=record.empty(5 * n + 2),
    )
    return with_legal(state, rules)


def with_legal(state: State, rules: Rules) -> State:
    """``state`` with ``legal_set`` computed from its other fields.

    ``step`` calls it once on the state it returns (after choosing between the legal, illegal
    and finished outcomes), not inside ``apply_action``: computed from the fields the step
    stores, the legal set reads them back instead of recomputing the whole transition (XLA:CPU
    fuses a shared intermediate into every output that uses it)."""
    return state.replace(legal_set=legal_set(state, rules))


def deal_from_deck(
    deck: jax.Array, dealer: jax.Array, carried: jax.Array, num_players: int, rules: Rules
) -> State:
    """Deal from ``deck`` (int32[>= 5N+1], deck[0] first); deck[5N] is the turn-up."""
    n = num_players
    hands = hands_from_deck(deck, dealer, n, rules)
    return new_hand(hands, deck[5 * n], dealer, carried, n, rules)


def deal_random(
    key: jax.Array, dealer: jax.Array, carried: jax.Array, num_players: int, rules: Rules
) -> State:
    """A uniformly random deal (``init``)."""
    deck = shuffled_deck(key, 5 * num_players + 1)
    return deal_from_deck(deck, dealer, carried, num_players, rules)


# --------------------------------------------------------------------------- a decision


def hand_rewards(state: State, winner: jax.Array, jink_won: jax.Array, rules: Rules) -> jax.Array:
    """float32[N]: net chips of the hand once it is over (docs/rules.md#winning-a-hand)."""
    paid = antes(state.dealer, state.carried, state.num_players, rules)
    return chip_rewards(state.pot, winner, jink_won, paid, rules)


class TrickPlay(NamedTuple):
    """The current trick once the mover's card is on it (``play_to_trick``); int32[] each."""

    leading: jax.Array  # bool[]: the card leads the trick
    led_class: jax.Array
    best_power: jax.Array
    best_seat: jax.Array
    renege_level: jax.Array


def play_to_trick(state: State, a: jax.Array, rules: Rules) -> TrickPlay:
    """The mover plays card ``a`` to the current trick: the suit led, the winning card so far
    and the renege level (``rules.renege``: which trumps played count)."""
    cur = state.current_player
    leading = cur == state.leader
    ts = trump_strength(a, state.trump)
    led_class, best_power, best_seat, level = card_to_trick(
        a, ts, cur, leading, state, rules.renege
    )
    return TrickPlay(leading, led_class, best_power, best_seat, level)


class HandEnd(NamedTuple):
    """What a completed trick decides of the hand (``hand_end``); bool[] each, False unless
    the trick was completed."""

    ask_jink: jax.Array  # a seat took its third trick in trick 3: it decides whether to jink
    takes_pot: jax.Array  # the trick's winner takes the pot now (three tricks, or a jink made)
    jink_won: jax.Array  # the jinker took the fifth trick
    play_over: jax.Array  # the hand is over (taken, spoiled or the jink failed)


def hand_end(
    trick_over: jax.Array,
    trick_num: jax.Array,
    winner_tricks: jax.Array,
    jinking: jax.Array,
    jinker_took: jax.Array,
    rules: Rules,
) -> HandEnd:
    """The end of the hand after a trick (docs/rules.md#jinks), stated once for the public step
    and the rollout kernel.  ``trick_over``: a card completed the trick; ``trick_num``: the
    tricks completed with it; ``winner_tricks``: its winner's tricks with it; ``jinking``: a
    jink was declared; ``jinker_took``: the jinker took this trick.  A seat's third trick
    takes the pot (in trick 3 it may jink instead, with ``rules.jink``); a jinker must take
    every trick left; the fifth trick ends the hand, spoiled if nobody took three."""
    jink_failed = trick_over & jinking & ~jinker_took
    jink_won = trick_over & jinking & jinker_took & (trick_num == 5)
    three = trick_over & ~jinking & (winner_tricks == 3)
    ask_jink = three & (trick_num == 3) if rules.jink else jnp.zeros_like(three)
    takes_pot = (three & ~ask_jink) | jink_won
    play_over = jink_failed | takes_pot | (trick_over & (trick_num == 5))
    return HandEnd(ask_jink, takes_pot, jink_won, play_over)


class _TrickEnd(NamedTuple):
    """What the card played decides (``_trick_end``); bool[] unless said."""

    nxt: jax.Array  # int32[]: the seat after the mover
    trick_over: jax.Array  # the card completed the trick
    trick_num: jax.Array  # int32[]: tricks completed after it
    best_shift: jax.Array  # int32[]: the trick winner's field in ``tricks``
    hand: HandEnd  # what it decides of the hand


def _trick_end(state: State, trick: TrickPlay, in_play: jax.Array, rules: Rules) -> _TrickEnd:
    """Whether the card played ends the trick, and then the hand (``hand_end``)."""
    nxt = next_seat(state.current_player, state.num_players)
    trick_over = in_play & (nxt == state.leader)
    trick_num = state.trick_num + trick_over.astype(jnp.int32)
    best_shift = TRICK_BITS * jnp.maximum(trick.best_seat, 0)
    winner_tricks = ((state.tricks >> best_shift) & 7) + 1
    jinking = state.jinker >= 0
    took = trick.best_seat == state.jinker
    hand = hand_end(trick_over, trick_num, winner_tricks, jinking, took, rules)
    return _TrickEnd(nxt, trick_over, trick_num, best_shift, hand)


def cards_after(
    state: State,
    a: jax.Array,
    card: Bits,
    robs: jax.Array,
    in_play: jax.Array,
    leading: jax.Array,
    rules: Rules,
) -> tuple[Bits, jax.Array, Bits]:
    """(dealt, trick_cards, cannot_hold) after the mover's card ``a``: the robber's dealt set
    trades the discard for the turn-up (``hands`` = ``dealt`` less ``played`` loses a card
    played through ``played``); a card played goes on the trick and may show a void."""
    is_me = jnp.arange(state.num_players) == state.current_player
    robbed_set = state.dealt.without(card) | bits.bit(state.turnup)
    dealt = bits.where(is_me & robs, robbed_set, state.dealt)
    trick_cards = jnp.where(in_play & leading, NO_CARD, state.trick_cards)
    trick_cards = jnp.where(in_play & is_me, a, trick_cards)
    may_withhold = top_trumps(state.trump, state.renege_level, five=13, jack=12, ace_hearts=11)
    trumps = trump_set(state.trump)
    shown = revealed_void(a, trumps, state.led_class, may_withhold, leading, rules.follow)
    shown_me = is_me & in_play
    cannot_hold = Bits(
        state.cannot_hold.lo | jnp.where(shown_me, shown.lo, jnp.uint32(0)),
        state.cannot_hold.hi | jnp.where(shown_me, shown.hi, jnp.uint32(0)),
    )
    return dealt, trick_cards, cannot_hold


def apply_action(state: State, action: jax.Array, rules: Rules) -> State:
    """The state after a LEGAL ``action`` by ``current_player`` in a live hand.

    No legality or terminal check (``step`` adds them).  Every phase's outcome is computed and
    the right one selected, so it vmaps over hands in mixed phases.  ``legal_set`` is NOT
    refreshed: ``with_legal`` does that (``step`` calls it on the state it returns).
    """
    n = state.num_players
    cur = state.current_player
    a = jnp.asarray(action, jnp.int32)
    card = bits.bit(jnp.clip(a, 0, NUM_CARDS - 1))
    is_card = a < NUM_CARDS
    in_rob = state.phase == PHASE_ROB
    in_play = state.phase == PHASE_PLAY
    in_jink = state.phase == PHASE_JINK

    trick = play_to_trick(state, a, rules)
    end = _trick_end(state, trick, in_play, rules)

    # --- Jink decision: JINK plays on (the jinker leads trick 4), CLAIM takes the pot.
    declares = a == JINK
    claims = in_jink & ~declares

    over = end.hand.play_over | claims  # (each of ``end.hand`` is False outside play)
    phase = jnp.where(end.hand.ask_jink, PHASE_JINK, PHASE_PLAY)
    phase = jnp.where(over, PHASE_DONE, phase).astype(jnp.int32)
    winner = jnp.where(end.hand.takes_pot, trick.best_seat, jnp.where(claims, cur, -1))
    eldest = next_seat(state.dealer, n)
    next_player = jnp.where(end.trick_over, trick.best_seat, end.nxt)
    next_player = jnp.where(in_rob, eldest, jnp.where(in_play, next_player, cur))
    robs = in_rob & is_card
    dealt, trick_cards, cannot_hold = cards_after(
        state, a, card, robs, in_play, trick.leading, rules
    )

    def pick(play_value: jax.Array, other: jax.Array) -> jax.Array:
        return jnp.where(in_play, play_value, other)

    return state.replace(
        current_player=jnp.where(over, -1, next_player).astype(jnp.int32),
        terminated=over,
        rewards=jnp.where(over, hand_rewards(state, winner, end.hand.jink_won, rules), 0.0),
        tricks=state.tricks + (end.trick_over.astype(jnp.int32) << end.best_shift),
        phase=phase,
        dealt=dealt,
        robbed=state.robbed | robs,
        discard=jnp.where(robs, a, state.discard),
        leader=jnp.where(end.trick_over, trick.best_seat, state.leader),
        trick_cards=trick_cards,
        led_class=pick(trick.led_class, state.led_class),
        best_power=pick(trick.best_power, state.best_power),
        best_seat=pick(trick.best_seat, state.best_seat),
        renege_level=pick(trick.renege_level, state.renege_level),
        played=bits.where(in_play, state.played | card, state.played),
        cannot_hold=cannot_hold,
        trick_num=end.trick_num,
        jinker=jnp.where(in_jink & declares, cur, state.jinker),
        winner=winner.astype(jnp.int32),
        _step_count=state._step_count + 1,
    )


def end_illegal(state: State, rules: Rules) -> State:
    """The hand ends at once: ``current_player`` pays ``illegal_penalty`` into the pot, which
    is carried like a spoiled pot; every other seat loses only its ante."""
    n = state.num_players
    offender = jnp.arange(n) == state.current_player
    paid = antes(state.dealer, state.carried, n, rules)
    fine = jnp.where(offender, rules.illegal_penalty, 0)
    return state.replace(
        current_player=jnp.int32(-1),
        terminated=jnp.bool_(True),
        rewards=(-paid - fine).astype(jnp.float32),
        phase=jnp.int32(PHASE_DONE),
        pot=state.pot + rules.illegal_penalty,
        winner=jnp.int32(-1),
        illegal=jnp.bool_(True),
        legal_set=Bits(jnp.uint32(_ALL_ACTIONS.lo), jnp.uint32(_ALL_ACTIONS.hi)),
        _step_count=state._step_count + 1,
    )
