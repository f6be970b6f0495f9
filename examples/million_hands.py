"""A million hands of 5-player Spoil Five with random play, summarised (the README's main job).

python examples/million_hands.py [--hands 1000000] [--players 5] [--policy random]
"""

from __future__ import annotations

import argparse
import time

import jax
import numpy as np

import spoilfive_jax as sf


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--policy", default="random", help="random | heuristic")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    sf.use_all_cores()  # one XLA device per CPU core, before JAX's first computation

    env = sf.spoil_five.SpoilFive(num_players=args.players, rules=sf.spoil_five.Rules())
    start = time.perf_counter()
    out = sf.rollout(jax.random.PRNGKey(args.seed), env, policy=args.policy, num_hands=args.hands)
    seconds = time.perf_counter() - start
    s = out.summary()
    print(
        f"{s['hands']:,} hands, {s['decisions']:,} decisions in {seconds:.1f} s "
        f"(compile included): {s['hands'] / seconds:,.0f} hands/s, "
        f"{s['decisions'] / seconds:,.0f} decisions/s on {jax.default_backend()}"
    )
    print(
        f"spoiled {100 * s['spoil_rate']:.2f}%  jinks {100 * s['jink_rate']:.3f}% "
        f"(won {100 * s['jink_success_rate']:.1f}%)  robbed {100 * s['rob_rate']:.1f}%"
    )
    print("seat  win %            chips/hand")
    for seat in range(args.players):
        role = " (dealer)" if seat == 0 else " (eldest)" if seat == 1 else ""
        print(
            f"{seat:>4}  {100 * s['win_rate'][seat]:6.2f} ± {100 * s['win_rate_se'][seat]:.2f}"
            f"   {s['mean_chips'][seat]:+.4f} ± {s['mean_chips_se'][seat]:.4f}{role}"
        )
    assert np.isfinite(out.rewards).all()


if __name__ == "__main__":
    main()
