"""Rollouts for the Forty-Five family: many independent hands, or whole games to the target,
inside jitted, vmapped loops (the counterpart of ``spoilfive_jax.rollout`` / ``play_sessions``).

A policy is a built-in name (``"random"``, ``"greedy"``, ``"heuristic"``:
``FortyFive.policy_names``) or any jittable ``policy(key, state, player) -> action`` on ONE
hand's ``forty_five.State``, the same contract as Spoil Five's policies; a list gives one
policy per seat.  ``sf.play_sessions(key, env, policy, num_games, max_hands=...)`` plays whole
games too (the ``Sessions`` capability).
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core.env import PolicyFn
from spoilfive_jax.core.validate import as_key, positive_int
from spoilfive_jax.games.forty_five.game import State, next_hand
from spoilfive_jax.games.forty_five.policies import random_policy
from spoilfive_jax.games.forty_five.rules import FortyFiveRules
from spoilfive_jax.tools.policies import Lineup, PolicySpec, lineup, play_out

if TYPE_CHECKING:  # the type only: env.py declares this module as its game's Sessions
    from spoilfive_jax.games.forty_five.env import FortyFive


def _lineup(env: FortyFive, policy: PolicySpec) -> tuple[tuple[PolicyFn, ...], np.ndarray]:
    """(distinct policies, int32[N] index of each seat's policy); names through
    ``env.builtin_policy``."""
    who, seat_policy = lineup(env, policy)
    return who.policies, seat_policy


def _play_hand(
    env: FortyFive,
    policies: tuple[PolicyFn, ...],
    seat_policy: jax.Array,
    key: jax.Array,
    state: State,
) -> State:
    """Play one hand to its end (``tools.policies.play_out``)."""
    return play_out(env, policies, seat_policy, key, state)[0]


# ------------------------------------------------------------------------ whole games


@dataclasses.dataclass(frozen=True)
class GameResult:
    """G games at one table (host numpy arrays; T teams, at most H hands a game)."""

    scores: np.ndarray  # int32[G, T]: final game scores
    winner: np.ndarray  # int32[G]: winning team, -1 if the game was not over after H hands
    hands_played: np.ndarray  # int32[G]
    decisions: np.ndarray  # int32[G]
    points_by_hand: np.ndarray  # int32[G, H, T]: each hand's points (0 after the game ended)
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        g, t = self.scores.shape
        done = self.winner >= 0
        return {
            "games": int(g),
            "finished": float(done.mean()),
            "win_rate": np.bincount(self.winner[done], minlength=t) / max(int(done.sum()), 1),
            "mean_hands": float(self.hands_played.mean()),
            "mean_decisions": float(self.decisions.mean()),
            "games_per_s": g / self.seconds if self.seconds else float("nan"),
        }


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3))
def _games_chunk(
    env: FortyFive,
    policies: tuple[PolicyFn, ...],
    size: int,
    max_hands: int,
    key: jax.Array,
    seat_policy: jax.Array,
) -> tuple[jax.Array, ...]:
    def one_game(k: jax.Array) -> tuple[jax.Array, ...]:
        state = env.init(jax.random.fold_in(k, 0))

        def hand(carry: tuple[State, jax.Array, jax.Array], h: jax.Array) -> Any:
            state, played, decisions = carry
            live = ~state.terminated  # a finished game's last hand stands
            hk = jax.random.fold_in(k, h + 1)
            state = _play_hand(env, policies, seat_policy, jax.random.fold_in(hk, 0), state)
            points = jnp.where(live, state.hand_points, 0)
            played = played + live.astype(jnp.int32)
            decisions = decisions + jnp.where(live, state._step_count, 0)
            fresh = next_hand(jax.random.fold_in(hk, 1), state, env.rules)
            go_on = ~state.game_over
            state = jax.tree.map(lambda f, s: jnp.where(go_on, f, s), fresh, state)
            return (state, played, decisions), points

        zero = jnp.int32(0)
        (state, played, decisions), points = jax.lax.scan(
            hand, (state, zero, zero), jnp.arange(max_hands)
        )
        winner = jnp.where(state.game_over, state.game_winner, -1)
        return state.scores, winner, played, decisions, points

    return jax.vmap(one_game)(jax.random.split(key, size))


def play_games(
    key: jax.Array | int,
    env: FortyFive,
    policy: PolicySpec = "random",
    num_games: int = 1000,
    max_hands: int = 30,
    batch_size: int = 4096,
) -> GameResult:
    """Play ``num_games`` games to the target (at most ``max_hands`` hands each; seat 0 deals
    the first hand, the deal passes left).  Same key -> same games for the same batch size."""
    if not isinstance(getattr(env, "rules", None), FortyFiveRules):
        raise ValueError(f"env must be a FortyFive, got {type(env).__name__}")
    num_games = positive_int("num_games", num_games)  # type: ignore[assignment]
    who, seat_policy = lineup(env, policy)
    return games(key, env, who, seat_policy, num_games, max_hands, batch_size)


def games(
    key: jax.Array | int,
    env: FortyFive,
    who: Lineup,
    seat_policy: np.ndarray,
    num_games: int,
    max_hands: int = 30,
    batch_size: int = 4096,
) -> GameResult:
    """``play_games`` with the policies resolved (the ``Sessions`` capability); ``key`` a PRNG
    key or an int seed (anything else: a ``ValueError`` naming it, ``as_key``)."""
    key = as_key(key)
    max_hands = positive_int("max_hands", max_hands)  # type: ignore[assignment]
    batch_size = positive_int("batch_size", batch_size)  # type: ignore[assignment]
    size = min(int(batch_size), int(num_games))
    start = time.perf_counter()
    parts = []
    for i in range(-(-num_games // size)):
        parts.append(
            _games_chunk(
                env,
                who.policies,
                size,
                int(max_hands),
                jax.random.fold_in(key, i),
                jnp.asarray(seat_policy),
            )
        )
    out = [np.concatenate([np.asarray(p[j]) for p in parts])[:num_games] for j in range(5)]
    scores, winner, played, decisions, points = out
    return GameResult(
        scores=scores,
        winner=winner,
        hands_played=played,
        decisions=decisions,
        points_by_hand=points,
        seconds=time.perf_counter() - start,
    )


# ------------------------------------------------------------------------ single hands


@dataclasses.dataclass(frozen=True)
class HandResult:
    """H independent hands (host numpy arrays)."""

    hand_points: np.ndarray  # int32[H, T]: points each team scored
    tricks_won: np.ndarray  # int32[H, N]
    decisions: np.ndarray  # int32[H]
    bid: np.ndarray  # int32[H]: the winning bid (Auction), else 0
    bidder: np.ndarray  # int32[H]: the bidder's seat (Auction), else -1
    jinker: np.ndarray  # int32[H]: seat that announced a jink, -1 if none
    robbed: np.ndarray  # bool[H]
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        h = self.decisions.shape[0]
        bidder_team = self.bidder % self.hand_points.shape[1]
        in_auction = self.bidder >= 0
        made = self.hand_points[np.arange(h), bidder_team] >= 0
        return {
            "hands": int(h),
            "mean_points": self.hand_points.mean(0),
            "mean_decisions": float(self.decisions.mean()),
            "rob_rate": float(self.robbed.mean()),
            "jink_rate": float((self.jinker >= 0).mean()),
            "bid_made_rate": float(made[in_auction].mean()) if in_auction.any() else float("nan"),
            "hands_per_s": h / self.seconds if self.seconds else float("nan"),
        }


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _hands_chunk(
    env: FortyFive,
    policies: tuple[PolicyFn, ...],
    size: int,
    key: jax.Array,
    dealer: jax.Array,
    seat_policy: jax.Array,
) -> tuple[jax.Array, ...]:
    def one(k: jax.Array) -> tuple[jax.Array, ...]:
        state = env.init(jax.random.fold_in(k, 0), dealer)
        state = _play_hand(env, policies, seat_policy, jax.random.fold_in(k, 1), state)
        return (
            state.hand_points,
            state.tricks_won,
            state._step_count,
            state.bid,
            state.bidder,
            state.jinker,
            state.robbed,
        )

    return jax.vmap(one)(jax.random.split(key, size))


def rollout_hands(
    key: jax.Array | int,
    env: FortyFive,
    policy: PolicySpec = "random",
    num_hands: int = 100_000,
    batch_size: int = 16384,
    dealer: int = 0,
) -> HandResult:
    """Play ``num_hands`` independent hands from a new game (scores zero)."""
    num_hands = positive_int("num_hands", num_hands)  # type: ignore[assignment]
    batch_size = positive_int("batch_size", batch_size)  # type: ignore[assignment]
    if not 0 <= int(dealer) < env.num_players:
        raise ValueError(f"dealer must be 0..{env.num_players - 1}, got {dealer}")
    key = jax.random.PRNGKey(key) if isinstance(key, int) else key
    policies, seat_policy = _lineup(env, policy)
    size = min(int(batch_size), int(num_hands))
    start = time.perf_counter()
    parts = [
        _hands_chunk(
            env,
            policies,
            size,
            jax.random.fold_in(key, i),
            jnp.int32(dealer),
            jnp.asarray(seat_policy),
        )
        for i in range(-(-num_hands // size))
    ]
    points, tricks, decisions, bid, bidder, jinker, robbed = (
        np.concatenate([np.asarray(p[j]) for p in parts])[:num_hands] for j in range(7)
    )
    return HandResult(
        hand_points=points,
        tricks_won=tricks,
        decisions=decisions,
        bid=bid,
        bidder=bidder,
        jinker=jinker,
        robbed=robbed,
        seconds=time.perf_counter() - start,
    )


__all__ = [
    "GameResult",
    "HandResult",
    "play_games",
    "random_policy",
    "rollout_hands",
]


def play_sessions(
    env: FortyFive, key: jax.Array, who: Lineup, seat_policy: np.ndarray, num: int, **options: Any
) -> GameResult:
    """The ``Sessions`` capability: ``num`` whole games to the target (options ``max_hands``
    (30), ``batch_size`` (4096); another is a ``ValueError`` naming it)."""
    unknown = set(options) - {"max_hands", "batch_size"}
    if unknown:
        raise ValueError(
            f"{env.id} games take max_hands and batch_size, not {', '.join(sorted(unknown))}"
        )
    return games(key, env, who, seat_policy, num, **options)
