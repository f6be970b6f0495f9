"""Exact solves of the family's last tricks on the rollout kernel: the ``EndgameSolve`` capability.

``solved_playout(env, keys, states, actions, player, policy, tricks)`` is ``infer.playout``
with the end of each hand solved instead of played: after the action, the seats play with the
built-in ``policy`` (on the kernel, ``fast_playout``) until ``tricks`` tricks are left, then
every legal play of every seat in those tricks is enumerated and the hand's value is its
minimax value for ``player``'s team: its seats choose the play that maximises the team's
points for the hand, every other seat the play that minimises them (the family's two-team
game exactly; in the games where each seat plays for itself, every other seat plays against
``player``: a paranoid solve).  Each sampled world is solved with every hand in view: a
perfect-information solve, which is what a PIMC bot's worlds are (``tools.pimc``,
``solve_tricks``).

The enumeration is a fixed tree (``solve``): with R plays left, the seat to act holds
ceil(R / N) cards, so ply i of a solve of K = tricks * N plies branches ceil((K - i) / N)
ways, whatever the position; a hand with fewer plays left (the action was late in the hand, or
an announced jink ended it) waits at the first plies with one branch.  A hand's tree holds
``leaves(tricks, N)`` leaves (1296 for 3 tricks at 4 players); ``MAX_LEAVES`` bounds it.

``MAX_LEAVES`` bounds one world's tree; a pimc decision solves every world of its sample for
each legal move (64 worlds x up to 6 moves: up to 25 million leaves at the bound).

Auction's ``make_prob`` is whether the bid is made on the solved line (the principal
variation).  Where several plays give ``player``'s side the same points, the first in the
kernel's order is taken, and the bid may be made on one such line and not another; in the
individual games the bidder, like every other seat, plays against ``player``, not for its bid.
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax.games.forty_five.fast_play as fp
from spoilfive_jax.core import bits
from spoilfive_jax.core.packed import get, is_clear
from spoilfive_jax.games.forty_five.fast_playout import chooser_of, resume
from spoilfive_jax.games.forty_five.game import NUM_TRICKS, State
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams

I32 = jnp.int32
MAX_LEAVES = 1 << 16  # the most leaves a hand's solve may enumerate (``check_tricks``)


def leaves(tricks: int, num_players: int) -> int:
    """Leaves of one hand's solve of its last ``tricks`` tricks at ``num_players`` seats."""
    k = tricks * num_players
    return math.prod(-(-(k - i) // num_players) for i in range(k))


def max_solve_tricks(env: Any) -> int:
    """The most tricks a solve may enumerate at ``env``'s table (``MAX_LEAVES``)."""
    n = env.num_players
    return max(t for t in range(1, NUM_TRICKS + 1) if leaves(t, n) <= MAX_LEAVES)


def check_tricks(env: Any, tricks: Any) -> int:
    """``tricks`` as an int, or a ``ValueError``: 1 to ``max_solve_tricks(env)``."""
    top = max_solve_tricks(env)
    integral = isinstance(tricks, numbers.Integral) and not isinstance(tricks, bool)
    if not integral or not 1 <= tricks <= top:
        raise ValueError(
            f"solve_tricks must be an integer from 1 to {top} at {env.num_players} players "
            f"(a solve of t tricks enumerates every play: {leaves(top, env.num_players)} "
            f"leaves a world at {top}), got {tricks!r}"
        )
    return int(tricks)


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
) -> dict[str, jax.Array]:
    """``fast_playout.playout_kernel`` with the last ``tricks`` tricks solved (module
    docstring): float32[B] per ``infer.FIELDS``."""
    n = states.tricks_won.shape[-1]
    plies = tricks * n
    r = resume(states, chooser_of(keys, kind, n), rules)
    p = approach(r, plies, n, rules)
    points, made = solve(p, r.table, player, plies, n, rules)
    ended = jnp.take_along_axis(states.rewards, player[:, None], axis=1)[:, 0]
    points = jnp.where(states.terminated, ended, points)
    if rules.auction:
        t = num_teams(n)
        team = jnp.maximum(states.bidder, 0) % t
        public = jnp.take_along_axis(states.hand_points, team[:, None], axis=1)[:, 0]
        made = jnp.where(states.terminated & (states.bidder >= 0), public > 0, made)
    return {"expected_points": points.astype(jnp.float32), "make_prob": made.astype(jnp.float32)}


__all__ = [
    "MAX_LEAVES",
    "approach",
    "check_tricks",
    "leaves",
    "max_solve_tricks",
    "remaining",
    "solve",
    "solved_playout_kernel",
]
