"""Exact solves of the family's tricks on the rollout kernel: the ``EndgameSolve`` capability.

``solved_playout(env, keys, states, actions, player, policy, tricks)`` is ``infer.playout``
with the end of each hand solved instead of played: after the action, the seats play with the
built-in ``policy`` (on the kernel, ``fast_playout``) until ``tricks`` tricks are left (5, or
``"all"``: the whole play), then the hand's value is its minimax value for ``player``'s team:
its seats choose the play that maximises the team's points for the hand, every other seat the
play that minimises them (the family's two-team game exactly; in the games where each seat
plays for itself, every other seat plays against ``player``: a paranoid solve).  Each sampled
world is solved with every hand in view: a perfect-information solve, which is what a PIMC
bot's worlds are (``tools.pimc``, ``solve_tricks``).  Decisions before the first lead
(robbing, bidding, discards, jink announcements) are always ``policy``'s.

The solve is an alpha-beta search (``search_solve``, on ``core.search``), batched over worlds:

- equivalent cards are tried once (``distinct_moves``: cards of one seat and slot with no card
  between them that another seat holds, the trick's winning card or the renege level's trump);
- the other side's winning card is answered first with the lowest card that beats it, a lead
  with the highest card (``_order``);
- a line is cut where ``player``'s side can no longer reach into the window (``_bounds``:
  the tricks won and left, less those the seat holding the highest trumps is sure of);
- a hand in its last trick is settled at once (each seat's one card played out);
- a transposition table keeps every node's result for the batch (``transpositions``): the
  same cards played in another order, or another root move of the same world (a pimc
  decision's), are not searched twice;
- a decision's move equivalent to another of the same world, and a padded repeat of a move,
  is not searched at all but takes that move's value (``root_twins``).

``solve`` is the plain enumeration of a fixed tree that came before it (every legal play of
every seat, ``leaves(tricks, N)`` leaves: 1296 for 3 tricks at 4 players), kept as the
reference the search is tested against; ``search_solve(..., prune=False)`` searches every line
too, which counts what the pruning saves.

Auction's ``make_prob`` is whether the bid is made on the solved line (the principal
variation).  Where several plays give ``player``'s side the same points, the first in the
search's order is taken (in ``solve``: the first in the kernel's order), and the bid may be made
on one such line and not another; in the individual games the bidder, like every other seat,
plays against ``player``, not for its bid.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax.games.forty_five.fast_play as fp
import spoilfive_jax.games.forty_five.strength as sx
from spoilfive_jax.core import bits, search
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.kernel import trick_beaters, trick_landmarks
from spoilfive_jax.core.packed import get, is_clear, seat_value
from spoilfive_jax.games.forty_five.fast_playout import chooser_of, resume
from spoilfive_jax.games.forty_five.game import NUM_TRICKS, POINTS_PER_TRICK, State
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams

I32, U32 = jnp.int32, jnp.uint32
ALL = "all"  # ``solve_tricks``: the whole play of the hand
CPU_LANES = 32  # worlds searched at a time on a CPU (384 whole hands, 4 players: 32 fastest)


def leaves(tricks: int, num_players: int) -> int:
    """Leaves of one hand's solve of its last ``tricks`` tricks at ``num_players`` seats."""
    k = tricks * num_players
    return math.prod(-(-(k - i) // num_players) for i in range(k))


def max_solve_tricks(env: Any) -> int:
    """The most tricks a solve takes: the whole hand, at every table."""
    del env
    return NUM_TRICKS


def check_tricks(env: Any, tricks: Any) -> int:
    """``tricks`` as an int (``"all"``: ``NUM_TRICKS``), or a ``ValueError``: 1 to
    ``max_solve_tricks(env)``."""
    return search.check_tricks(tricks, max_solve_tricks(env))


def remaining(p: fp.Play, num_players: int) -> jax.Array:
    """int32[...]: plays left in each hand (0 once it is over)."""
    st = p.status
    in_trick = (get(st, fp._F_CUR) - get(st, fp._F_LEADER)) % num_players
    left = num_players * (NUM_TRICKS - get(st, fp._F_TRICK)) - in_trick
    return jnp.where(is_clear(st, fp._F_DONE), left, 0)


def approach(r: Any, plies: int, num_players: int, rules: FortyFiveRules) -> fp.Play:
    """The play of ``r`` (``fast_playout.Resumed``) taken on with its policy until at most
    ``plies`` plays are left in every hand (hands already there stand)."""

    def far(p: fp.Play) -> jax.Array:
        return remaining(p, num_players) > plies

    def choose(p: fp.Play, t: jax.Array) -> jax.Array:
        return fp.choose_play(p, r.table, r.chooser, r.table.decisions + t, num_players, rules)

    def body(carry: tuple[fp.Play, jax.Array, jax.Array]) -> tuple:
        p, pos, t = carry
        p = _where(far(p), fp.play_step(p, r.table, pos, num_players, rules), p)
        # The next choice is carried (as in ``fast_playout.finish``): computed once a step.
        return p, choose(p, t + 1), t + 1

    start = (r.play, choose(r.play, jnp.int32(0)), jnp.int32(0))
    return jax.lax.while_loop(lambda c: far(c[0]).any(), body, start)[0]


def _where(cond: jax.Array, a: fp.Play, b: fp.Play) -> fp.Play:
    """``a`` where ``cond``, else ``b`` (every field of the plays)."""
    return jax.tree.map(lambda x, y: jnp.where(cond, x, y), a, b)


def _expand(x: jax.Array, width: int) -> jax.Array:
    """``x`` [..., ] with a new last axis of ``width`` copies."""
    return jnp.broadcast_to(x[..., None], (*x.shape, width))


def _leaf_values(
    p: fp.Play, table: fp.Table, player: jax.Array, num_players: int, rules: FortyFiveRules
) -> tuple[jax.Array, jax.Array]:
    """(points of ``player``'s team, the bid made) float32[B, ...] of finished plays ``p``
    [B, ...] (``table`` and ``player``: [B])."""
    shape = p.status.shape
    b, size = shape[0], math.prod(shape[1:])

    def per_leaf(x: jax.Array) -> jax.Array:
        return jnp.broadcast_to(x.reshape((b,) + (1,) * (len(shape) - 1)), shape).reshape(-1)

    flat_p = jax.tree.map(lambda x: x.reshape(-1), p)
    flat_t = jax.tree.map(per_leaf, table)
    out = fp.outcome(flat_p, flat_t, num_players, rules)
    t = num_teams(num_players)
    team = jnp.repeat(player % t, size)
    mine = jnp.take_along_axis(out.team_points, team[:, None], axis=1)[:, 0]
    made = jnp.full(mine.shape, jnp.nan, jnp.float32)
    if rules.auction:
        bidder = jnp.maximum(flat_t.bidder, 0) % t
        bid_points = jnp.take_along_axis(out.team_points, bidder[:, None], axis=1)[:, 0]
        made = jnp.where(flat_t.bidder >= 0, (bid_points > 0).astype(jnp.float32), jnp.nan)
    return mine.astype(jnp.float32).reshape(shape), made.reshape(shape)


def solve(
    p: fp.Play,
    table: fp.Table,
    player: jax.Array,
    plies: int,
    num_players: int,
    rules: FortyFiveRules,
) -> tuple[jax.Array, jax.Array]:
    """The minimax value for ``player``'s team (module docstring) of hands ``p`` [B] with at
    most ``plies`` plays left: (its points float32[B], the bid made on the solved line
    float32[B], NaN outside Auction)."""
    n, t = num_players, num_teams(num_players)
    nodes = [p]
    steps: list[tuple[jax.Array, jax.Array]] = []  # per ply: (valid [.., c], maximise [..])
    for i in range(plies):
        width = -(-(plies - i) // n)
        q = nodes[-1]
        acts = remaining(q, n) == plies - i
        cur, _, legal = fp.play_legal(q, table_at(table, q), rules)
        rest, slots, valid = legal, [], []
        for j in range(width):
            slots.append(bits.lowest(rest))
            valid.append(jnp.where(acts, bits.nonempty(rest), j == 0))
            rest = rest.without(bits.bit(slots[-1]))
        pos = jnp.stack(slots, axis=-1)
        child = jax.tree.map(functools.partial(_expand, width=width), q)
        moved = fp.play_step(child, table_at(table, child), pos, n, rules)
        go = _expand(acts, width) & jnp.stack(valid, axis=-1)
        nodes.append(_where(go, moved, child))
        mover_team = cur % t == _at(player, cur) % t
        steps.append((jnp.stack(valid, axis=-1), mover_team | ~acts))
    value, made = _leaf_values(nodes[-1], table, player, n, rules)
    for ok, maximise in reversed(steps):
        sign = jnp.where(maximise, 1.0, -1.0)[..., None]
        pick = jnp.argmax(jnp.where(ok, sign * value, -jnp.inf), axis=-1)[..., None]
        value = jnp.take_along_axis(value, pick, axis=-1)[..., 0]
        made = jnp.take_along_axis(made, pick, axis=-1)[..., 0]
    return value, made


# Positions that cannot follow the one below: each slot's first, and the lowest top trump.
_CUT = bits.const([0, 16, 32, 48, sx.TRUMP_BASE + 11])


def distinct_moves(p: fp.Play, table: fp.Table, rules: FortyFiveRules) -> Bits:
    """The seat to act's legal cards, one of each run of equivalent cards: cards of one slot
    with no card between them that another seat holds, the current trick's winning card or the
    renege level's trump (nor across the top trumps' edge).  Equivalent cards give the same
    value, so a search need try only one of each run."""
    st = p.status
    _, hand, legal = fp.play_legal(p, table, rules)
    removed = Bits(p.removed_lo, p.removed_hi)
    lo = functools.reduce(jnp.bitwise_or, table.held_lo)
    hi = functools.reduce(jnp.bitwise_or, table.held_hi)
    others = Bits(lo, hi).without(removed).without(hand)
    led, best, level = get(st, fp._F_LED), get(st, fp._F_BEST), get(st, fp._F_LEVEL)
    others = others | trick_landmarks(led, best, level, sx.TRUMP_SLOT, sx.TRUMP_POWER)
    return legal.without(search.run_tails(hand, others, _CUT))


def root_twins(
    p: fp.Play,
    table: fp.Table,
    actions: jax.Array,
    at_root: jax.Array,
    rules: FortyFiveRules,
) -> jax.Array:
    """int32[B, L]: for each of the action slots ``actions`` int32[B, L] (card ids: the legal
    plays of hands ``p`` [B], padded with repeats), the slot whose solve gives its value
    (``core.search.root_twins``): a repeat's first slot, or for a card equivalent to the one
    below it in the seat's hand (``distinct_moves``) that card's slot.  ``at_root`` bool[B]:
    the hands whose solve starts as soon as the action is applied (the policy plays nothing
    first); in the others every slot is its own."""
    _, hand, legal = fp.play_legal(p, table, rules)
    column = functools.partial(jax.tree.map, lambda x: x[:, None])
    hand, legal, distinct = column((hand, legal, distinct_moves(p, table, rules)))
    pos = bits.lowest(sx.card_positions(bits.bit(actions), table.trump[:, None], rules))
    tail = bits.has(legal, pos) & ~bits.has(distinct, pos)
    twin = search.root_twins(pos, tail, bits.highest(hand & bits.below(pos)))
    return jnp.where(at_root[:, None], twin, jnp.arange(actions.shape[1], dtype=I32))


def _order(p: fp.Play, untried: Bits, num_players: int) -> jax.Array:
    """The next move to try: a lead, the highest trump (else the highest card); when a seat of
    the other side is winning the trick, the lowest card that takes it; otherwise the lowest
    card.  (Measured on whole hands at 4 players: leading the highest card searched 20% more
    children, answering with the highest winner 7% more.)"""
    t = num_teams(num_players)
    st = p.status
    led, best, seat = get(st, fp._F_LED), get(st, fp._F_BEST), get(st, fp._F_SEAT)
    cur = get(st, fp._F_CUR)
    win = trick_beaters(untried, led, best, sx.TRUMP_SLOT, sx.TRUMP_POWER)
    theirs = (led >= 0) & (seat % t != cur % t) & bits.nonempty(win)
    trumps = Bits(U32(0), sx.trumps_of(untried))
    lead = jnp.where(bits.nonempty(trumps), bits.highest(trumps), bits.highest(untried))
    follow = jnp.where(theirs, bits.lowest(win), bits.lowest(untried))
    return jnp.where(led < 0, lead, follow)


def _top_trumps(p: fp.Play, table: fp.Table, num_players: int) -> tuple[jax.Array, jax.Array]:
    """int32[] (the seat holding the highest trump still in hand, -1 if none; how many of the
    highest trumps in hand it holds in a row, above the trump winning the trick in play too).
    Each of those takes a trick of its own: the seat plays them highest first, each the highest
    trump out when played, and a seat may always play its highest trump where it may play a
    lower one."""
    removed = Bits(p.removed_lo, p.removed_hi)
    held = [
        sx.trumps_of(Bits(table.held_lo[s], table.held_hi[s]).without(removed))
        for s in range(num_players)
    ]
    st = p.status
    led, best, level = get(st, fp._F_LED), get(st, fp._F_BEST), get(st, fp._F_LEVEL)
    played = sx.trumps_of(trick_landmarks(led, best, level, sx.TRUMP_SLOT, sx.TRUMP_POWER))
    every = functools.reduce(jnp.bitwise_or, held) | played
    seat, run = I32(-1), I32(0)
    for s, mine in enumerate(held):
        others = every & ~mine
        top = 31 - jax.lax.clz(others).astype(I32)  # -1: none
        below = jnp.where(top < 0, U32(0), (U32(2) << jnp.maximum(top, 0).astype(U32)) - U32(1))
        on_top = mine > others  # (disjoint sets: the higher word holds the highest trump)
        seat = jnp.where(on_top, s, seat)
        run = jnp.where(on_top, jax.lax.population_count(mine & ~below).astype(I32), run)
    return seat, run


def _bounds(
    p: fp.Play, table: fp.Table, player: jax.Array, num_players: int, rules: FortyFiveRules
) -> tuple[jax.Array, jax.Array]:
    """int32[] (lo, hi): the points ``player``'s team can still end the hand with, from the
    tricks it has won and the tricks left (every one of them and the bonus at best, none at
    worst), less the tricks the seat holding the highest trumps is sure of (``_top_trumps``);
    the announced jink's all-or-nothing is not bounded (the whole range)."""
    t = num_teams(num_players)
    team = player % t
    won = jnp.sum(
        jnp.stack(
            [
                jnp.where(s % t == team, seat_value(p.tricks, s, fp._TRICK_BITS), 0)
                for s in range(num_players)
            ]
        )
    )
    most = won + NUM_TRICKS - get(p.status, fp._F_TRICK)
    holder, sure = _top_trumps(p, table, num_players)
    ours = (holder >= 0) & (holder % t == team)
    won, most = won + jnp.where(ours, sure, 0), most - jnp.where(ours | (holder < 0), 0, sure)
    if rules.scoring == "hoyle":
        lo = jnp.where(won == NUM_TRICKS, 10, jnp.where(won >= 3, 5, 0))
        hi = jnp.where(most == NUM_TRICKS, 10, jnp.where(most >= 3, 5, 0))
    else:
        lo = POINTS_PER_TRICK * won
        hi = POINTS_PER_TRICK * (most + int(rules.bonus))
    if rules.auction:  # the bidding team scores its points if it makes its bid, else -bid

        def scored(points: jax.Array) -> jax.Array:
            made = jnp.where(table.bid == 30, 2 * points, points)
            return jnp.where(points >= table.bid, made, -table.bid)

        bidding = (table.bidder >= 0) & (table.bidder % t == team)
        lo, hi = jnp.where(bidding, scored(lo), lo), jnp.where(bidding, scored(hi), hi)
    if rules.jink == "announced":
        return I32(-search.INF), I32(search.INF)
    return lo.astype(I32), hi.astype(I32)


def _tree(
    table: fp.Table,
    player: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
    distinct: bool = True,
) -> search.Tree[fp.Play]:
    """One world's play as a ``core.search.Tree``: ``player``'s team maximises its points for
    the hand, every other seat minimises them; a hand is settled once over or in its last trick
    (each seat's one card is played out); ``aux`` is Auction's bid made (1, 0; -1 outside)."""
    n, t = num_players, num_teams(num_players)

    def settle(p: fp.Play) -> search.Leaf:
        over = ~is_clear(p.status, fp._F_DONE)
        last = get(p.status, fp._F_TRICK) == NUM_TRICKS - 1
        q = p
        for _ in range(n):  # the last trick: every seat's only card (a hand over stands)
            only = fp.hand_now(q, table, get(q.status, fp._F_CUR))
            q = fp.play_step(q, table, bits.lowest(only), n, rules)
        one = functools.partial(jax.tree.map, lambda x: x[None])
        points, made = _leaf_values(one(q), one(table), player[None], n, rules)
        aux = jnp.where(jnp.isnan(made[0]), -1, made[0]).astype(I32)
        return search.Leaf(over | last, points[0].astype(I32), aux)

    return search.Tree(
        moves=lambda p: (
            distinct_moves(p, table, rules) if distinct else fp.play_legal(p, table, rules)[2]
        ),
        play=lambda p, pos: fp.play_step(p, table, pos, n, rules),
        leaf=settle,
        maximise=lambda p: get(p.status, fp._F_CUR) % t == player % t,
        order=lambda p, untried: _order(p, untried, n),
        bounds=lambda p: _bounds(p, table, player, n, rules),
        transposes=lambda p: jnp.bool_(True),
    )


def search_solve(
    p: fp.Play,
    table: fp.Table,
    player: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
    prune: bool = True,
    distinct: bool = True,
    lanes: int | None = None,
    transpositions: int = search.TRANSPOSITIONS,
    skip: jax.Array | None = None,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``solve`` of hands ``p`` [B] from any point of their play by alpha-beta
    (``core.search``; module docstring) instead of enumeration: (points float32[B], the bid
    made float32[B], NaN outside Auction, the children searched int32[B]).  ``prune=False``
    searches every line, ``distinct=False`` every legal card (not one of each run of
    equivalent cards): both off, the full tree of ``solve``.  ``lanes``: the worlds searched
    at a time (``core.search.alphabeta``); by default ``CPU_LANES`` on a CPU, every world at
    once elsewhere; ``transpositions``: the entries of the transposition table (0: none);
    ``skip`` bool[B]: hands not to search (each answers 0 points, 0 made and 0 nodes: the
    caller takes their values from elsewhere, ``root_twins``)."""
    if lanes is None and jax.default_backend() == "cpu":
        lanes = CPU_LANES

    def tree_of(ctx: tuple[fp.Table, jax.Array]) -> search.Tree[fp.Play]:
        return _tree(ctx[0], ctx[1], num_players, rules, distinct)

    depth = (NUM_TRICKS - 1) * num_players  # (a hand in its last trick is settled)
    out = search.alphabeta(tree_of, (table, player), p, depth, prune, lanes, transpositions, skip)
    made = jnp.where(out.aux < 0, jnp.nan, out.aux.astype(jnp.float32))
    return out.value.astype(jnp.float32), made, out.nodes


def _at(x: jax.Array, like: jax.Array) -> jax.Array:
    """``x`` [B] broadcast to the shape [B, ...] of ``like``."""
    return jnp.broadcast_to(x.reshape(x.shape + (1,) * (like.ndim - 1)), like.shape)


def table_at(table: fp.Table, p: fp.Play) -> fp.Table:
    """``table`` [B] broadcast against plays ``p`` [B, ...] (every kernel function of the play
    is elementwise)."""
    return jax.tree.map(lambda x: _at(x, p.status), table)


def solved_playout_kernel(
    keys: jax.Array,
    states: State,
    player: jax.Array,
    kind: str,
    tricks: int,
    rules: FortyFiveRules,
    skip: jax.Array | None = None,
) -> dict[str, jax.Array]:
    """``fast_playout.playout_kernel`` with the last ``tricks`` tricks solved (module
    docstring): float32[B] per ``infer.FIELDS``; ``skip``: as ``search_solve``'s."""
    n = states.tricks_won.shape[-1]
    plies = tricks * n
    r = resume(states, chooser_of(keys, kind, n), rules)
    p = approach(r, plies, n, rules)
    table_size = search.transpositions_for(plies)
    points, made, _ = search_solve(
        p, r.table, player, n, rules, skip=skip, transpositions=table_size
    )
    ended = jnp.take_along_axis(states.rewards, player[:, None], axis=1)[:, 0]
    points = jnp.where(states.terminated, ended, points)
    if rules.auction:
        t = num_teams(n)
        team = jnp.maximum(states.bidder, 0) % t
        public = jnp.take_along_axis(states.hand_points, team[:, None], axis=1)[:, 0]
        made = jnp.where(states.terminated & (states.bidder >= 0), public > 0, made)
    return {"expected_points": points.astype(jnp.float32), "make_prob": made.astype(jnp.float32)}


__all__ = [
    "ALL",
    "approach",
    "check_tricks",
    "distinct_moves",
    "leaves",
    "max_solve_tricks",
    "remaining",
    "root_twins",
    "search_solve",
    "solve",
    "solved_playout_kernel",
]
