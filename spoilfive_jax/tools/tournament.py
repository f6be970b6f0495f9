"""Tournaments: how policies compare (``evaluate``), seats rotated over common deals.

Any game: the unit is the game's (``Rollouts.score_unit``: chips in Spoil Five, points in the
Forty-Five family) and a hand "won" is the game's (``Rollouts.hands_won``).  This module imports no
game.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any

import jax
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env
from spoilfive_jax.core.validate import positive_int
from spoilfive_jax.tools.policies import PolicySpec, resolve_one
from spoilfive_jax.tools.rollout import check_env, rollout


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
        warnings.warn("mean_chips is deprecated: use mean_reward", DeprecationWarning, 2)
        return self.mean_reward

    @property
    def mean_points(self) -> np.ndarray:
        """Deprecated: ``mean_reward``."""
        warnings.warn("mean_points is deprecated: use mean_reward", DeprecationWarning, 2)
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
    env: Env[Any, Any],
    policies: dict[str, PolicySpec] | list[PolicySpec],
    num_hands: int = 100_000,
    batch_size: int | None = None,
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
    """
    check_env(env)
    num_hands = positive_int("num_hands", num_hands)  # type: ignore[assignment]
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
    for s in specs:  # refuse a bad policy before playing anything
        resolve_one(env, s)
    n, p_count = env.num_players, len(specs)
    rotations = math.lcm(n, p_count)
    per_deal = np.zeros((num_hands, p_count))
    seats_held = np.zeros((num_hands, p_count))
    wins = np.zeros(p_count)
    for r in range(rotations):
        assign = [(i + r) % p_count for i in range(n)]
        seating: list[Any] = [specs[a] for a in assign]
        out = rollout(key, env, seating, num_hands, batch_size)
        won = env.capability(caps.Rollouts).hands_won(env, out)
        for i, a in enumerate(assign):
            per_deal[:, a] += out.rewards[:, i]
            seats_held[:, a] += 1
            wins[a] += won[:, i].sum()
    present = seats_held > 0
    chips = np.where(present, per_deal / np.maximum(seats_held, 1), np.nan)
    mean = np.nanmean(chips, axis=0)
    count = present.sum(0)
    ci = 1.96 * np.nanstd(chips, axis=0, ddof=1) / np.sqrt(np.maximum(count, 1))
    win_rate = wins / seats_held.sum(0)
    return TournamentResult(
        tuple(names),
        mean,
        ci,
        win_rate,
        num_hands,
        rotations,
        env.capability(caps.Rollouts).score_unit(env),
    )


__all__ = ["TournamentResult", "evaluate"]
