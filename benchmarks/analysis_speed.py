"""Speed of ``sf.analyze``: many positions x many samples, and one position with many
samples, on Spoil Five (5 players, seed rules, heuristic rollouts).  Prints the wall time
(after a compile run), the rollouts and the decisions per second inside them.  With
``--first-call``, also the first call of every built-in game (a user's first ``hint``): each in
a fresh process without JAX's compilation cache, compile included.  With ``--rates``, for
every game of ``GAMES`` in this one process: the rollout kernel's hand rate (``sf.rollout``,
heuristic), the analysis's playout rate (``sf.analyze``, heuristic, on mid-hand positions of
every phase) and their ratio (the playouts should run at >= 25% of the kernel's rate).

    python benchmarks/analysis_speed.py                 # 1,000 x 1,000 and 1 x 10,000
    python benchmarks/analysis_speed.py --rates --json benchmarks/results/analysis_rates.json
    python benchmarks/analysis_speed.py --positions 200 --samples 500
    python benchmarks/analysis_speed.py --first-call --json benchmarks/results/analysis_speed.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax as sf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance

GAMES = ("spoil_five", "forty_five", "twenty_five", "auction_forty_fives")


def positions(env: sf.spoil_five.SpoilFive, count: int, seed: int = 0) -> sf.spoil_five.State:
    """``count`` live decisions met along heuristic games (a spread of tricks and phases)."""
    step = jax.jit(jax.vmap(env.step))
    act = jax.jit(jax.vmap(sf.spoil_five.HEURISTIC))
    keys = jax.random.split(jax.random.PRNGKey(seed), count)
    state = jax.jit(jax.vmap(env.init))(keys)
    rng = np.random.default_rng(seed)
    stop = rng.integers(0, 5 * env.num_players - 2, count)
    chosen = state
    for t in range(5 * env.num_players):
        new = step(state, act(keys, state, jnp.maximum(state.current_player, 0)))
        take = jnp.asarray(stop > t) & ~new.terminated
        chosen = jax.tree.map(lambda a, b, take=take: _where(take, a, b), new, chosen)
        state = new
    return jax.device_get(chosen)


def _where(take: jax.Array, a: jax.Array, b: jax.Array) -> jax.Array:
    return jnp.where(take.reshape(take.shape + (1,) * (a.ndim - 1)), a, b)


def decisions_per_rollout(env: sf.spoil_five.SpoilFive, batch: sf.spoil_five.State) -> float:
    """Mean decisions left in a heuristic playout of these positions (for decisions/s)."""
    if np.ndim(batch.turnup) == 0:
        batch = jax.tree.map(lambda x: np.asarray(x)[None], batch)
    step = jax.jit(jax.vmap(env.step))
    act = jax.jit(jax.vmap(sf.spoil_five.HEURISTIC))
    keys = jax.random.split(jax.random.PRNGKey(1), batch.turnup.shape[0])
    state = jax.tree.map(jnp.asarray, batch)
    count = np.zeros(batch.turnup.shape[0])
    for _ in range(5 * env.num_players + 2):
        live = ~np.asarray(state.terminated)
        if not live.any():
            break
        count += live
        state = step(state, act(keys, state, jnp.maximum(state.current_player, 0)))
    return float(count.mean())


def run(
    env: sf.spoil_five.SpoilFive, batch: sf.spoil_five.State, samples: int, batch_size: int | None
) -> dict:
    sf.analyze(0, env, batch, num_samples=samples, batch_size=batch_size)  # compile
    t0 = time.perf_counter()
    res = sf.analyze(1, env, batch, num_samples=samples, batch_size=batch_size)
    seconds = time.perf_counter() - t0
    legal = int(res.legal.sum())
    rollouts = legal * samples
    per = decisions_per_rollout(env, batch)
    return {
        "seconds": seconds,
        "rollouts": rollouts,
        "rollouts_per_s": rollouts / seconds,
        "decisions_per_s": rollouts * per / seconds,
        "legal_per_position": legal / max(1, int(np.prod(res.best.shape))),
    }


def a_position(env: sf.Env, seed: int = 0, moves: int = 6) -> Any:
    """A live decision after ``moves`` random legal moves of one hand (mid-hand)."""
    rng = np.random.default_rng(seed)
    state = env.init(jax.random.PRNGKey(seed))
    for _ in range(moves):
        legal = env.legal_actions(state)
        nxt = env.step(state, int(rng.choice(legal)))
        if bool(nxt.terminated):
            break
        state = nxt
    return state


RATE_PLAYERS = {"spoil_five": 5}  # the others: 4 players


def mid_hand(env: sf.Env, count: int, seed: int = 0) -> Any:
    """``count`` live decisions of heuristic hands, each after a uniformly random number of the
    hand's decisions (so every phase shows up as often as it is met: the bidding and discards
    of Auction, the rob, the tricks)."""
    act = jax.vmap(env.builtin_policy("heuristic"))
    step = jax.jit(jax.vmap(env.step))
    keys = jax.random.split(jax.random.PRNGKey(seed), count)
    start = jax.jit(jax.vmap(env.init))(keys)
    pick = jax.jit(lambda s: act(keys, s, jnp.maximum(s.current_player, 0)))
    length = np.zeros(count, np.int64)
    state = start
    for _ in range(env.max_decisions):
        length += ~np.asarray(state.terminated)
        state = step(state, pick(state))
    stop = np.random.default_rng(seed).integers(0, np.maximum(length, 1))
    state, chosen = start, start
    for t in range(int(stop.max()) + 1):
        take = jnp.asarray(stop == t)
        chosen = jax.tree.map(lambda a, b, take=take: _where(take, a, b), state, chosen)
        state = step(state, pick(state))
    return jax.device_get(chosen)


def rates(game: str, hands: int, count: int, samples: int, repeats: int = 5) -> dict[str, Any]:
    """The rollout kernel's hands/s and the analysis's playouts/s of ``game`` (heuristic), each
    timed after a warm-up call, and their ratio.  The two are timed in turn ``repeats`` times
    and each keeps its fastest run: on a shared machine one run of either can be slowed by a
    third or more, which a single pair of timings would put into the ratio."""
    env = sf.make(game, num_players=RATE_PLAYERS.get(game, 4))
    sf.rollout(0, env, "heuristic", num_hands=hands, per_hand=False)  # compile
    batch = mid_hand(env, count)
    res = sf.analyze(0, env, batch, num_samples=samples, policy="heuristic")  # compile
    kernel_s, analysis_s = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        sf.rollout(1, env, "heuristic", num_hands=hands, per_hand=False)
        kernel_s.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        res = sf.analyze(1, env, batch, num_samples=samples, policy="heuristic")
        analysis_s.append(time.perf_counter() - t0)
    kernel = hands / min(kernel_s)
    playouts = int(res.legal.sum()) * samples / min(analysis_s)
    phases = np.bincount(np.asarray(batch.phase), minlength=len(env.phase_names))
    return {
        "game": game,
        "players": env.num_players,
        "kernel_hands_per_s": kernel,
        "analysis_playouts_per_s": playouts,
        "ratio": playouts / kernel,
        "positions": count,
        "samples": samples,
        "repeats": repeats,
        "phases": dict(zip(env.phase_names, phases.tolist(), strict=True)),
    }


def all_rates(
    games: tuple[str, ...], hands: int, count: int, samples: int, repeats: int = 5
) -> list[dict]:
    rows = []
    for game in games:
        r = rates(game, hands, count, samples, repeats)
        rows.append(r)
        print(
            f"{game} ({r['players']} players): kernel {r['kernel_hands_per_s']:,.0f} hands/s, "
            f"analysis {r['analysis_playouts_per_s']:,.0f} playouts/s, ratio {r['ratio']:.3f} "
            f"(positions by phase {r['phases']})",
            flush=True,
        )
    return rows


def first_call(game: str) -> dict[str, Any]:
    """The wall time of this process's first ``sf.analyze`` (default samples and policy)."""
    env = sf.make(game)
    state = a_position(env)
    t0 = time.perf_counter()
    res = sf.analyze(0, env, state)
    jax.block_until_ready(res.best)
    return {"game": game, "players": env.num_players, "seconds": time.perf_counter() - t0}


def first_calls(games: tuple[str, ...]) -> list[dict[str, Any]]:
    """``first_call`` of each game, each in a fresh process without the compilation cache."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_COMPILATION_CACHE")}
    env["JAX_ENABLE_COMPILATION_CACHE"] = "false"
    rows = []
    for game in games:
        out = subprocess.run(
            [sys.executable, __file__, "--first-call-worker", game],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        rows.append(json.loads(out.strip().splitlines()[-1]))
        print(f"first sf.analyze call, {game}: {rows[-1]['seconds']:.1f} s (compile included)")
    return rows


def main(argv: list[str] | None = None) -> dict[str, Any]:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--single-samples", type=int, default=10000)
    ap.add_argument("--batch-size", type=int, default=None)
    ap.add_argument("--first-call", action="store_true", help="also every game's first call")
    ap.add_argument("--games", default=",".join(GAMES), help="games of --first-call, --rates")
    ap.add_argument("--rates", action="store_true", help="kernel vs analysis rate per game")
    ap.add_argument("--rate-hands", type=int, default=1 << 20, help="--rates: kernel hands")
    ap.add_argument("--rate-positions", type=int, default=300, help="--rates: positions")
    ap.add_argument("--rate-samples", type=int, default=128, help="--rates: samples each")
    ap.add_argument("--rate-repeats", type=int, default=5, help="--rates: timings of each, best")
    ap.add_argument("--rates-only", action="store_true", help="--rates without the other rows")
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--first-call-worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.first_call_worker:
        print(json.dumps(first_call(args.first_call_worker)))
        return {}
    print(f"backend {jax.default_backend()}, {jax.device_count()} device(s)")
    games = tuple(args.games.split(","))
    rows = [] if args.rates_only else speed_rows(args)
    first = first_calls(games) if args.first_call else []
    rate_rows = (
        all_rates(games, args.rate_hands, args.rate_positions, args.rate_samples, args.rate_repeats)
        if args.rates or args.rates_only
        else []
    )
    result = {**provenance(__file__, argv), "rows": rows, "first_calls": first, "rates": rate_rows}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return result


def speed_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The default rows: Spoil Five, many positions x many samples and one x many."""
    env = sf.spoil_five.SpoilFive(5)
    batch = positions(env, args.positions)
    widest = int(np.argmax(np.asarray(batch.legal_action_mask).sum(-1)))
    one = jax.tree.map(lambda x: x[widest], batch)  # the position with the most legal actions
    rows = []
    for label, states, k in (
        (f"{args.positions} positions x {args.samples} samples", batch, args.samples),
        (f"1 position x {args.single_samples} samples", one, args.single_samples),
    ):
        r = run(env, states, k, args.batch_size)
        rows.append({"label": label, **r})
        print(
            f"{label}: {r['seconds']:.2f} s after compile, {r['rollouts']:,} rollouts "
            f"({r['legal_per_position']:.2f} legal actions a position), "
            f"{r['rollouts_per_s']:,.0f} rollouts/s, {r['decisions_per_s']:,.0f} decisions/s",
            flush=True,
        )
    return rows


if __name__ == "__main__":
    main()
