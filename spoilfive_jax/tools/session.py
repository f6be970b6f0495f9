"""Sessions: hands in sequence at one table, for any game (``play_sessions``), and
``auto_reset``, the pgx-style step wrapper for RL loops.

What a session is belongs to the game (``Sessions.play_sessions``): Spoil Five plays chip sessions
(``games.spoil_five.session``: the pot carried, stacks, until a player is broke or the hand limit
is reached); the Forty-Five family plays whole games to the target (``games.forty_five.session``).
This module imports no game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, HandState, R, S
from spoilfive_jax.core.validate import check_bool, positive_int
from spoilfive_jax.tools.policies import PolicySpec, lineup
from spoilfive_jax.tools.programs import bound_compiled_programs
from spoilfive_jax.tools.rollout import as_key, check_env


def play_sessions(
    key: jax.Array | int,
    env: Env[S, R],
    policy: PolicySpec = "random",
    num_sessions: int = 1000,
    *,
    per_hand: bool = True,
    **options: Any,
) -> Any:
    """Play ``num_sessions`` sessions of ``env``'s game with ``policy`` (a name, a callable or
    one per seat, as ``rollout``); seat 0 deals the first hand and the deal passes left.

    Spoil Five: chip sessions, options ``max_hands=100``, ``stack=20``, ``batch_size``; returns
    a ``SessionResult``.  The Forty-Five family: whole games to the target, options
    ``max_hands=30``, ``batch_size=4096``; returns a ``GameResult``.  Same key -> same sessions.

    ``per_hand``: True keeps every session's arrays on the host (Spoil Five's ``chips_by_hand``
    alone is 4 * max_hands * N bytes a session); False plays the sessions chunk by chunk
    (``batch_size`` at a time) and keeps only the totals the summary needs, reduced on the
    device: a ``SessionSummary`` (the family: a ``GameSummary``) whose ``summary()`` equals the
    per-session one's exactly (it holds counts only) and whose per-session fields raise
    ``core.stats.NoPerHand``.  Memory then does not grow with ``num_sessions``.
    """
    bound_compiled_programs()  # (tools.programs: a long-lived process stays under the limit)
    check_env(env)
    num = positive_int("num_sessions", num_sessions)
    assert num is not None
    per_hand = check_bool("per_hand", per_hand)
    who, seat_policy = lineup(env, policy)
    return env.capability(caps.Sessions, "play_sessions").play_sessions(
        env, as_key(key), who, seat_policy, num, per_hand=per_hand, **options
    )


def auto_reset(
    step_fn: Callable[[Any, jax.Array], Any], init_fn: Callable[[jax.Array], Any]
) -> Callable[[Any, jax.Array, jax.Array], Any]:
    """Wrap ``step(state, action)`` into ``step(state, action, key)`` that deals a new hand
    (``init_fn(key)``) whenever one ends, as pgx's ``auto_reset`` does.

    On the step that ends a hand the returned state is the NEW hand's first state (its
    ``current_player``, ``legal_action_mask`` and observation are the new hand's, and
    ``env.legal_actions`` lists its legal actions) carrying the finished step's ``rewards`` and
    its ``terminated``/``truncated`` flags, so a training loop sees where the episode ended and
    what it paid.  Those three are cleared at the next call, before stepping.  vmap-friendly
    (selects, no ``cond``).
    """

    def step(state: HandState, action: jax.Array, key: jax.Array) -> Any:
        state = state.replace(
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            rewards=jnp.zeros_like(state.rewards),
        )
        after = step_fn(state, action)
        ended = after.terminated | after.truncated
        fresh = init_fn(key).replace(
            terminated=after.terminated, truncated=after.truncated, rewards=after.rewards
        )
        return jax.tree.map(lambda f, a: jnp.where(ended, f, a), fresh, after)

    return step


__all__ = ["auto_reset", "play_sessions"]
