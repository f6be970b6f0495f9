"""Shared helpers: confidence intervals, progress lines, policies by name, and a position
collector that plays hands and keeps the first position matching a predicate."""

from __future__ import annotations

import functools
import math
import sys
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax as sf
from spoilfive_jax.games.forty_five import game as family_game
from spoilfive_jax.games.spoil_five import game as sf_game

Z95 = 1.96
Predicate = Callable[[Any, jax.Array], jax.Array]  # (state, led_suits int32[N]) -> bool[]


# ------------------------------------------------------------------------ statistics


def mean_ci(x: Any) -> dict[str, float]:
    """Mean of the samples ``x`` with the half-width of its 95% confidence interval."""
    a = np.asarray(x, np.float64).reshape(-1)
    n = int(a.size)
    if n == 0:
        return {"mean": float("nan"), "ci95": float("nan"), "n": 0}
    sd = float(a.std(ddof=1)) if n > 1 else float("nan")
    return {"mean": float(a.mean()), "ci95": Z95 * sd / math.sqrt(n), "n": n}


def prop_ci(hits: Any) -> dict[str, float]:
    """Share of True in ``hits`` with a Wilson 95% interval (``lo``, ``hi``) and ``ci95``."""
    a = np.asarray(hits, bool).reshape(-1)
    n = int(a.size)
    if n == 0:
        return {
            "mean": float("nan"),
            "ci95": float("nan"),
            "lo": float("nan"),
            "hi": float("nan"),
            "n": 0,
        }
    p = float(a.mean())
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return {"mean": p, "ci95": half, "lo": centre - half, "hi": centre + half, "n": n}


def grouped(values: np.ndarray, groups: np.ndarray, labels: list[Any]) -> list[dict[str, Any]]:
    """``mean_ci`` of ``values`` within each group (``groups == label``)."""
    return [{"group": _plain(g), **mean_ci(values[groups == g])} for g in labels]


def _plain(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


# ------------------------------------------------------------------------ progress


class Progress:
    """Printed progress lines (``[label] done/total  elapsed``), at most one per second."""

    def __init__(self, label: str, stream: Any = sys.stderr) -> None:
        self.label, self.stream = label, stream
        self.start = self.last = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if done >= total or now - self.last >= 1.0:
            self.last = now
            pct = 100.0 * done / max(total, 1)
            bar = "#" * int(pct / 5)
            print(
                f"  [{self.label}] {bar:<20} {done}/{total} ({now - self.start:.0f} s)",
                file=self.stream,
                flush=True,
            )


def quiet(done: int, total: int) -> None:
    """A progress callback that prints nothing."""


# ------------------------------------------------------------------------ policies


def policy_of(env: Any, spec: Any) -> Callable[..., Any]:
    """A jittable ``policy(key, state, player)`` for ``env`` from a name or a callable:
    Spoil Five ``"heuristic"``/``"random"``; the family ``"heuristic"`` (its own partner-aware
    player), ``"greedy"`` or ``"random"``.

    Always a callable, never a name: when the study was run, ``sf.analyze`` and pimc's rollouts
    still read the family's name ``"heuristic"`` as its greedy player, so the study hands them
    the family heuristic itself (the same player the name means now)."""
    if callable(spec):
        return spec
    if isinstance(env, sf.spoil_five.SpoilFive):
        return {"heuristic": sf.spoil_five.HEURISTIC, "random": sf.spoil_five.RANDOM}[spec]
    return env.builtin_policy(spec)  # type: ignore[no-any-return]


def pimc_of(env: Any, num_samples: int, rollout: Any = "heuristic") -> Any:
    """``sf.pimc`` for ``env`` with ``num_samples`` worlds and the game's own heuristic (a
    callable, see ``policy_of``) playing the rollouts."""
    return sf.pimc(env, num_samples, policy_of(env, rollout))


def max_steps(env: Any) -> int:
    """The most decisions one hand of ``env`` can take."""
    if isinstance(env, sf.spoil_five.SpoilFive):
        return 5 * env.num_players + 2
    return int(env.max_decisions)


def play_phase(env: Any) -> int:
    return (
        sf_game.PHASE_PLAY if isinstance(env, sf.spoil_five.SpoilFive) else family_game.PHASE_PLAY
    )


# ------------------------------------------------------------------------ collecting positions


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3))
def _collect_chunk(
    env: Any, policy: Any, predicate: Predicate, dealer: int, keys: jax.Array
) -> tuple[Any, jax.Array, Any]:
    n, steps, phase_play = env.num_players, max_steps(env), play_phase(env)

    def one(key: jax.Array) -> tuple[Any, jax.Array, Any]:
        deal_key, play_key = jax.random.split(key)
        state = env.init(deal_key, dealer)
        led = jnp.full((n,), -1, jnp.int32)

        def body(carry: Any, t: jax.Array) -> tuple[Any, None]:
            s, led, cap, found = carry
            live = ~s.terminated
            hit = live & ~found & predicate(s, led)
            cap = jax.tree.map(lambda c, x: jnp.where(hit, x, c), cap, (s, led))
            cur = jnp.maximum(s.current_player, 0)
            action = policy(jax.random.fold_in(play_key, t), s, cur)
            nxt = env.step(s, action)
            leading = live & (s.phase == phase_play) & (cur == s.leader)
            led = jnp.where(leading & (jnp.arange(n) == cur), nxt.led_class, led)
            s = jax.tree.map(lambda a, b: jnp.where(live, b, a), s, nxt)
            return (s, led, cap, found | hit), None

        start = (state, led, (state, led), jnp.bool_(False))
        (final, _, cap, found), _ = jax.lax.scan(body, start, jnp.arange(steps))
        return cap, found, final

    return jax.vmap(one)(keys)


class Collected(NamedTuple):
    """Positions found by ``collect`` (host pytrees, leading axis M)."""

    positions: Any  # the first position of each hand where the predicate held
    led: np.ndarray  # int32[M, N]: the suit class each seat had last led there (-1: none)
    finals: Any  # the same hands played to the end
    hands: int  # hands played


def collect(
    key: jax.Array | int,
    env: Any,
    policy: Any,
    num_hands: int,
    predicate: Predicate,
    *,
    dealer: int = 0,
    batch: int = 2048,
    progress: Callable[[int, int], Any] = quiet,
) -> Collected:
    """Play ``num_hands`` random hands with ``policy`` at every seat and keep, per hand, the
    first position where ``predicate(state, led_suits)`` holds (``led_suits[s]``: the suit
    class seat s last led, -1 if none).  Hands where it never holds are dropped.
    ``predicate`` must be a hashable module-level function (a static argument of the jit)."""
    if isinstance(key, (int, np.integer)):
        key = jax.random.PRNGKey(int(key))
    fn = policy_of(env, policy)
    batch = min(batch, 1 << max(num_hands - 1, 0).bit_length())  # small runs: a small chunk
    caps, finals = [], []
    for first in range(0, num_hands, batch):
        keys = jax.vmap(lambda i: jax.random.fold_in(key, i))(jnp.arange(first, first + batch))
        cap, found, final = jax.device_get(_collect_chunk(env, fn, predicate, dealer, keys))
        count = min(batch, num_hands - first)
        keep = np.flatnonzero(np.asarray(found)[:count])
        caps.append(take(cap, keep))
        finals.append(take(final, keep))
        progress(first + count, num_hands)
    cat = functools.partial(jax.tree.map, lambda *xs: np.concatenate(xs))
    positions, led = cat(*caps)
    return Collected(positions, led, cat(*finals), num_hands)


def policy_actions(policy: Any, states: Any, seed: int = 0) -> np.ndarray:
    """The action ``policy`` takes in each of a batch of host states (int[M])."""
    dev = jax.tree.map(jnp.asarray, states)
    count = int(np.asarray(states.current_player).shape[0])
    keys = jax.random.split(jax.random.PRNGKey(seed), count)
    return np.asarray(_batched(policy)(keys, dev, dev.current_player))


@functools.cache
def _batched(policy: Any) -> Callable[..., Any]:
    """``jit(vmap(policy))``, compiled once per policy."""
    return jax.jit(jax.vmap(policy))


def analyze_split(
    key: int, env: Any, positions: Any, num_samples: int, policy: Any
) -> tuple[Any, Any]:
    """Two independent ``sf.analyze`` runs of the same positions: choose the best action of a
    group with the first and read its value from the second, so that the maximum over noisy
    estimates does not flatter the chosen action (the winner's curse)."""
    pol = policy_of(env, policy)
    select = sf.analyze(key, env, positions, num_samples=num_samples, policy=pol)
    value = sf.analyze(key + 7919, env, positions, num_samples=num_samples, policy=pol)
    return select, value


def best_of(select: np.ndarray, value: np.ndarray, mask: np.ndarray) -> tuple[Any, Any]:
    """(the action of ``mask`` [M, A] with the highest ``select`` value, its ``value``)."""
    idx = np.where(mask, select, -np.inf).argmax(1)
    return idx, value[np.arange(idx.size), idx]


def take(tree: Any, idx: Any) -> Any:
    """Index the leading axis of every leaf of a host pytree."""
    return jax.tree.map(lambda x: np.asarray(x)[idx], tree)


def hand_cards(hands_lo: np.ndarray, hands_hi: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """bool[M, 52]: the cards held by ``seat[m]`` in each of M positions (``Bits`` words)."""
    m = np.arange(seat.shape[0])
    lo = hands_lo[m, seat].astype(np.uint64)
    hi = hands_hi[m, seat].astype(np.uint64)
    word = lo | (hi << np.uint64(32))
    return ((word[:, None] >> np.arange(52, dtype=np.uint64)) & np.uint64(1)).astype(bool)


# ------------------------------------------------------------------------ paired playouts


@functools.partial(jax.jit, static_argnums=(0, 1))
def _pair_chunk(env: Any, policy: Any, keys: jax.Array, states: Any, actions: jax.Array) -> Any:
    player = jnp.maximum(states.current_player, 0)
    world_keys = jax.vmap(lambda k: jax.random.fold_in(k, 0))(keys)
    play_keys = jax.vmap(lambda k: jax.random.fold_in(k, 1))(keys)
    worlds = jax.vmap(
        functools.partial(env.capability(sf.capabilities.Analysis).resample_hidden, env)
    )(world_keys, states, player)
    out = env.capability(sf.capabilities.Analysis).playout(
        env, play_keys, worlds, actions, player, policy
    )
    return out[env.capability(sf.capabilities.Analysis).analysis_fields(env)[0]]


def paired_values(
    key: int,
    env: Any,
    positions: Any,
    actions: np.ndarray,
    policy: Any,
    num_worlds: int = 1,
    *,
    batch: int = 64,
    progress: Callable[[int, int], Any] = quiet,
) -> np.ndarray:
    """float[M, L]: the value (chips, or points) to the player to act of each of ``actions``
    int[M, L] in each of M host positions, averaged over ``num_worlds`` worlds drawn from what
    the player knows, each played out with ``policy`` at every seat (the L actions of a world
    share its deal and keys).  A cheap ``sf.analyze`` of only the actions that matter, for
    expensive playout policies such as pimc; fixed chunks of ``batch`` playout groups."""
    acts = np.asarray(actions, np.int32)
    m = acts.shape[0]
    if m == 0:
        return np.zeros(acts.shape)
    pol = policy_of(env, policy)
    idx = np.repeat(np.arange(m), num_worlds)
    total = idx.size
    base = jax.random.PRNGKey(key)
    sums = np.zeros(acts.shape)
    for first in range(0, total, batch):
        sel = np.arange(first, first + batch)
        real = sel < total
        rows = idx[np.where(real, sel, 0)]
        keys = jax.vmap(lambda i: jax.random.fold_in(base, i))(jnp.asarray(sel))
        states = jax.tree.map(jnp.asarray, take(positions, rows))
        vals = np.asarray(_pair_chunk(env, pol, keys, states, jnp.asarray(acts[rows])))
        np.add.at(sums, rows[real], vals[real])
        progress(min(first + batch, total), total)
    return sums / num_worlds


def check_pairs(
    key: int,
    env: Any,
    pos: Any,
    actions: np.ndarray,
    gain: np.ndarray,
    policy: Any,
    count: int,
    groups: dict[str, np.ndarray],
) -> dict[str, Any]:
    """``{"check": ...}``: the value of ``actions[:, 1]`` over ``actions[:, 0]`` in the first
    ``count`` positions played out with ``policy`` (one world each), beside ``gain`` (the main
    analysis) on the same positions, overall and within each of ``groups`` (bool masks)."""
    if policy is None or count <= 0:
        return {}
    n = min(count, gain.size)
    sub = take(pos, np.arange(n))
    v = paired_values(key + 31, env, sub, actions[:n], policy, progress=Progress("check"))
    diff = v[:, 1] - v[:, 0]
    out = {"policy": getattr(policy, "__name__", str(policy)), "positions": n,
           "gain": mean_ci(diff), "main_gain_same_positions": mean_ci(gain[:n]),
           "main_minus_check": mean_ci(gain[:n] - diff)}  # fmt: skip
    out["groups"] = [
        {"group": name, "check": mean_ci(diff[mask[:n]]), "main": mean_ci(gain[:n][mask[:n]])}
        for name, mask in groups.items()
    ]
    return {"check": out}
