"""The Forty-Five family's analysis playouts on the rollout kernel (``fast``, ``fast_play``).

``infer.playout`` applies each action to analysed (resampled) positions with the public step;
for the built-in policies (``"random"``, ``"greedy"``, ``"heuristic"``) this module then plays
the hands out on the kernel instead of the public step, decision for decision the same choices
for the deterministic policies (``tests/forty_five/test_fast_playout.py``):

1. ``resume``: the batch of public States (any phase after the joker exchange: rob, jink
   announcements, bidding, naming trump, discard-and-draw, play, done) is read into the
   kernel's layout once: the hands as strength positions, and the phases still to come before
   the play run as the kernel runs them from a deal, from where each hand stands (the kernel's
   own rob, announcements, bidding, naming and discarding, started mid-phase);
2. ``finish``: the tricks are played from the trick in progress to the end of every hand (a
   ``while_loop`` of the kernel's play step; finished hands stand);
3. ``values``: the kernel's scoring (``fast_play.outcome``), or the public rewards of a hand
   the action itself ended.

Random choices come from the kernel's counter hash keyed by each playout's key (its stream
differs from the public path's ``fold_in`` keys; its distribution is the same).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

import spoilfive_jax.games.forty_five.fast as fast
import spoilfive_jax.games.forty_five.fast_play as fp
import spoilfive_jax.games.forty_five.game as game
import spoilfive_jax.games.forty_five.policies as pol
import spoilfive_jax.games.forty_five.strength as sx
from spoilfive_jax.core import bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.packed import is_clear, put
from spoilfive_jax.games.forty_five.game import State
from spoilfive_jax.games.forty_five.rules import MIN_BID_SCORE, FortyFiveRules, num_teams

U32, I32 = sx.U32, sx.I32
_SEED = 0xF0F7  # the counter hash's seed (the hand ids come from the playout keys)


class Resumed(NamedTuple):
    """What the play of a batch starts from after ``resume``; ``[B]`` vectors."""

    table: fp.Table  # the kernel's table (held: the cards each seat holds now)
    play: fp.Play  # the play so far (the trick in progress), or a fresh first trick
    chooser: fp.Chooser


def chooser_of(keys: jax.Array, kind: str, num_players: int) -> fp.Chooser:
    """The kernel's ``Chooser`` for built-in policy ``kind`` at every seat, hand ids from
    ``keys`` (one PRNG key per hand, [B])."""
    k = fp.KINDS.index(kind)
    ids = jax.vmap(lambda key: jax.random.bits(key, (), jnp.uint32))(keys)
    seat_kinds = jnp.int32(fp.pack_kinds([k] * num_players))
    return fp.Chooser(U32(_SEED), ids, seat_kinds, frozenset({k}))


# ------------------------------------------------------------------------ the layout


def _seats(sets: Bits, num_players: int) -> list[Bits]:
    """N x Bits[B] from a batch of per-seat sets uint32[B, N] x 2."""
    return [Bits(sets.lo[:, s], sets.hi[:, s]) for s in range(num_players)]


def _status(states: State, pre: jax.Array, leader: jax.Array) -> jax.Array:
    """The packed play status of a batch: the trick in progress of the hands in play (or
    over), a first trick led by ``leader`` for the hands still before the play (``pre``)."""
    cur = jnp.maximum(states.current_player, 0)
    in_trick = cur != states.leader
    led = jnp.where(in_trick, sx.slot_of_class(states.led_class, jnp.maximum(states.trump, 0)), -1)
    zero = jnp.zeros_like(cur)
    w = put(zero, fp._F_CUR, jnp.where(pre, leader, cur))
    w = put(w, fp._F_LEADER, jnp.where(pre, leader, states.leader))
    w = put(w, fp._F_LED, jnp.where(pre, -1, led))
    w = put(w, fp._F_BEST, jnp.where(pre | ~in_trick, -1, states.best_power))
    w = put(w, fp._F_SEAT, jnp.where(pre, 0, jnp.maximum(states.best_seat, 0)))
    w = put(w, fp._F_LEVEL, jnp.where(pre, -1, states.renege_level))
    w = put(w, fp._F_TRICK, jnp.where(pre, 0, states.trick_num))
    return put(w, fp._F_DONE, states.terminated)


def _play(
    states: State, pre: jax.Array, leader: jax.Array, trump: jax.Array, rules: FortyFiveRules
) -> fp.Play:
    """The kernel's ``Play`` of a batch (see ``_status``); the hands are the ``Table``'s."""
    n = states.tricks_won.shape[-1]
    shifts = fp._TRICK_BITS * jnp.arange(n, dtype=I32)
    tricks = (states.tricks_won << shifts).sum(-1).astype(I32)
    played = sx.card_positions(states.played, trump, rules).hi & U32(sx.SLOT2_MASK)
    best = jnp.maximum(states.best_trump_seat, 0).astype(U32) << U32(fp._BEST_SEAT_SHIFT)
    trumps = jnp.where(played != 0, played | best, U32(0))
    zero = jnp.zeros_like(played)
    return fp.Play(
        removed_lo=zero,
        removed_hi=zero,
        status=_status(states, pre, leader),
        tricks=jnp.where(pre, 0, tricks),
        trumps=jnp.where(pre, U32(0), trumps),
    )


# ------------------------------------------------------------------------ before the play


class _Before(NamedTuple):
    """A batch after the phases before the play (``_turnup``, ``_auction``); ``[B]``."""

    held: list[Bits]  # N sets: each seat's cards at the first lead (positions)
    trump: jax.Array
    dead: jax.Array  # uint32: the unrobbed turn-up's trump strength bit
    jinker: jax.Array
    robbed: jax.Array
    bid: jax.Array  # the winning bid 15..30 (Auction), else 0
    bidder: jax.Array
    leader: jax.Array  # the first trick's leader (for the hands that were before the play)
    decisions: jax.Array


def _rob(chooser: fp.Chooser, states: State, h: fast._Turnup, rules: FortyFiveRules) -> tuple:
    """The rob decision of the hands in ``PHASE_ROB``: (the batch after it, robbed bool[B])."""
    todo = states.phase == game.PHASE_ROB
    seat = jnp.maximum(states.current_player, 0)
    hand = fp.select_seat(h.held, seat)
    legal = hand if rules.rob != "optional" else Bits(hand.lo | U32(sx.PASS_BIT), hand.hi)
    lay = pol.weakest(hand)
    choice = chooser.pick(
        seat, h.decisions, legal, {fp.GREEDY: lambda: lay, fp.HEURISTIC: lambda: lay}
    )
    robs = todo & (choice != sx.P_PASS)
    took = hand.without(bits.bit(choice)) | bits.bit(h.turn_pos)
    held = fp.set_seat(h.held, seat, took, robs)
    return h._replace(held=held, decisions=h.decisions + todo.astype(I32)), robs


def _turnup(chooser: fp.Chooser, states: State, rules: FortyFiveRules) -> _Before:
    """A turn-up game's rob and jink announcements still to come, on the kernel."""
    n = states.tricks_won.shape[-1]
    trump = states.trump
    turn_pos = jnp.asarray(sx.tables(rules)[0])[trump, jnp.clip(states.turnup, 0, game.JOKER)]
    held = [sx.card_positions(s, trump, rules) for s in _seats(states.hands, n)]
    h = fast._Turnup(held, trump, turn_pos, states._step_count)
    robbed = states.robbed
    if rules.robbing:
        h, robs = _rob(chooser, states, h, rules)
        robbed = robbed | robs
    dead = jnp.where(robbed, U32(0), U32(1) << (turn_pos - sx.TRUMP_BASE).astype(U32))
    jinker = states.jinker
    if rules.jink == "announced":
        eldest = fp.next_seat(states.dealer, n)
        at = (jnp.maximum(states.current_player, 0) - eldest) % n
        phase = states.phase
        first = jnp.where(
            phase == game.PHASE_ANNOUNCE, at, jnp.where(phase == game.PHASE_ROB, 0, n)
        )
        h, found = fast._kernel_announce(chooser, h, states.dealer, dead, rules, None, first)
        jinker = jnp.where(first < n, found, jinker)
    zero = jnp.zeros_like(trump)
    leader = fp.next_seat(states.dealer, n)
    return _Before(h.held, trump, dead, jinker, robbed, zero, zero - 1, leader, h.decisions)


def _auction(chooser: fp.Chooser, states: State, rules: FortyFiveRules) -> _Before:
    """Auction's bidding, naming of trump and discard-and-draw still to come, on the kernel."""
    n = states.tricks_won.shape[-1]
    phase, dealer = states.phase, states.dealer
    cur = jnp.maximum(states.current_player, 0)
    natural = _seats(states.hands, n)  # card ids are their own positions before trump
    lowest = None
    if rules.min_bid_at_100:
        team = jnp.asarray(game.team_of(n))
        lowest = [jnp.where(states.scores[:, team[s]] >= MIN_BID_SCORE, 2, 1) for s in range(n)]
    passed = (states.passed.astype(I32) << jnp.arange(n, dtype=I32)).sum(-1).astype(I32)
    code = jnp.where(states.bid > 0, (states.bid - 10) // 5, 0)
    start = fast.Bidding(
        code, states.bidder, passed, cur, phase != game.PHASE_BID, states._step_count
    )
    b = fast._bidding(chooser, natural, dealer, n, rules, None, start, lowest)
    naming = (phase == game.PHASE_BID) | (phase == game.PHASE_TRUMP)
    trump = jnp.where(naming, fast._name_trump(chooser, natural, b, rules, None), states.trump)
    table = jnp.asarray(sx.tables(rules)[0])
    stock = jnp.where(states.stock >= 0, table[trump[:, None], jnp.maximum(states.stock, 0)], 63)
    held = [sx.card_positions(s, trump, rules) for s in natural]
    at = (cur - fp.next_seat(dealer, n)) % n
    first = jnp.where(naming, 0, jnp.where(phase == game.PHASE_DISCARD, at, n))
    pending = jnp.where(phase == game.PHASE_DISCARD, states.pending, 0)
    resume = (first, states.stock_top, pending)
    decisions = b.decisions + naming.astype(I32)
    held, decisions = fast._discarding(
        chooser, held, stock.T, trump, dealer, decisions, n, None, resume
    )
    bid = jnp.where(b.bid > 0, 10 + 5 * b.bid, 0)
    none = jnp.zeros_like(trump, U32)
    leader = fp.next_seat(jnp.maximum(b.bidder, 0), n)
    return _Before(
        held, trump, none, states.jinker, states.robbed, bid, b.bidder, leader, decisions
    )


def resume(states: State, chooser: fp.Chooser, rules: FortyFiveRules) -> Resumed:
    """The kernel's layout of a batch of public States [B] (any phase after the joker
    exchange), the phases before the play taken on the kernel (module docstring, step 1)."""
    before = _auction(chooser, states, rules) if rules.auction else _turnup(chooser, states, rules)
    pre = (states.phase != game.PHASE_PLAY) & ~states.terminated
    table = fp.Table(
        held_lo=[s.lo for s in before.held],
        held_hi=[s.hi for s in before.held],
        trump=before.trump,
        first_leader=before.leader,
        dead=before.dead,
        jinker=before.jinker,
        robber=states.robber,
        robbed=before.robbed,
        bid=before.bid,
        bidder=before.bidder,
        decisions=before.decisions,
    )
    return Resumed(table, _play(states, pre, before.leader, before.trump, rules), chooser)


# ------------------------------------------------------------------------ the play


def finish(r: Resumed, num_players: int, rules: FortyFiveRules) -> fp.Play:
    """Play every hand of ``r`` to its end (a ``while_loop`` of the kernel's play step)."""

    def live(carry: tuple[fp.Play, jax.Array, jax.Array]) -> jax.Array:
        return is_clear(carry[0].status, fp._F_DONE).any()

    def choose(p: fp.Play, t: jax.Array) -> jax.Array:
        return fp.choose_play(p, r.table, r.chooser, r.table.decisions + t, num_players, rules)

    def body(carry: tuple[fp.Play, jax.Array, jax.Array]) -> tuple:
        p, pos, t = carry
        p = fp.play_step(p, r.table, pos, num_players, rules)
        # The next choice is carried (as in ``fast_play``'s scan): XLA computes it once a step.
        return p, choose(p, t + 1), t + 1

    start = (r.play, choose(r.play, jnp.int32(0)), jnp.int32(0))
    p, _, _ = jax.lax.while_loop(live, body, start)
    return p


def values(
    states: State, r: Resumed, p: fp.Play, player: jax.Array, rules: FortyFiveRules
) -> dict[str, jax.Array]:
    """float32[B] per ``infer.FIELDS`` for seat ``player`` int32[B]: its team's points for the
    hand and (Auction) whether the bid was made, NaN in the turn-up games.  ``states``: the
    batch ``r`` was resumed from (a hand it already ended keeps its public rewards)."""
    n = states.tricks_won.shape[-1]
    t = num_teams(n)
    out = fp.outcome(p, r.table, n, rules)
    mine = jnp.take_along_axis(out.team_points, (player % t)[:, None], axis=1)[:, 0]
    ended = jnp.take_along_axis(states.rewards, player[:, None], axis=1)[:, 0]
    points = jnp.where(states.terminated, ended, mine.astype(jnp.float32))
    made = jnp.full(points.shape, jnp.nan, jnp.float32)
    if rules.auction:
        team = jnp.maximum(r.table.bidder, 0) % t
        scored = jnp.take_along_axis(out.team_points, team[:, None], axis=1)[:, 0]
        public = jnp.take_along_axis(states.hand_points, team[:, None], axis=1)[:, 0]
        bid_points = jnp.where(states.terminated, public, scored)
        made = jnp.where(r.table.bidder >= 0, (bid_points > 0).astype(jnp.float32), jnp.nan)
    return {"expected_points": points.astype(jnp.float32), "make_prob": made}


def playout_kernel(
    keys: jax.Array, states: State, player: jax.Array, kind: str, rules: FortyFiveRules
) -> dict[str, jax.Array]:
    """Play a batch of public States [B] (each just after the analysed action) to their ends
    with built-in policy ``kind`` at every seat, on the kernel: float32[B] per field
    (``values``).  ``keys``: one PRNG key per hand (the random policy's stream)."""
    n = states.tricks_won.shape[-1]
    r = resume(states, chooser_of(keys, kind, n), rules)
    return values(states, r, finish(r, n, rules), player, rules)


__all__ = ["Resumed", "chooser_of", "finish", "playout_kernel", "resume", "values"]
