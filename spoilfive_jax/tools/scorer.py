"""The batch scorer: what a hand is worth (``score_hands``) and how policies compare
(``evaluate``), by Monte Carlo over whole hands on the rollout engine."""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.spoil_five.fast as fast
from spoilfive_jax.core.cards import NUM_CARDS, card_str
from spoilfive_jax.core.validate import MAX_PLAYERS, MIN_PLAYERS
from spoilfive_jax.games.forty_five.env import FortyFive
from spoilfive_jax.games.forty_five.env import card_text as family_card_text
from spoilfive_jax.games.forty_five.rules import FortyFiveRules
from spoilfive_jax.games.spoil_five.env import SpoilFive
from spoilfive_jax.games.spoil_five.fast import I32, U32, Outcome
from spoilfive_jax.games.spoil_five.policies import PolicySpec, resolve
from spoilfive_jax.games.spoil_five.rules import Rules
from spoilfive_jax.tools.rollout import (
    Plan,
    _seed_of,
    _shard_batch,
    batch_for,
    default_batch_size,
    rollout,
)


@dataclasses.dataclass(frozen=True)
class HandScores:
    """Monte Carlo estimates for Q query hands (float32[Q] each) and their standard errors."""

    win_prob: np.ndarray  # the seat takes the pot
    spoil_prob: np.ndarray  # nobody takes the pot (a spoil or a failed jink)
    expected_chips: np.ndarray  # mean net chips of the seat for the hand
    win_prob_se: np.ndarray
    spoil_prob_se: np.ndarray
    expected_chips_se: np.ndarray
    num_rollouts: int

    def table(self, hands: Any = None) -> str:
        """A text table, one row per query (cards shown when ``hands`` is given)."""
        lines = [f"{'hand':<18} {'win %':>13} {'spoil %':>13} {'chips':>15}"]
        for q in range(self.win_prob.shape[0]):
            label = " ".join(card_str(int(c)) for c in hands[q]) if hands is not None else str(q)
            lines.append(
                f"{label:<18} {100 * self.win_prob[q]:6.2f} ± {100 * self.win_prob_se[q]:4.2f}"
                f" {100 * self.spoil_prob[q]:6.2f} ± {100 * self.spoil_prob_se[q]:4.2f}"
                f" {self.expected_chips[q]:+7.3f} ± {self.expected_chips_se[q]:5.3f}"
            )
        return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class FamilyScores:
    """``score_hands`` for the Forty-Five family: Monte Carlo estimates for Q query hands
    (float32[Q] each) and their standard errors.  Points are those of the query seat's TEAM for
    the one hand (what the family's ``rewards`` give the seat): 5 a trick plus the best-trump
    bonus (or Hoyle's 5/10), doubled by a successful jink, ``-bid`` for a failed Auction bid."""

    expected_points: np.ndarray  # mean points of the seat's team for the hand
    reach_prob: np.ndarray  # P(the seat's team scores >= ``threshold`` points in the hand)
    expected_tricks: np.ndarray  # mean tricks (of five) taken by the seat's team
    expected_points_se: np.ndarray
    reach_prob_se: np.ndarray
    expected_tricks_se: np.ndarray
    num_rollouts: int
    threshold: int = 15
    game: str = "forty_five"  # ``env.id``

    def table(self, hands: Any = None) -> str:
        """A text table, one row per query (cards shown when ``hands`` is given)."""
        reach = f"P(>={self.threshold}) %"
        lines = [f"{'hand':<18} {'points':>15} {reach:>13} {'tricks':>13}"]
        for q in range(self.expected_points.shape[0]):
            cards = hands[q] if hands is not None else None
            label = str(q) if cards is None else " ".join(family_card_text(int(c)) for c in cards)
            lines.append(
                f"{label:<18} {self.expected_points[q]:+7.3f} ± {self.expected_points_se[q]:5.3f}"
                f" {100 * self.reach_prob[q]:6.2f} ± {100 * self.reach_prob_se[q]:4.2f}"
                f" {self.expected_tricks[q]:5.3f} ± {self.expected_tricks_se[q]:5.3f}"
            )
        return "\n".join(lines)


def _validate_queries(
    hands: Any, turnup: Any, seat: Any, num_players: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    h = np.asarray(hands)
    if h.ndim == 1:
        h = h[None]
    if h.ndim != 2 or h.shape[1] != 5 or h.shape[0] < 1:
        raise ValueError(f"hands must have shape (Q, 5), got {np.shape(hands)}")
    if not np.issubdtype(h.dtype, np.integer):
        raise ValueError(f"hands must hold integer card ids, got dtype {h.dtype}")
    q = h.shape[0]
    t = np.broadcast_to(np.asarray(turnup), (q,))
    s = np.broadcast_to(np.asarray(seat), (q,))
    if not np.issubdtype(t.dtype, np.integer) or not np.issubdtype(s.dtype, np.integer):
        raise ValueError("turnup and seat must be integers")
    for name, arr in (("hands", h), ("turnup", t)):
        bad = arr[(arr < 0) | (arr >= NUM_CARDS)]
        if bad.size:
            raise ValueError(f"{name} holds card ids outside 0..51: {sorted(set(bad.tolist()))}")
    for i in range(q):
        row = h[i].tolist()
        if len(set(row)) != 5:
            raise ValueError(f"query {i}: duplicate cards in the hand {row}")
        if int(t[i]) in row:
            raise ValueError(f"query {i}: the turn-up {card_str(int(t[i]))} is also in the hand")
    if ((s < 0) | (s >= num_players)).any():
        raise ValueError(f"seat must be 0..{num_players - 1} (dealer = seat 0), got {s.tolist()}")
    return h.astype(np.int32), t.astype(np.int32), s.astype(np.int32)


@functools.partial(jax.jit, static_argnums=(0, 1))
def _score_chunk(
    plan: Plan,
    size: int,
    key: jax.Array,
    seed: jax.Array,
    first: jax.Array,
    hands: jax.Array,
    turnup: jax.Array,
    seat: jax.Array,
    num_rollouts: jax.Array,
    seat_policy: jax.Array,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Rollouts ``first .. first+size-1`` (query = id // num_rollouts): per rollout the query
    seat's (won, spoiled, chips)."""
    n = plan.num_players
    ids = _shard_batch(first + jnp.arange(size, dtype=U32))
    q = jnp.minimum(ids // num_rollouts.astype(U32), hands.shape[0] - 1).astype(I32)
    me = seat[q]
    dealer = jnp.zeros_like(me)
    cards = fast.cards_with_known(seed, ids, hands[q], me, turnup[q], dealer, n, plan.rules)
    out: Outcome = plan.play(key, seed, ids, cards, dealer, jnp.zeros_like(me), seat_policy)
    chips = jnp.take_along_axis(out.rewards, me[:, None], axis=1)[:, 0]
    return out.winner == me, out.winner < 0, chips


def score_hands(
    key: jax.Array | int,
    hands: Any,
    turnup: Any,
    seat: Any,
    num_players: int | None = None,
    rules: Rules | FortyFiveRules | None = None,
    policy: PolicySpec = "random",
    num_rollouts: int = 1000,
    batch_size: int | None = None,
    *,
    env: SpoilFive | FortyFive | None = None,
    threshold: int = 15,
) -> HandScores | FamilyScores:
    """Estimate each query hand's chances by determinized Monte Carlo.

    hands int[Q, 5], turnup int[Q] (or one), seat int[Q] (or one) relative to the dealer at
    seat 0 (seat 1 is the eldest hand).  For each query, ``num_rollouts`` deals give the seat
    its five cards and the turn-up, deal the 46 unseen cards uniformly to the others, and play
    the hand out with ``policy`` (every seat, or a list with one per seat).

    The table: ``num_players`` (default 5) and ``rules``, or ``env`` (a ``SpoilFive`` or a
    ``FortyFive``; then leave ``num_players``/``rules`` out or give the same).  With a
    ``FortyFive`` env (or ``rules`` a ``FortyFiveRules``, 4 players by default) the result is a
    ``FamilyScores``: the seat's team's expected points for the hand, P(its team scores at least
    ``threshold`` points) and its expected tricks.  The deals are determinized the same way:
    the seat keeps its five cards (the joker may be one) and sees the turn-up (a card 0..51:
    the hand is one in which the joker was not turned up); the unseen cards (47, 48 with the
    joker) are dealt uniformly.  Auction Forty-Fives has no turn-up: pass ``turnup=None``; the
    unseen cards go uniformly to the other hands and the stock.  Policies for the family:
    ``"random"`` or a jittable policy on its ``State``.
    """
    if env is not None:
        if not isinstance(env, (SpoilFive, FortyFive)):
            raise ValueError(f"env must be a SpoilFive or a FortyFive, got {type(env).__name__}")
        if num_players is not None and num_players != env.num_players:
            raise ValueError(f"num_players={num_players} but env has {env.num_players} players")
        if rules is not None and rules != env.rules:
            raise ValueError("rules differ from env.rules; give one or the other")
    elif isinstance(rules, FortyFiveRules):
        env = FortyFive(4 if num_players is None else num_players, rules)
    if isinstance(env, FortyFive):
        from spoilfive_jax.games.forty_five import tools

        return tools.score_hands(
            key, env, hands, turnup, seat, policy, num_rollouts, batch_size, threshold
        )
    if env is not None:
        num_players, rules = env.num_players, env.rules
    num_players = 5 if num_players is None else num_players
    if isinstance(num_players, bool) or not MIN_PLAYERS <= int(num_players) <= MAX_PLAYERS:
        raise ValueError(f"num_players must be 2..10, got {num_players}")
    if isinstance(num_rollouts, bool) or int(num_rollouts) < 2:
        raise ValueError(f"num_rollouts must be an integer >= 2, got {num_rollouts!r}")
    n, r = int(num_players), int(num_rollouts)
    rules = Rules() if rules is None else rules
    assert isinstance(rules, Rules)  # (FortyFiveRules went to the family above)
    h, t, s = _validate_queries(hands, turnup, seat, n)
    plan, seat_policy = Plan.make(n, rules, resolve(policy, n))
    seed, pkey = _seed_of(key)
    total = h.shape[0] * r
    size = batch_for(int(batch_size or default_batch_size()), total)
    won, spoiled, chips = [], [], []
    for first in range(0, total, size):
        w, sp, c = _score_chunk(
            plan,
            size,
            pkey,
            seed,
            jnp.uint32(first),
            jnp.asarray(h),
            jnp.asarray(t),
            jnp.asarray(s),
            jnp.int32(r),
            jnp.asarray(seat_policy),
        )
        won.append(np.asarray(w))
        spoiled.append(np.asarray(sp))
        chips.append(np.asarray(c))
    means, ses = query_stats(
        [np.concatenate(x)[:total].reshape(-1, r) for x in (won, spoiled, chips)]
    )
    return HandScores(means[0], means[1], means[2], ses[0], ses[1], ses[2], r)


def query_stats(samples: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per-query means and standard errors (float32[Q]) of rollout samples [Q, R]."""
    x64 = [np.asarray(x, np.float64) for x in samples]
    means = [x.mean(1).astype(np.float32) for x in x64]
    ses = [(x.std(1, ddof=1) / math.sqrt(x.shape[1])).astype(np.float32) for x in x64]
    return means, ses


# ------------------------------------------------------------------------ tournaments


@dataclasses.dataclass(frozen=True)
class TournamentResult:
    """Mean chips per hand of each policy, seats rotated over the same deals.

    For the Forty-Five family (``unit == "points"``) ``mean_chips`` holds mean POINTS per hand
    (each seat scores its team's points for the hand; also ``mean_points``) and ``win_rate`` the
    share of hands in which the seat's team scored more than every other team.
    """

    names: tuple[str, ...]
    mean_chips: np.ndarray  # float64[P]: chips (family: points) per hand per seat held
    ci95: np.ndarray  # float64[P]: half-width of the 95% confidence interval
    win_rate: np.ndarray  # float64[P]: share of hands won per seat occupied
    hands: int  # deals played (each under every rotation)
    rotations: int
    unit: str = "chips"  # "chips" (Spoil Five) or "points" (the Forty-Five family)

    @property
    def mean_points(self) -> np.ndarray:
        """``mean_chips`` under its family name (points per hand)."""
        return self.mean_chips

    def table(self) -> str:
        width = max(8, *(len(x) for x in self.names))
        head = f"{self.unit}/hand"
        lines = [
            f"{'policy':<{width}}  {head:>10}  {'95% CI':>9}  {'win %':>6}",
        ]
        order = np.argsort(-self.mean_chips)
        for i in order:
            lines.append(
                f"{self.names[i]:<{width}}  {self.mean_chips[i]:+10.4f}  ±{self.ci95[i]:8.4f}"
                f"  {100 * self.win_rate[i]:6.2f}"
            )
        lines.append(f"({self.hands} deals x {self.rotations} seatings)")
        return "\n".join(lines)


def _policy_name(policy: Any, i: int) -> str:
    return policy if isinstance(policy, str) else getattr(policy, "__name__", f"policy{i}")


def evaluate(
    key: jax.Array | int,
    env: SpoilFive | FortyFive,
    policies: dict[str, PolicySpec] | list[PolicySpec],
    num_hands: int = 100_000,
    batch_size: int | None = None,
) -> TournamentResult:
    """Play ``policies`` against each other: seat ``i`` plays policy ``(i + r) % P`` in seating
    ``r``, for lcm(N, P) seatings, each on the same ``num_hands`` deals (common random numbers),
    so every policy sits in every seat equally often.  The mean chips per hand of a policy
    average the seats it holds; the 95% CI treats each deal (all its seatings) as one sample.

    With a ``FortyFive`` env the unit is the hand's points (``unit="points"``): a seat scores its
    team's points, so a policy holding partner seats counts the team's points once per seat and
    the mean is unchanged.  Partners may be the same policy: at 4 players with 2 policies, seat
    ``i`` plays policy ``(i + r) % 2``, so each policy is a whole partnership (seats 0 and 2, or
    1 and 3) and the two seatings swap them; with 3 policies at 4 players a partnership can mix
    two policies.  ``win_rate``: hands in which the seat's team outscored every other team.
    """
    from spoilfive_jax.games.forty_five import tools  # (imports this module)

    family = isinstance(env, FortyFive)
    if not family and not isinstance(env, SpoilFive):
        raise ValueError(f"env must be a SpoilFive or a FortyFive, got {type(env).__name__}")
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
    n, p_count = env.num_players, len(specs)
    resolved: list[Any] = specs  # the family's names ("greedy") are resolved by its rollout
    if isinstance(env, FortyFive):
        for s in specs:  # refuse a Spoil Five-only policy before playing anything
            tools.resolve(s, 1, env.rules)
    else:
        resolved = [resolve(s, 1)[0] for s in specs]
    rotations = math.lcm(n, p_count)
    per_deal = np.zeros((num_hands, p_count))
    seats_held = np.zeros((num_hands, p_count))
    wins = np.zeros(p_count)
    for r in range(rotations):
        assign = [(i + r) % p_count for i in range(n)]
        out = rollout(key, env, [resolved[a] for a in assign], num_hands, batch_size)
        won = tools.hands_won(out) if family else out.winner[:, None] == np.arange(n)
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
    unit = "points" if family else "chips"
    return TournamentResult(tuple(names), mean, ci, win_rate, num_hands, rotations, unit)
