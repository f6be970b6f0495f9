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
from spoilfive_jax.core.stats import array_module, masked_total, no_per_hand
from spoilfive_jax.core.validate import as_key, check_bool, positive_int
from spoilfive_jax.games.forty_five.game import State, next_hand
from spoilfive_jax.games.forty_five.rules import FortyFiveRules
from spoilfive_jax.tools.policies import Lineup, PolicySpec, lineup, play_out
from spoilfive_jax.tools.rollout import pipelined
from spoilfive_jax.tools.sharding import (
    host_arrays,
    one_at_a_time,
    replicated,
    shard_batch,
)

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
        totals = game_totals(self.winner, t, self.hands_played, self.decisions)
        return game_summary(totals, int(g), self.seconds)


PER_GAME = ("scores", "winner", "hands_played", "decisions", "points_by_hand")


@dataclasses.dataclass(frozen=True)
class GameSummary:
    """Games played with ``per_hand=False``: the totals of the summary alone (``summary()`` is
    ``GameResult.summary()``); a per-game field raises ``core.stats.NoPerHand``."""

    totals: dict[str, np.ndarray]
    games: int
    seconds: float = 0.0

    def __getattr__(self, name: str) -> Any:
        if name in PER_GAME:
            raise no_per_hand("game run", name)
        raise AttributeError(name)

    def summary(self) -> dict[str, Any]:
        return game_summary(self.totals, self.games, self.seconds)


def game_totals(
    winner: Any, num_teams: int, played: Any, decisions: Any, valid: Any = None
) -> dict[str, Any]:
    """Host or jittable: what the summary of games needs, summed over the games ``valid``
    marks (None: all): games finished, wins per team, hands and decisions."""
    xp = array_module(winner)
    done = winner >= 0
    parts = {
        "finished": done,
        "wins": (winner[:, None] == xp.arange(num_teams)) & done[:, None],
        "hands": played,
        "decisions": decisions,
    }
    return {k: masked_total(v, valid) for k, v in parts.items()}


def game_summary(totals: dict[str, Any], games: int, seconds: float) -> dict[str, Any]:
    """The summary of ``games`` games from their totals (``game_totals``)."""
    finished = int(totals["finished"])
    return {
        "games": games,
        "finished": float(finished / games),
        "win_rate": totals["wins"] / max(finished, 1),
        "mean_hands": float(totals["hands"] / games),
        "mean_decisions": float(totals["decisions"] / games),
        "games_per_s": games / seconds if seconds else float("nan"),
    }


@one_at_a_time
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

    return jax.vmap(one_game)(shard_batch(jax.random.split(key, size)))


def play_games(
    key: jax.Array | int,
    env: FortyFive,
    policy: PolicySpec = "random",
    num_games: int = 1000,
    max_hands: int = 30,
    batch_size: int = 4096,
    *,
    per_hand: bool = True,
) -> GameResult | GameSummary:
    """Play ``num_games`` games to the target (at most ``max_hands`` hands each; seat 0 deals
    the first hand, the deal passes left).  Same key -> same games for the same batch size.
    ``per_hand=False``: only the summary's totals are kept (a ``GameSummary``)."""
    if not isinstance(getattr(env, "rules", None), FortyFiveRules):
        raise ValueError(f"env must be a FortyFive, got {type(env).__name__}")
    num_games = positive_int("num_games", num_games)  # type: ignore[assignment]
    who, seat_policy = lineup(env, policy)
    per_hand = check_bool("per_hand", per_hand)
    return games(key, env, who, seat_policy, num_games, max_hands, batch_size, per_hand)


@one_at_a_time
@functools.partial(jax.jit, static_argnums=(1,))
def _totals(out: tuple[jax.Array, ...], num_teams: int, count: jax.Array) -> dict[str, jax.Array]:
    """A chunk's first ``count`` games (``_games_chunk``'s outputs, still on the device) reduced
    to their totals."""
    _, winner, played, decisions, _ = out
    valid = jnp.arange(winner.shape[0]) < count
    return replicated(game_totals(winner, num_teams, played, decisions, valid))  # type: ignore[no-any-return]


def games(
    key: jax.Array | int,
    env: FortyFive,
    who: Lineup,
    seat_policy: np.ndarray,
    num_games: int,
    max_hands: int = 30,
    batch_size: int = 4096,
    per_hand: bool = True,
) -> GameResult | GameSummary:
    """``play_games`` with the policies resolved (the ``Sessions`` capability).  Chunk ``i``
    of ``batch_size`` games is keyed ``fold_in(key, i)``: the games depend on the batch size.
    ``per_hand=False``: chunk by chunk, only the summary's totals kept (a ``GameSummary``).
    ``key``: a PRNG key or an int seed (anything else: a ``ValueError`` naming it, ``as_key``)."""
    key = as_key(key)
    max_hands = positive_int("max_hands", max_hands)  # type: ignore[assignment]
    batch_size = positive_int("batch_size", batch_size)  # type: ignore[assignment]
    size = min(int(batch_size), int(num_games))
    start = time.perf_counter()
    chunks = range(-(-num_games // size))
    args = (who.policies, size, int(max_hands))
    if not per_hand:
        return _game_totals(key, env, args, seat_policy, num_games, start)
    parts = []
    for i in chunks:
        parts.append(_games_chunk(env, *args, jax.random.fold_in(key, i), jnp.asarray(seat_policy)))
    host = [host_arrays(p) for p in parts]
    out = [np.concatenate([p[j] for p in host])[:num_games] for j in range(5)]
    scores, winner, played, decisions, points = out
    return GameResult(
        scores=scores,
        winner=winner,
        hands_played=played,
        decisions=decisions,
        points_by_hand=points,
        seconds=time.perf_counter() - start,
    )


def _game_totals(
    key: jax.Array,
    env: FortyFive,
    args: tuple[Any, int, int],
    seat_policy: np.ndarray,
    num_games: int,
    start: float,
) -> GameSummary:
    """``games`` with ``per_hand=False``: the chunks' totals, summed on the host."""
    size = args[1]
    totals: dict[str, Any] = {}

    def calls() -> Any:
        for i in range(-(-num_games // size)):
            count = jnp.int32(min(size, num_games - i * size))
            k = jax.random.fold_in(key, i)
            out = _games_chunk(env, *args, k, jnp.asarray(seat_policy))  # (the per-game program)
            yield _totals(out, out[0].shape[1], count), i  # (scores [G, T]: T teams)

    def consume(out: dict[str, jax.Array], i: int) -> None:
        for name, v in host_arrays(out).items():
            totals[name] = totals.get(name, 0) + v.astype(np.int64)

    pipelined(calls(), consume)
    return GameSummary(totals, num_games, seconds=time.perf_counter() - start)


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


@one_at_a_time
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

    return jax.vmap(one)(shard_batch(jax.random.split(key, size)))


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
        np.concatenate([p[j] for p in host_arrays(parts)])[:num_hands] for j in range(7)
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
    "GameSummary",
    "HandResult",
    "play_games",
    "rollout_hands",
]


def play_sessions(
    env: FortyFive,
    key: jax.Array,
    who: Lineup,
    seat_policy: np.ndarray,
    num: int,
    *,
    per_hand: bool = True,
    **options: Any,
) -> GameResult | GameSummary:
    """The ``Sessions`` capability: ``num`` whole games to the target (options ``max_hands``
    (30), ``batch_size`` (4096); another is a ``ValueError`` naming it)."""
    unknown = set(options) - {"max_hands", "batch_size"}
    if unknown:
        raise ValueError(
            f"{env.id} games take max_hands and batch_size, not {', '.join(sorted(unknown))}"
        )
    return games(key, env, who, seat_policy, num, per_hand=per_hand, **options)
