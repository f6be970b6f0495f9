"""Exact values of every legal action with every hand in view: ``sf.solve``.

``solve(env, states, player)`` answers "what is each of these moves worth if every card is
known?" for a batch of positions: each legal action is applied and the hand is solved to its
end by the game's ``EndgameSolve`` capability (an alpha-beta search on ``core.search``:
``games.forty_five.endgame``, ``games.spoil_five.solve``).  The value is the solve's for
``player``:

- in the partnership games (the family at 4 or 6 seats, two teams), the minimax value of
  ``player``'s team's points for the hand, exact;
- where each seat plays for itself (Spoil Five; Forty-Five at 2, 3 or 5 seats; Auction's
  individual tables), the paranoid value: every other seat plays to minimise ``player``'s
  points (chips in Spoil Five).

The states' hidden cards are taken as they are: to value a position as a player who cannot
see them, solve worlds resampled from what that player knows (``sf.pimc(...,
solve_tricks="all")`` does that at every decision).  In the family the decisions before the
first lead (robbing, bidding, discards, jink announcements) are not searched: the built-in
``policy`` makes them, and the tricks after them are solved; in Spoil Five every decision is
searched (the rob and the jink too).

Game-generic: it uses the ``EndgameSolve`` and ``Analysis`` capabilities only; a game without
them gets ``MissingCapability`` (the games written outside the package today).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, R, S, check_state
from spoilfive_jax.core.validate import as_key
from spoilfive_jax.tools.analysis import legal_slots
from spoilfive_jax.tools.levers import check_solve_policy

WHOLE_HAND = "all"  # ``EndgameSolve.solved_playout``'s tricks: every trick left


def solve(
    env: Env[S, R],
    states: S,
    player: Any = None,
    *,
    policy: str = "heuristic",
    key: Any = 0,
) -> jax.Array:
    """float32[B, A]: the exact value for ``player`` of each legal action of each of the
    states [B] (module docstring), NaN where the action is illegal (A = ``env.num_actions``).

    ``player``: one seat for every state, a seat per state int32[B], or ``None`` for each
    state's seat to act.  ``policy``: the built-in policy that makes the decisions before the
    first lead; ``key``: its random stream (a PRNG key or an int seed; only a random policy
    draws; Spoil Five searches those decisions too).  A single state (no batch axis) gives
    float32[A].

    ``ValueError``: a state of another game or table, a hand already over, a seat outside
    0..N-1, a policy that is not a built-in name; ``MissingCapability``: a game without an
    exact solver."""
    env.capability(caps.EndgameSolve, "solve")
    width = int(env.capability(caps.Analysis, "solve").max_legal_actions(env))
    check_state(env, states, "solve")
    check_solve_policy(1, policy)
    single = np.ndim(states.current_player) == 0
    if single:
        states = jax.tree.map(lambda x: jnp.asarray(x)[None], states)
    if bool(np.asarray(states.terminated).any()):
        raise ValueError("solve: a hand that is already over has no actions to value")
    b = int(np.shape(states.current_player)[0])
    seats = states.current_player if player is None else player
    seats = np.broadcast_to(np.asarray(seats), (b,))
    if (
        not np.issubdtype(seats.dtype, np.integer)
        or not ((seats >= 0) & (seats < env.num_players)).all()
    ):
        raise ValueError(
            f"solve: player must be a seat 0..{env.num_players - 1} (or one per state), "
            f"got {player!r}"
        )
    keys = jax.random.split(as_key(key, "solve"), b)
    out = _values(env, policy, width, keys, states, jnp.asarray(seats, jnp.int32))
    return out[0] if single else out


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _values(
    env: Env[S, R],
    policy: str,
    width: int,
    keys: jax.Array,
    states: S,
    player: jax.Array,
) -> jax.Array:
    """``solve``'s values (jitted; the checks are done)."""
    actions, used = jax.vmap(lambda m: legal_slots(m, width))(states.legal_action_mask)
    field = env.capability(caps.Analysis, "solve").analysis_fields(env)[0]
    solver = env.capability(caps.EndgameSolve, "solve")
    values = solver.solved_playout(env, keys, states, actions, player, policy, WHOLE_HAND)[field]
    rows = jnp.arange(actions.shape[0])[:, None]
    out = jnp.full((actions.shape[0], env.num_actions), jnp.nan, jnp.float32)
    return out.at[rows, jnp.where(used, actions, env.num_actions)].set(values, mode="drop")


__all__ = ["WHOLE_HAND", "solve"]
