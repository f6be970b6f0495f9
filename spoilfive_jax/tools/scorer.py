"""The batch scorer: what a hand is worth to a seat that knows its own five cards and the
turn-up (``score_hands``), by determinized Monte Carlo over whole hands on the rollout engine.

The game says how to deal around the known cards (``HandScoring.known_deal``), what each rollout
tells about the query seat (``HandScoring.query_samples``) and what the estimates are called
(``HandScoring.query_values`` and ``scores_from_moments``: Spoil Five's ``HandScores``, the
family's ``FamilyScores``).  This module imports no game.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Hashable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.deprecation import deprecated
from spoilfive_jax.core.env import Env, R, S
from spoilfive_jax.core.stats import (
    Moments,
    merge_moments,
    moment_mean,
    moment_se,
    query_stats,
    segment_moments,
)
from spoilfive_jax.core.validate import check_bool, positive_int
from spoilfive_jax.registry import available_games, env_class, make
from spoilfive_jax.tools.checkpoint import (
    CheckpointSpec,
    Loop,
    as_checkpoint,
    policy_facts,
    run_chunks,
    run_facts,
)
from spoilfive_jax.tools.chunks import Chunk, hand_chunks, run_keys
from spoilfive_jax.tools.policies import Lineup, PolicySpec, lineup, play_deals
from spoilfive_jax.tools.programs import bound_compiled_programs
from spoilfive_jax.tools.rollout import as_key, batch_size_for, check_env, pipelined
from spoilfive_jax.tools.sharding import (
    host_arrays,
    one_at_a_time,
    replicated,
    shard_batch,
)

U32, I32 = jnp.uint32, jnp.int32


def _queries(size: int, q0: jax.Array, rem: jax.Array, per: jax.Array, last: int) -> jax.Array:
    """int32[size]: the query of each rollout of a call whose first rollout is rollout
    ``num_rollouts - rem`` of query ``q0`` (``per``: ``num_rollouts``, or ``size`` when that is
    larger: the same answer, in int32 for any run), clipped to the ``last`` query."""
    j = jnp.arange(size, dtype=I32)
    return jnp.minimum(q0 + jnp.where(j < rem, 0, 1 + (j - rem) // per), last)


def _play_queries(
    env: Env[S, R],
    who: Lineup,
    size: int,
    keys: caps.RunKeys,
    first: jax.Array,
    where: tuple[jax.Array, jax.Array, jax.Array],
    queries: tuple[jax.Array, jax.Array, jax.Array],
    seat_policy: jax.Array,
    options: dict[str, jax.Array],
) -> tuple[jax.Array, tuple[jax.Array, ...]]:
    """Jittable: rollouts ids ``first ..`` of a call (``where``: ``_queries``' q0, rem, per):
    each one's query and the query seat's values (``HandScoring.query_values``)."""
    hands, turnup, seat = queries
    ids = shard_batch(first + jnp.arange(size, dtype=U32))
    q = _queries(size, *where, hands.shape[0] - 1)
    me = seat[q]
    scoring = env.capability(caps.HandScoring, "score_hands")
    deal = scoring.known_deal(env, keys, ids, hands[q], turnup[q], me)
    out = play_deals(env, who, keys, ids, deal, seat_policy)
    return q, scoring.query_values(env, scoring.query_samples(env, out, me), **options)


@one_at_a_time
@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _score_chunk(
    env: Env[S, R], who: Lineup, size: int, *args: Any
) -> tuple[jax.Array, tuple[jax.Array, ...]]:
    """A call's rollouts: each one's query and the query seat's values, each [size]."""
    return _play_queries(env, who, size, *args)


@one_at_a_time
@functools.partial(jax.jit, static_argnums=(0,))
def _query_moments(
    num: int, q: jax.Array, values: tuple[jax.Array, ...], count: jax.Array
) -> tuple[Moments, ...]:
    """A call's first ``count`` rollouts (``_score_chunk``'s, still on the device) reduced to
    each value's moments per query (arrays [num]), nothing per rollout."""
    valid = jnp.arange(q.shape[0], dtype=I32) < count
    return replicated(tuple(segment_moments(v, q, valid, num) for v in values))  # type: ignore[no-any-return]


def score_hands(
    key: jax.Array | int,
    hands: ArrayLike,
    turnup: ArrayLike | None,
    seat: ArrayLike,
    num_players: int | None = None,
    rules: Hashable | None = None,
    policy: PolicySpec = "random",
    num_rollouts: int = 1000,
    batch_size: int | None = None,
    *,
    env: Env[S, R] | None = None,
    threshold: int = 15,
    per_hand: bool = True,
    progress: Callable[[int, int], object] | None = None,
    checkpoint: CheckpointSpec = None,
    should_stop: Callable[[], bool] | None = None,
) -> Any:  # the game's score record (HandScoring.scores_from_moments)
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

    ``per_hand``: True keeps every rollout's values on the host ([Q, num_rollouts] each) and
    takes their means and standard errors there; False reduces each call's rollouts on the
    device to per-query moments, pooled on the host in float64, so memory does not grow with
    ``num_rollouts`` (any number).  The scores are the same record either way: means to the
    last bit when the values are integers (they are in every built-in game), standard errors
    to float32 rounding.

    ``progress(done, total)``: rollouts done of ``Q * num_rollouts``, called before the first
    call and after each.  A streamed run (``per_hand=False``) also takes ``checkpoint`` (a
    directory or a ``tools.checkpoint.Checkpoint``: resumed where it stopped, with the scores
    of a run never stopped, bit for bit) and ``should_stop()``, asked after every call: when
    it returns True the run ends there and the scores are those of the queries whose rollouts
    all ran (the first ``done // num_rollouts``; the same numbers as a whole run's).
    """
    bound_compiled_programs()  # (tools.programs: a long-lived process stays under the limit)
    if env is not None:
        check_env(env)
        if num_players is not None and num_players != env.num_players:
            raise ValueError(f"num_players={num_players} but env has {env.num_players} players")
        if rules is not None and rules != env.rules:
            raise ValueError("rules differ from env.rules; give one or the other")
    else:
        env = _table(num_players, rules)
    r: int = positive_int("num_rollouts", num_rollouts)  # type: ignore[assignment]
    if r < 2:
        raise ValueError(f"num_rollouts must be an integer >= 2, got {r}")
    h, t, s = check_queries(env, hands, turnup, seat)
    total = h.shape[0] * r
    size = batch_size_for(batch_size, total)
    who, seat_policy = lineup(env, policy)
    scoring = env.capability(caps.HandScoring, "score_hands")
    options = {} if threshold is None else {"threshold": jnp.int32(threshold)}
    args = (env, who, size, as_key(key), (h, t, s), r, seat_policy, options)
    ckpt = as_checkpoint(checkpoint)
    if check_bool("per_hand", per_hand):
        if ckpt is not None or should_stop is not None:
            raise ValueError("checkpoint and should_stop need per_hand=False (a streamed run)")
        means, ses = _per_query(*args, progress)
    else:
        facts = {"policy": policy_facts(who.names, who.policies, seat_policy)}
        digest = hashlib.sha256(b"".join(x.tobytes() for x in (h, t, s))).hexdigest()
        facts.update(queries=digest, rollouts=r, batch=size, threshold=threshold)
        loop = _streamed(*args, run_facts("score_hands", env, args[3], **facts))
        end = run_chunks(loop, checkpoint=ckpt, progress=progress, stop=should_stop)
        means, ses = _scored(end.state, end.done // r)  # (every query, unless stopped)
    return scoring.scores_from_moments(env, means, ses, r, threshold=threshold)


def _scored(pooled: list[Moments], count: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Means and standard errors (float32[count]) of the first ``count`` queries' pooled
    moments (one ``Moments`` per value)."""
    first = [Moments(*(np.asarray(x)[:count] for x in m)) for m in pooled]
    means = [moment_mean(m).astype(np.float32) for m in first]
    return means, [moment_se(m).astype(np.float32) for m in first]


def _calls(
    env: Env[S, R],
    key: jax.Array,
    size: int,
    total: int,
    r: int,
    chunk_fn: Callable[[Chunk, tuple[Any, ...]], Any],
    done: int = 0,
) -> Iterator[tuple[Any, Chunk]]:
    """Dispatch ``chunk_fn(chunk, (keys, first, where))`` on every call of a run of ``total``
    rollouts from rollout ``done`` on (``where``: where its first rollout is, for
    ``_queries``)."""
    keys, epoch = None, -1
    for c in hand_chunks(done, total, size):
        if c.epoch != epoch:
            keys, epoch = run_keys(env, key, c.epoch), c.epoch
        q0, done = divmod(c.start, r)
        where = (jnp.int32(q0), jnp.int32(min(r - done, size)), jnp.int32(min(r, size)))
        yield chunk_fn(c, (keys, jnp.uint32(c.first), where)), c


def _per_query(
    env: Env[S, R],
    who: Lineup,
    size: int,
    key: jax.Array,
    queries: tuple[np.ndarray, ...],
    r: int,
    seat_policy: np.ndarray,
    options: dict[str, jax.Array],
    progress: Callable[[int, int], Any] | None = None,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Every rollout's values on the host [Q, R]; their means and standard errors."""
    total = queries[0].shape[0] * r
    rest = (tuple(jnp.asarray(x) for x in queries), jnp.asarray(seat_policy), options)
    parts: list[tuple[np.ndarray, ...]] = []
    if progress is not None:
        progress(0, total)

    def chunk(c: Chunk, args: tuple[Any, ...]) -> Any:
        return _score_chunk(env, who, size, *args, *rest)[1]

    def consume(out: tuple[jax.Array, ...], c: Chunk) -> None:
        parts.append(tuple(x[: c.hands] for x in host_arrays(out)))
        if progress is not None:
            progress(c.start + c.hands, total)

    pipelined(_calls(env, key, size, total, r, chunk), consume)
    samples = [np.concatenate(x).reshape(-1, r) for x in zip(*parts, strict=True)]
    return query_stats(samples)


def _streamed(
    env: Env[S, R],
    who: Lineup,
    size: int,
    key: jax.Array,
    queries: tuple[np.ndarray, ...],
    r: int,
    seat_policy: np.ndarray,
    options: dict[str, jax.Array],
    facts: dict[str, Any],
) -> Loop:
    """The streamed run (``tools.checkpoint.run_chunks``): the rollouts reduced call by call on
    the device to per-query moments, pooled on the host in float64 (a list with one
    ``Moments`` of arrays [Q] per value)."""
    total = queries[0].shape[0] * r
    rest = (tuple(jnp.asarray(x) for x in queries), jnp.asarray(seat_policy), options)

    def chunk(c: Chunk, args: tuple[Any, ...]) -> Any:
        q, values = _score_chunk(env, who, size, *args, *rest)  # (the per-hand program)
        return _query_moments(queries[0].shape[0], q, values, jnp.int32(c.hands))

    def add(pooled: list[Moments] | None, out: tuple[Moments, ...], c: Chunk) -> list[Moments]:
        new = [Moments(*m) for m in host_arrays(out)]
        old: list[Moments | None] = list(pooled or []) or [None] * len(new)
        return [merge_moments(a, m) for a, m in zip(old, new, strict=True)]

    def calls(done: int) -> Iterator[tuple[Any, Chunk]]:
        return _calls(env, key, size, total, r, chunk, done)

    return Loop(calls, add, total, facts)


def _array(name: str, value: ArrayLike, what: str) -> np.ndarray:
    """``value`` as a numpy array, or ``ValueError`` naming it (numpy's words for ragged lists
    name neither the argument nor the fix)."""
    try:
        return np.asarray(value)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{name} must be a rectangular array ({what}), got {value!r}") from e


def _one_or_each(name: str, value: ArrayLike, what: str, q: int) -> np.ndarray:
    """``value`` ([Q] per query, or one for every query) as an array [Q], or ``ValueError``
    naming it and the count of queries (numpy's broadcasting words name neither)."""
    a = _array(name, value, f"{what}, or one a hand")
    if a.ndim > 1 or a.size not in (1, q):
        raise ValueError(f"{name} must be {what} or one a hand ({q}), got shape {a.shape}")
    return np.broadcast_to(a.reshape(-1), (q,))


def check_queries(
    env: Env[S, R], hands: ArrayLike, turnup: ArrayLike | None, seat: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The queries as int32 arrays [Q, 5], [Q], [Q], or ``ValueError`` naming the problem: the
    checks every game shares here, the card ids and the turn-up by the game
    (``HandScoring.check_turnup``)."""
    h = _array("hands", hands, "one list of 5 card ids a hand")
    if h.ndim == 1:
        h = h[None]
    if h.ndim != 2 or h.shape[1] != 5 or h.shape[0] < 1:
        raise ValueError(f"hands must have shape (Q, 5), got {np.shape(hands)}")
    if not np.issubdtype(h.dtype, np.integer):
        raise ValueError(f"hands must hold integer card ids, got dtype {h.dtype}")
    q, n = h.shape[0], env.num_players
    s = _one_or_each("seat", seat, "one seat", q)
    if not np.issubdtype(s.dtype, np.integer):
        raise ValueError(f"seat must be integers, got {seat!r}")
    if ((s < 0) | (s >= n)).any():
        raise ValueError(f"seat must be 0..{n - 1} (dealer = seat 0), got {s.tolist()}")
    if turnup is not None:
        _one_or_each("turnup", turnup, "one card", q)  # (the game reads it: check_turnup)
    t = env.capability(caps.HandScoring, "score_hands").check_turnup(env, h, turnup)
    for i in range(q):
        row = h[i].tolist()
        if len(set(row)) != 5:
            raise ValueError(f"query {i}: duplicate cards in the hand {row}")
    return h.astype(np.int32), t.astype(np.int32), s.astype(np.int32)


def _table(num_players: int | None, rules: Any) -> Env[Any, Any]:  # a game found at run time
    """The env of ``num_players`` and ``rules`` (a registered game's rules object).  Without
    either ``env`` or ``rules`` the table was Spoil Five's; that default is deprecated (a tool
    names no game), and goes with the next release."""
    if rules is None:
        deprecated(
            "score_hands without env= or rules= is deprecated: pass the table, e.g. "
            "env=sf.make('spoil_five', 5)",
            stacklevel=3,
        )
        return make("spoil_five", num_players)
    for game_id in available_games():
        cls = env_class(game_id)
        if isinstance(rules, cls.rules_type):
            return cls(num_players, rules)
    raise ValueError(f"rules must be the rules of a registered game, got {type(rules).__name__}")


__all__ = ["query_stats", "score_hands"]
