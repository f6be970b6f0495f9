"""Speed of ``sf.analyze``: many positions x many samples, and one position with many
samples, on Spoil Five (5 players, seed rules, heuristic rollouts).  Prints the wall time
(after a compile run), the rollouts and the decisions per second inside them.

    python benchmarks/analysis_speed.py                 # 1,000 x 1,000 and 1 x 10,000
    python benchmarks/analysis_speed.py --positions 200 --samples 500
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax as sf


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--single-samples", type=int, default=10000)
    ap.add_argument("--batch-size", type=int, default=None)
    args = ap.parse_args()
    env = sf.spoil_five.SpoilFive(5)
    print(f"backend {jax.default_backend()}, {jax.device_count()} device(s)")
    batch = positions(env, args.positions)
    widest = int(np.argmax(np.asarray(batch.legal_action_mask).sum(-1)))
    one = jax.tree.map(lambda x: x[widest], batch)  # the position with the most legal actions
    for label, states, k in (
        (f"{args.positions} positions x {args.samples} samples", batch, args.samples),
        (f"1 position x {args.single_samples} samples", one, args.single_samples),
    ):
        r = run(env, states, k, args.batch_size)
        print(
            f"{label}: {r['seconds']:.2f} s after compile, {r['rollouts']:,} rollouts "
            f"({r['legal_per_position']:.2f} legal actions a position), "
            f"{r['rollouts_per_s']:,.0f} rollouts/s, {r['decisions_per_s']:,.0f} decisions/s",
            flush=True,
        )


if __name__ == "__main__":
    main()
