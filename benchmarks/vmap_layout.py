"""The redesign's premise, measured: the Spoil Five rollout kernel written for ONE hand (every
array of the batch a scalar, each seat's card set its own leaf) and vmapped runs as fast as the
batch-major kernel, with the same hands.  So a public state whose seats' sets are separate
leaves (docs/engine_plan.md, "seat tuples") can be the kernels' layout under ``vmap``.

    python benchmarks/vmap_layout.py [--hands 16384] [--reps 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax as sf
from spoilfive_jax.games.spoil_five import fast, rollouts


def programs(num_players: int) -> tuple[Callable[..., jax.Array], Callable[..., jax.Array]]:
    """(the batch-major kernel: hand ids [B] -> winners [B], the same kernel for one hand id,
    vmapped), both jitted; random play, dealer 0, nothing carried."""
    rules = sf.make("spoil_five", num_players).rules
    seed = jnp.uint32(7)

    def batch(ids: jax.Array) -> jax.Array:
        cards, positions = fast.random_cards(seed, ids, 5 * num_players + 1)
        zero = jnp.zeros(ids.shape, jnp.int32)
        kinds = frozenset({"random"})
        out = rollouts.play_fast(
            seed, ids, cards, zero, zero, jnp.int32(0), num_players, rules, kinds, positions
        )
        return out.winner

    return jax.jit(batch), jax.jit(jax.vmap(lambda i: batch(i[None])[0]))


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--hands", type=int, default=16384)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--players", type=int, default=5)
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    if args.hands < 1 or args.reps < 1:
        ap.error("--hands and --reps must be at least 1")
    ids = jnp.arange(args.hands, dtype=jnp.uint32)
    names = ("batch-major kernel", "one hand, vmapped")
    rates: dict[str, float] = {}
    first: np.ndarray | None = None
    for name, run in zip(names, programs(args.players), strict=True):
        winners = np.asarray(run(ids))  # (compiles)
        if first is not None and not np.array_equal(winners, first):
            raise AssertionError("the vmapped one-hand kernel played different hands")
        first = winners
        rates[name] = args.hands / min(_time(run, ids) for _ in range(args.reps))
        print(f"{name:20s} {rates[name] / 1e6:6.2f} M hands/s")
    return rates


def _time(run: Callable[..., jax.Array], ids: jax.Array) -> float:
    t0 = time.perf_counter()
    run(ids).block_until_ready()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
