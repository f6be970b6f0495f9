"""The batch scorer: what a hand is worth to a seat that knows its own five cards and the
turn-up (``score_hands``), by determinized Monte Carlo over whole hands on the rollout engine.

The game says how to deal around the known cards (``HandScoring.known_deal``), what each rollout
tells about the query seat (``HandScoring.query_samples``) and what the estimates are called
(``HandScoring.hand_scores``: Spoil Five's ``HandScores``, the family's ``FamilyScores``).  This
module imports no game.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env
from spoilfive_jax.core.stats import query_stats
from spoilfive_jax.core.validate import positive_int
from spoilfive_jax.registry import available_games, env_class, make
from spoilfive_jax.tools.policies import Lineup, PolicySpec, lineup, play_deals
from spoilfive_jax.tools.rollout import as_key, batch_size_for, check_env
from spoilfive_jax.tools.sharding import shard_batch

U32, I32 = jnp.uint32, jnp.int32


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _score_chunk(
    env: Env[Any, Any],
    who: Lineup,
    size: int,
    keys: Any,
    first: jax.Array,
    hands: jax.Array,
    turnup: jax.Array,
    seat: jax.Array,
    num_rollouts: jax.Array,
    seat_policy: jax.Array,
) -> tuple[jax.Array, ...]:
    """Rollouts ``first .. first+size-1`` (query = id // num_rollouts): the query seat's
    samples (``HandScoring.query_samples``)."""
    ids = shard_batch(first + jnp.arange(size, dtype=U32))
    q = jnp.minimum(ids // num_rollouts.astype(U32), hands.shape[0] - 1).astype(I32)
    me = seat[q]
    scoring = env.capability(caps.HandScoring, "score_hands")
    deal = scoring.known_deal(env, keys, ids, hands[q], turnup[q], me)
    out = play_deals(env, who, keys, ids, deal, seat_policy)
    return scoring.query_samples(env, out, me)


def score_hands(
    key: jax.Array | int,
    hands: Any,
    turnup: Any,
    seat: Any,
    num_players: int | None = None,
    rules: Any = None,
    policy: PolicySpec = "random",
    num_rollouts: int = 1000,
    batch_size: int | None = None,
    *,
    env: Env[Any, Any] | None = None,
    threshold: int = 15,
) -> Any:
    """Estimate each query hand's chances by determinized Monte Carlo.

    hands int[Q, 5], turnup int[Q] (or one), seat int[Q] (or one) relative to the dealer at
    seat 0 (seat 1 is the eldest hand).  For each query, ``num_rollouts`` deals give the seat
    its five cards and the turn-up, deal the unseen cards uniformly to the others, and play
    the hand out with ``policy`` (every seat, or a list with one per seat).

    The table: ``env`` (any game), or ``num_players`` and ``rules`` (a Spoil Five ``Rules``,
    5 players by default, or a ``FortyFiveRules``, 4 by default); with ``env`` leave them out or
    give the same.  Spoil Five gives a ``HandScores`` (win and spoil probabilities, expected
    chips).  The Forty-Five family gives a ``FamilyScores``: the seat's team's expected points
    for the hand, P(its team scores at least ``threshold`` points) and its expected tricks; the
    seat keeps its five cards (the joker may be one) and sees the turn-up (a card 0..51: the
    hand is one in which the joker was not turned up).  Auction Forty-Fives has no turn-up:
    pass ``turnup=None``; the unseen cards go uniformly to the other hands and the stock.
    """
    if env is not None:
        check_env(env)
        if num_players is not None and num_players != env.num_players:
            raise ValueError(f"num_players={num_players} but env has {env.num_players} players")
        if rules is not None and rules != env.rules:
            raise ValueError("rules differ from env.rules; give one or the other")
    else:
        env = _table(num_players, rules)
    r = positive_int("num_rollouts", num_rollouts)
    assert r is not None
    if r < 2:
        raise ValueError(f"num_rollouts must be an integer >= 2, got {r}")
    h, t, s = check_queries(env, hands, turnup, seat)
    total = h.shape[0] * r
    size = batch_size_for(batch_size, total)
    who, seat_policy = lineup(env, policy)
    keys = env.capability(caps.Rollouts).rollout_keys(env, as_key(key))
    parts: list[tuple[np.ndarray, ...]] = []
    for first in range(0, total, size):
        out = _score_chunk(
            env,
            who,
            size,
            keys,
            jnp.uint32(first),
            jnp.asarray(h),
            jnp.asarray(t),
            jnp.asarray(s),
            jnp.int32(r),
            jnp.asarray(seat_policy),
        )
        parts.append(tuple(np.asarray(x) for x in out))
    samples = [np.concatenate(x)[:total].reshape(-1, r) for x in zip(*parts, strict=True)]
    scoring = env.capability(caps.HandScoring, "score_hands")
    return scoring.hand_scores(env, samples, r, threshold=threshold)


def check_queries(
    env: Env[Any, Any], hands: Any, turnup: Any, seat: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The queries as int32 arrays [Q, 5], [Q], [Q], or ``ValueError`` naming the problem: the
    checks every game shares here, the card ids and the turn-up by the game
    (``HandScoring.check_turnup``)."""
    h = np.asarray(hands)
    if h.ndim == 1:
        h = h[None]
    if h.ndim != 2 or h.shape[1] != 5 or h.shape[0] < 1:
        raise ValueError(f"hands must have shape (Q, 5), got {np.shape(hands)}")
    if not np.issubdtype(h.dtype, np.integer):
        raise ValueError(f"hands must hold integer card ids, got dtype {h.dtype}")
    q, n = h.shape[0], env.num_players
    s = np.broadcast_to(np.asarray(seat), (q,))
    if not np.issubdtype(s.dtype, np.integer):
        raise ValueError(f"seat must be integers, got {seat!r}")
    if ((s < 0) | (s >= n)).any():
        raise ValueError(f"seat must be 0..{n - 1} (dealer = seat 0), got {s.tolist()}")
    t = env.capability(caps.HandScoring, "score_hands").check_turnup(env, h, turnup)
    for i in range(q):
        row = h[i].tolist()
        if len(set(row)) != 5:
            raise ValueError(f"query {i}: duplicate cards in the hand {row}")
    return h.astype(np.int32), t.astype(np.int32), s.astype(np.int32)


def _table(num_players: int | None, rules: Any) -> Env[Any, Any]:
    """The env of ``num_players`` and ``rules`` (a registered game's rules object).  Without
    either ``env`` or ``rules`` the table was Spoil Five's; that default is deprecated (a tool
    names no game), and goes with the next release."""
    if rules is None:
        warnings.warn(
            "score_hands without env= or rules= is deprecated: pass the table, e.g. "
            "env=sf.make('spoil_five', 5)",
            DeprecationWarning,
            stacklevel=3,
        )
        return make("spoil_five", num_players)
    for game_id in available_games():
        cls = env_class(game_id)
        if isinstance(rules, cls.rules_type):
            return cls(num_players, rules)
    raise ValueError(f"rules must be the rules of a registered game, got {type(rules).__name__}")


__all__ = ["query_stats", "score_hands"]
