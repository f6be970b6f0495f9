"""Exact solves of Spoil Five hands on the rollout kernel: the ``EndgameSolve`` capability.

``solved_playout(env, keys, states, actions, player, policy, tricks)`` is ``infer.playout``
with the end of each hand solved instead of played: after the action the seats play with the
built-in ``policy`` (on the kernel) until at most ``tricks`` tricks' plays are left (5, or
``"all"``: nothing is played, every decision is searched, the rob and the jink included), then
the hand is solved with every hand in view.  Each seat plays for itself, so the value is the
*paranoid* one: ``player`` chooses its decisions to maximise its net chips for the hand and
every other seat chooses to minimise them (as if the others were one side against it).  The
other fields are read off the line found: whether ``player`` takes the pot, whether nobody
does (a spoil or a failed jink).

The search is ``core.search.alphabeta`` over the kernel's ``fast.Hands``: the moves are the
kernel's legal positions, one card of each run of equivalent cards (``distinct_moves``), the
other side's winning card answered first with the lowest card that beats it; a line is cut
once ``player`` can no longer take three tricks where that settles its chips (``_bounds``), and
a hand is settled once over or in its last trick (every seat's one card played out); a
transposition table keeps every node's result for the batch (``transpositions``); a
decision's card equivalent to another of the same world, or a padded repeat of a move, is not
searched but takes that move's value (``root_twins``).  Whole hands
at 5 players are still large (four seats against one): some 40,000 nodes a world.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax.games.spoil_five.fast as fast
import spoilfive_jax.games.spoil_five.infer as infer
import spoilfive_jax.games.spoil_five.view as view
from spoilfive_jax.core import bits, search
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.kernel import trick_beaters, trick_landmarks
from spoilfive_jax.core.packed import get
from spoilfive_jax.games.spoil_five.game import State, antes
from spoilfive_jax.games.spoil_five.rules import Rules

I32 = jnp.int32
NUM_TRICKS = 5
TRUMP_POWER = 16  # a trump's trick power: 16 + its strength (``fast.apply``'s ``trick_play``)
ALL = "all"
CPU_LANES = 32  # worlds searched at a time on a CPU (``core.search.alphabeta``'s lanes)


def max_solve_tricks(env: Any) -> int:
    """The most tricks a solve takes: the whole hand."""
    del env
    return NUM_TRICKS


def check_tricks(tricks: Any) -> int:
    """``tricks`` as an int (``"all"``: 5), or a ``ValueError``: 1 to 5."""
    return search.check_tricks(tricks, NUM_TRICKS)


def _plays_left(h: fast.Hands, num_players: int) -> jax.Array:
    st = h.status
    in_trick = (get(st, fast._F_CUR) - get(st, fast._F_LEADER)) % num_players
    return num_players * (NUM_TRICKS - get(st, fast._F_TRICK)) - in_trick


_CUT = bits.const([0, 16, 32, 48, 32 + 11])  # each slot's first, the top trumps' edge


def distinct_moves(h: fast.Hands, table: fast.Table, rules: Rules) -> Bits:
    """The legal actions, one card of each run of equivalent cards (``core.search.run_tails``:
    nothing between them that another seat holds, the trick's winning card or the renege
    level's trump); the rob's pass and the jink's choices are kept."""
    st = h.status
    cur = get(st, fast._F_CUR)
    legal = Bits(*fast.legal(h, table, rules))
    hand = Bits(*fast.hand_of(h, table, cur))
    held = [Bits(*fast.hand_of(h, table, jnp.int32(s))) for s in range(len(table.dealt_lo))]
    others = Bits(
        functools.reduce(jnp.bitwise_or, [x.lo for x in held]),
        functools.reduce(jnp.bitwise_or, [x.hi for x in held]),
    ).without(hand)
    led, best, level = get(st, fast._F_LED), get(st, fast._F_BEST), get(st, fast._F_LEVEL)
    others = others | trick_landmarks(led, best, level, fast.TRUMP_SLOT, TRUMP_POWER)
    return legal.without(search.run_tails(hand, others, _CUT))


def root_twins(
    h: fast.Hands, table: fast.Table, actions: jax.Array, at_root: jax.Array, rules: Rules
) -> jax.Array:
    """int32[B, L]: for each of the action slots ``actions`` int32[B, L] (the legal actions of
    hands ``h`` [B], padded with repeats), the slot whose solve gives its value
    (``core.search.root_twins``): a repeat's first slot, or for a card played that is
    equivalent to the one below it in the seat's hand (``distinct_moves``) that card's slot.
    ``at_root`` bool[B]: the hands in their play whose solve starts as soon as the action is
    applied (the policy plays nothing first); in the others every slot is its own."""
    hand = Bits(*fast.hand_of(h, table, get(h.status, fast._F_CUR)))
    column = functools.partial(jax.tree.map, lambda x: x[:, None])
    hand, legal, distinct = column(
        (hand, Bits(*fast.legal(h, table, rules)), distinct_moves(h, table, rules))
    )
    cards = jnp.clip(actions, 0, fast.NUM_CARDS - 1)
    pos = jnp.asarray(fast.POSITION)[table.trump[:, None], cards]
    tail = bits.has(legal, pos) & ~bits.has(distinct, pos) & (actions < fast.NUM_CARDS)
    twin = search.root_twins(pos, tail, bits.highest(hand & bits.below(pos)))
    in_play = at_root & (get(h.status, fast._F_PHASE) == fast.PLAY)
    return jnp.where(in_play[:, None], twin, jnp.arange(actions.shape[1], dtype=I32))


def _order(h: fast.Hands, untried: Bits, player: jax.Array) -> jax.Array:
    """The next move to try: when the other side (``player``, or any seat against it) is
    winning the trick, the lowest card that takes it; otherwise the lowest card (a lead too:
    leading the highest trump, as in the family, searched 40% more children at 5 players; the
    rob's pass and the jink's choices in position order)."""
    st = h.status
    led, best, seat = get(st, fast._F_LED), get(st, fast._F_BEST), get(st, fast._F_SEAT)
    cur = get(st, fast._F_CUR)
    win = trick_beaters(untried, led, best, fast.TRUMP_SLOT, TRUMP_POWER)
    theirs = (led >= 0) & ((seat == player) != (cur == player)) & bits.nonempty(win)
    in_play = get(st, fast._F_PHASE) == fast.PLAY
    low = bits.lowest(untried)
    follow = jnp.where(theirs, bits.lowest(win), low)
    return jnp.where(in_play & (led >= 0), follow, low)


def _bounds(
    h: fast.Hands, table: fast.Table, player: jax.Array, num_players: int, rules: Rules
) -> tuple[jax.Array, jax.Array]:
    """int32[] (lo, hi): ``player``'s chips at worst (its ante lost and another seat's jink
    paid) and at best (the pot and a jink's bonus from every seat, while it can still take
    three tricks; else its ante lost)."""
    n = num_players
    paid = antes(table.dealer, table.carried, n, rules)  # int32[N]
    pot = table.carried + paid.sum()
    mine = paid[player]
    won = fast.seat_tricks(h.tricks, player)
    can_win = won + NUM_TRICKS - get(h.status, fast._F_TRICK) >= 3
    bonus = rules.bonus if rules.jink else 0
    hi = jnp.where(can_win, pot + bonus * (n - 1), 0) - mine
    return (-mine - bonus).astype(I32), hi.astype(I32)


def _tree(
    table: fast.Table, player: jax.Array, num_players: int, rules: Rules, distinct: bool = True
) -> search.Tree[fast.Hands]:
    """One world as a ``core.search.Tree``: ``player`` maximises its chips, every other seat
    minimises them; ``aux`` is the seat that takes the pot (-1: nobody)."""
    n = num_players

    def moves(h: fast.Hands) -> Bits:
        return Bits(*fast.legal(h, table, rules))

    def settle(h: fast.Hands) -> search.Leaf:
        phase = get(h.status, fast._F_PHASE)
        last = (phase == fast.PLAY) & (get(h.status, fast._F_TRICK) == NUM_TRICKS - 1)
        q = h
        for _ in range(n):  # the last trick: every seat's only card (a hand over stands)
            q = fast.apply(q, table, bits.lowest(moves(q)), n, rules)
        one = functools.partial(jax.tree.map, lambda x: x[None])
        out = fast.outcome(one(q), one(table), n, rules)
        chips = out.rewards[0, player].astype(I32)
        return search.Leaf((phase == fast.DONE) | last, chips, out.winner[0])

    return search.Tree(
        moves=lambda h: distinct_moves(h, table, rules) if distinct else moves(h),
        play=lambda h, pos: fast.apply(h, table, pos, n, rules),
        leaf=settle,
        maximise=lambda h: get(h.status, fast._F_CUR) == player,
        bounds=lambda h: _bounds(h, table, player, n, rules),
        order=lambda h, untried: _order(h, untried, player),
        transposes=lambda h: jnp.bool_(True),
    )


def search_solve(
    h: fast.Hands,
    table: fast.Table,
    player: jax.Array,
    num_players: int,
    rules: Rules,
    prune: bool = True,
    lanes: int | None = None,
    distinct: bool = True,
    transpositions: int = search.TRANSPOSITIONS,
    skip: jax.Array | None = None,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The paranoid value of hands ``h`` [B] for seat ``player`` int32[B] (module docstring):
    (net chips float32[B], the seat that takes the pot int32[B] on the line found (-1:
    nobody), the children searched int32[B]); ``prune=False`` searches every line,
    ``distinct=False`` every legal card (not one of each run of equivalent cards),
    ``transpositions``: the entries of the transposition table (0: none); ``skip`` bool[B]:
    hands not to search (each answers 0 chips, seat 0 and 0 nodes: the caller takes their
    values from elsewhere, ``root_twins``)."""
    if lanes is None and jax.default_backend() == "cpu":
        lanes = CPU_LANES

    def tree_of(ctx: tuple[fast.Table, jax.Array]) -> search.Tree[fast.Hands]:
        return _tree(ctx[0], ctx[1], num_players, rules, distinct)

    depth = 2 + (NUM_TRICKS - 1) * num_players  # (the rob, the plays, the jink)
    out = search.alphabeta(tree_of, (table, player), h, depth, prune, lanes, transpositions, skip)
    return out.value.astype(jnp.float32), out.aux, out.nodes


def approach(
    h: fast.Hands,
    table: fast.Table,
    choose: Any,
    plies: int,
    num_players: int,
    rules: Rules,
) -> fast.Hands:
    """``h`` taken on by the policy of ``choose`` until its rob is decided and at most
    ``plies`` plays are left (hands already there stand)."""

    def far(q: fast.Hands) -> jax.Array:
        phase = get(q.status, fast._F_PHASE)
        return (phase == fast.ROB) | ((phase != fast.DONE) & (_plays_left(q, num_players) > plies))

    def body(carry: tuple[fast.Hands, jax.Array]) -> tuple[fast.Hands, jax.Array]:
        q, t = carry
        moved = fast.apply(q, table, choose(q, t), num_players, rules)
        return jax.tree.map(lambda a, b: jnp.where(far(q), a, b), moved, q), t + 1

    return jax.lax.while_loop(lambda c: far(c[0]).any(), body, (h, jnp.int32(0)))[0]


def solved_playout(
    env: Any,
    keys: jax.Array,
    states: State,
    actions: jax.Array,
    player: jax.Array,
    policy: Any,
    tricks: int | str,
) -> dict[str, jax.Array]:
    """``infer.playout`` with each hand solved from its last ``tricks`` tricks (module
    docstring): float32[B, L] per ``infer.FIELDS``."""
    tricks = check_tricks(tricks)
    if not (isinstance(policy, str) and policy in ("random", "heuristic")):
        raise ValueError(
            "a solved playout plays on the rollout kernel: its policy must be 'random' or "
            f"'heuristic', got {policy!r}"
        )
    n, rules = env.num_players, env.rules
    b, width = actions.shape
    table, h, ids = infer.applied_fast(keys, states, actions, n, rules)
    if tricks < NUM_TRICKS:
        h = approach(h, table, infer.chooser(policy, table, ids, rules), tricks * n, n, rules)
    # A move equivalent to another of its world (or a padded repeat) is not searched.
    table0, h0 = view.to_fast(states, n)
    twin = root_twins(h0, table0, actions, _plays_left(h0, n) <= tricks * n + 1, rules)
    skip = (twin != jnp.arange(width)).reshape(-1)
    seat = jnp.repeat(player, width)
    order, back = search.move_major(b, width)
    take = functools.partial(jax.tree.map, lambda x: x[order])
    size = search.transpositions_for(tricks * n)
    chips, winner, _ = search_solve(
        take(h), take(table), seat[order], n, rules, transpositions=size, skip=skip[order]
    )
    chips, winner = chips[back], winner[back]
    out = {
        "expected_chips": chips,
        "win_prob": (winner == seat).astype(jnp.float32),
        "spoil_prob": (winner < 0).astype(jnp.float32),
    }
    return {k: jnp.take_along_axis(v.reshape(b, width), twin, 1) for k, v in out.items()}


__all__ = [
    "ALL",
    "approach",
    "check_tricks",
    "max_solve_tricks",
    "root_twins",
    "search_solve",
    "solved_playout",
]
