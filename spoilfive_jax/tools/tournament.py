"""Tournaments: how policies compare (``evaluate``), seats rotated over common deals.

Any game: the unit is the game's (``Rollouts.score_unit``: chips in Spoil Five, points in the
Forty-Five family) and a hand "won" is the game's (``Rollouts.hands_won``).  This module imports no
game.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.deprecation import deprecated
from spoilfive_jax.core.env import Env, R, S
from spoilfive_jax.core.stats import (
    Moments,
    device_moments,
    host_moments,
    merge_moments,
    moment_mean,
    moment_std,
    pool,
)
from spoilfive_jax.core.validate import check_bool, positive_int
from spoilfive_jax.tools.checkpoint import (
    CheckpointSpec,
    Loop,
    as_checkpoint,
    policy_facts,
    run_chunks,
    run_facts,
)
from spoilfive_jax.tools.chunks import Chunk, hand_chunks, run_keys
from spoilfive_jax.tools.policies import PolicySpec, lineup, resolve_one
from spoilfive_jax.tools.programs import bound_compiled_programs
from spoilfive_jax.tools.rollout import (
    as_key,
    batch_size_for,
    calls_of,
    check_env,
    play_chunk,
    rollout,
)
from spoilfive_jax.tools.sharding import host_arrays, one_at_a_time, replicated


@dataclasses.dataclass(frozen=True)
class TournamentResult:
    """Mean reward per hand of each policy, seats rotated over the same deals.

    ``mean_reward`` is in the game's ``unit`` (``Rollouts.score_unit``: chips in Spoil Five,
    the seat's team's points in the Forty-Five family); ``win_rate`` is the share of hands the
    game counts as won (``Rollouts.hands_won``).  ``mean_chips`` and ``mean_points`` are the
    old names of ``mean_reward``, kept one release with a ``DeprecationWarning``.
    """

    names: tuple[str, ...]
    mean_reward: np.ndarray  # float64[P]: reward per hand per seat held, in ``unit``
    ci95: np.ndarray  # float64[P]: half-width of the 95% confidence interval
    win_rate: np.ndarray  # float64[P]: share of hands won per seat occupied
    hands: int  # deals played (each under every rotation)
    rotations: int
    unit: str = "points"  # the game's ``Rollouts.score_unit``

    @property
    def mean_chips(self) -> np.ndarray:
        """Deprecated: ``mean_reward``."""
        deprecated("mean_chips is deprecated: use mean_reward")
        return self.mean_reward

    @property
    def mean_points(self) -> np.ndarray:
        """Deprecated: ``mean_reward``."""
        deprecated("mean_points is deprecated: use mean_reward")
        return self.mean_reward

    def table(self) -> str:
        width = max(8, *(len(x) for x in self.names))
        head = f"{self.unit}/hand"
        lines = [
            f"{'policy':<{width}}  {head:>10}  {'95% CI':>9}  {'win %':>6}",
        ]
        order = np.argsort(-self.mean_reward)
        for i in order:
            lines.append(
                f"{self.names[i]:<{width}}  {self.mean_reward[i]:+10.4f}  ±{self.ci95[i]:8.4f}"
                f"  {100 * self.win_rate[i]:6.2f}"
            )
        lines.append(f"({self.hands} deals x {self.rotations} seatings)")
        return "\n".join(lines)


def evaluate(
    key: jax.Array | int,
    env: Env[S, R],
    policies: dict[str, PolicySpec] | list[PolicySpec],
    num_hands: int = 100_000,
    batch_size: int | None = None,
    *,
    per_hand: bool = True,
    progress: Callable[[int, int], object] | None = None,
    checkpoint: CheckpointSpec = None,
    should_stop: Callable[[], bool] | None = None,
) -> TournamentResult:
    """Play ``policies`` against each other: seat ``i`` plays policy ``(i + r) % P`` in seating
    ``r``, for lcm(N, P) seatings, each on the same ``num_hands`` deals (common random numbers),
    so every policy sits in every seat equally often.  The mean chips per hand of a policy
    average the seats it holds; the 95% CI treats each deal (all its seatings) as one sample.

    With a game of the Forty-Five family the unit is the hand's points (``unit="points"``): a
    seat scores its team's points, so a policy holding partner seats counts the team's points
    once per seat and the mean is unchanged.  Partners may be the same policy: at 4 players with
    2 policies, seat ``i`` plays policy ``(i + r) % 2``, so each policy is a whole partnership
    (seats 0 and 2, or 1 and 3) and the two seatings swap them; with 3 policies at 4 players a
    partnership can mix two policies.  ``win_rate``: hands in which the seat's team outscored
    every other team (Spoil Five: the seat took the pot).

    ``per_hand``: True plays each seating as a whole ``rollout`` and keeps its hands on the host
    until the seatings are combined (memory grows with ``num_hands``); False plays the deals
    chunk by chunk, every seating of a chunk's deals on the device, reduced there to each
    policy's moments and wins, so memory stays fixed for any ``num_hands``.  The result is the
    same ``TournamentResult``: win rates exactly, means and CIs to float32 rounding (about
    1e-6 relative).

    ``progress(done, total)``: deals done (each under every seating), called before the first
    call and after each.  A streamed run (``per_hand=False``) also takes ``checkpoint`` (a
    directory or a ``tools.checkpoint.Checkpoint``: resumed where it stopped, with the result
    of a run never stopped, bit for bit) and ``should_stop()``, asked after every call: True
    ends the run there, with the result of the deals done so far (``hands`` fewer).
    """
    bound_compiled_programs()  # (tools.programs: a long-lived process stays under the limit)
    check_env(env)
    num_hands = positive_int("num_hands", num_hands)  # type: ignore[assignment]
    per_hand = check_bool("per_hand", per_hand)
    ckpt = as_checkpoint(checkpoint)
    if per_hand and (ckpt is not None or should_stop is not None):
        raise ValueError("checkpoint and should_stop need per_hand=False (a streamed run)")
    names, specs = _entrants(env, policies)
    n, p_count = env.num_players, len(specs)
    rotations = math.lcm(n, p_count)
    assigns = [[(i + r) % p_count for i in range(n)] for r in range(rotations)]
    seats = np.zeros(p_count, np.int64)  # seats each policy holds at a deal, over the seatings
    for assign in assigns:
        seats += np.bincount(assign, minlength=p_count)
    seatings = [[specs[a] for a in x] for x in assigns]
    if per_hand:
        chips, wins = _per_hand(key, env, seatings, assigns, seats, num_hands, batch_size, progress)
    else:
        loop = _streamed(as_key(key), env, seatings, assigns, seats, num_hands, batch_size)
        end = run_chunks(loop, checkpoint=ckpt, progress=progress, stop=should_stop)
        (chips, wins), num_hands = end.state, end.done
    return TournamentResult(
        tuple(names),
        moment_mean(chips),
        # (one deal: no spread to estimate, nan as numpy's ddof=1 gives)
        np.where(chips.count > 1, 1.96 * moment_std(chips) / np.sqrt(chips.count), np.nan),
        wins / (seats * num_hands),
        num_hands,
        rotations,
        env.capability(caps.Rollouts).score_unit(env),
    )


def _entrants(
    env: Env[S, R], policies: dict[str, PolicySpec] | list[PolicySpec]
) -> tuple[list[str], list[PolicySpec]]:
    """The policies' names and specs; ``ValueError`` for fewer than two, names that repeat or
    a bad policy (before anything is played)."""
    if isinstance(policies, dict):
        names, specs = list(policies.keys()), list(policies.values())
    else:
        specs = list(policies)
        names = [
            p if isinstance(p, str) else getattr(p, "__name__", f"policy{i}")
            for i, p in enumerate(specs)
        ]
    if len(specs) < 2:
        raise ValueError("evaluate needs at least two policies")
    if len(set(names)) != len(names):
        raise ValueError(f"policy names must be distinct, got {names}")
    for s in specs:
        resolve_one(env, s)
    return names, specs


def _per_hand(
    key: Any,
    env: Env[S, R],
    seatings: list[list[Any]],
    assigns: list[list[int]],
    seats: np.ndarray,
    num_hands: int,
    batch_size: int | None,
    progress: Callable[[int, int], object] | None = None,
) -> tuple[Moments, np.ndarray]:
    """Each seating as a whole rollout: (the moments of each policy's chips per deal, float64
    over the deals at once, and its hands won).  ``progress``: deals done, counted as the
    seatings' share (every seating plays every deal)."""
    per_deal = np.zeros((num_hands, len(seats)))
    wins = np.zeros(len(seats))
    count = len(seatings)

    def seen(j: int) -> Callable[[int, int], Any] | None:
        if progress is None:
            return None
        return lambda done, total: progress((j * total + done) // count, total)

    for j, (seating, assign) in enumerate(zip(seatings, assigns, strict=True)):
        out = rollout(key, env, seating, num_hands, batch_size, seen(j))
        won = env.capability(caps.Rollouts).hands_won(env, out)
        for i, a in enumerate(assign):
            per_deal[:, a] += out.rewards[:, i]
            wins[a] += won[:, i].sum()
    return host_moments(per_deal / seats), wins


@one_at_a_time
@functools.partial(jax.jit, static_argnums=(0,))
def _seating_part(
    env: Env[S, R], records: dict[str, jax.Array], held: jax.Array, count: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """One seating of a call's deals (``held`` float32[N, P]: 1 where seat i plays policy a):
    each policy's reward sum per deal float32[H, P] and its hands won among the first
    ``count`` int32[P]."""
    # A sum of products, not a matrix product: accelerators may round float32 dots.
    chips = (records["rewards"][:, :, None] * held[None]).sum(1)
    won = env.capability(caps.Rollouts).hands_won(env, types.SimpleNamespace(**records))
    valid = jnp.arange(chips.shape[0]) < count
    wins = jnp.where(valid[:, None, None] & (held[None] > 0), won[:, :, None], False)
    return chips, replicated(wins.sum((0, 1), dtype=jnp.int32))


@one_at_a_time
@jax.jit
def _seatings_total(parts: list[tuple[jax.Array, jax.Array]]) -> tuple[jax.Array, jax.Array]:
    """The seatings' ``_seating_part``s summed, in seating order (one program, not an eager
    add for each: ``tools.sharding.one_at_a_time``)."""
    per_deal = functools.reduce(jnp.add, [x[0] for x in parts])
    return per_deal, functools.reduce(jnp.add, [x[1] for x in parts])


@one_at_a_time
@functools.partial(jax.jit, static_argnums=(0,))
def _deal_moments(k: int, per_deal: jax.Array, seats: jax.Array, count: jax.Array) -> Moments:
    """Per batch (``k`` of them), the float32 moments of each policy's chips per deal of the
    first ``count`` deals."""
    chips = (per_deal / seats).reshape(k, -1, per_deal.shape[1])
    valid = jnp.arange(per_deal.shape[0], dtype=jnp.int32).reshape(k, -1) < count
    return replicated(jax.vmap(device_moments)(chips, valid))  # type: ignore[no-any-return]


def _streamed(
    root: jax.Array,
    env: Env[S, R],
    seatings: list[list[Any]],
    assigns: list[list[int]],
    seats: np.ndarray,
    num_hands: int,
    batch_size: int | None,
) -> Loop:
    """The streamed run (``tools.checkpoint.run_chunks``): the deals chunk by chunk, every
    seating of a chunk's deals summed on the device, then reduced to moments there and pooled
    on the host (the state: each policy's ``Moments`` and its hands won, int64[P])."""
    b = batch_size_for(batch_size, num_hands)
    k, p_count = calls_of(b), len(seats)
    plays, facts = [], []
    for seating, assign in zip(seatings, assigns, strict=True):
        who, seat_policy = lineup(env, seating)
        held = np.eye(p_count, dtype=np.float32)[assign]
        plays.append((who, jnp.asarray(seat_policy), jnp.asarray(held)))
        facts.append(policy_facts(who.names, who.policies, seat_policy))
    opts = {x: jnp.int32(v) for x, v in env.capability(caps.Rollouts).deal_options(env).items()}

    def calls(done: int) -> Iterator[tuple[Any, Chunk]]:
        keys, epoch = None, -1
        for c in hand_chunks(done, num_hands, k * b):
            if c.epoch != epoch:
                keys, epoch = run_keys(env, root, c.epoch), c.epoch
            count = jnp.int32(c.hands)
            args = (keys, jnp.uint32(c.first), count, opts)
            parts = [  # each seating on the rollouts' own program, then reduced
                _seating_part(env, play_chunk(env, who, (k, b), *args, sp), held, count)
                for who, sp, held in plays
            ]
            per_deal, won = _seatings_total(parts)
            yield (_deal_moments(k, per_deal, jnp.asarray(seats, jnp.float32), count), won), c

    def add(
        state: tuple[Moments, np.ndarray] | None, out: tuple[Moments, jax.Array], c: Chunk
    ) -> tuple[Moments, np.ndarray]:
        moments, wins = state if state is not None else (None, np.zeros(p_count, np.int64))
        m, won = host_arrays(out)
        return merge_moments(moments, pool(Moments(*m))), wins + won

    run = run_facts("evaluate", env, root, seatings=facts, deals=num_hands, batch=b)
    return Loop(calls, add, num_hands, run)


__all__ = ["TournamentResult", "evaluate"]
