"""Random-legal-play throughput of the Forty-Five family's public step API.

For each configuration: ``env.init`` vmapped over B keys, then one jitted ``lax.scan`` of
``env.max_decisions`` steps of ``jax.vmap(env.step)`` with uniformly random legal actions (the
k-th member of the bitset ``state.legal_set``, picked at the end of each iteration and carried
to the next, as the ``bits`` rows of ``benchmarks/throughput.py``).  A decision counts when the
state stepped was not terminated.  Compiled (time reported), warmed up, then timed ``--reps``
times; the best run is reported: hands/s = B / time, decisions/s = live decisions / time.  No
speed is asserted.

``--rollout`` adds the rows of ``sf.rollout`` with the built-in policies (``--policies``, by
default random, greedy and heuristic at every seat), which run on the family's rollout kernel
(``games/forty_five/fast.py``): ``--rollout-hands`` hands after a compile run, best of
``--reps``; with ``open_spiel`` installed each row also shows its ratio to pyspiel ``oh_hell``'s
random-play decisions/s measured in the same process (``--no-peers`` to skip it).

    python benchmarks/fortyfive_throughput.py [--batch 1024,16384] [--rollout] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any

import jax
import jax.numpy as jnp

from spoilfive_jax.core import bits
from spoilfive_jax.games import forty_five as ff

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # for throughput.py
from throughput import time_run  # the same warm-up and best-of-N timing

CONFIGS = {
    "forty_five_4": lambda: ff.FortyFive(4),
    "auction_4": lambda: ff.AuctionFortyFives(4),
    "forty_five_6_joker_jink": lambda: ff.FortyFive(
        6, ff.FortyFiveRules(joker=True, jink="announced")
    ),
}


def pick(state: ff.State, key: jax.Array) -> jax.Array:
    count = bits.count(state.legal_set)
    k = jnp.floor(jax.random.uniform(key, count.shape) * count).astype(jnp.int32)
    return bits.nth(state.legal_set, jnp.minimum(k, count - 1))


def make_run(env: ff.FortyFive, batch: int) -> Any:
    init, step = jax.vmap(env.init), jax.vmap(env.step)

    def body(carry: tuple[ff.State, jax.Array], key: jax.Array) -> Any:
        state, action = carry
        live = (~state.terminated).sum(dtype=jnp.int32)
        state = step(state, action)
        return (state, pick(state, key)), live

    def run(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        k0, k1, k2 = jax.random.split(key, 3)
        state = init(jax.random.split(k0, batch))
        keys = jax.random.split(k1, env.max_decisions)
        (state, _), live = jax.lax.scan(body, (state, pick(state, k2)), keys)
        return live.sum(), state.terminated.all()

    return jax.jit(run)


def measure(name: str, batch: int, reps: int) -> dict[str, Any]:
    env = CONFIGS[name]()
    key = jax.random.PRNGKey(0)
    t0 = time.perf_counter()
    run = make_run(env, batch).lower(key).compile()
    compile_s = time.perf_counter() - t0
    best, decisions = time_run(run, key, reps, name, env.max_decisions)
    return {
        "config": name,
        "players": env.num_players,
        "batch": batch,
        "hands_per_s": batch / best,
        "decisions_per_s": decisions / best,
        "decisions_per_hand": decisions / batch,
        "compile_s": compile_s,
        "bytes_per_state": ff.state_bytes(env.num_players, env.rules),
    }


def measure_rollout(name: str, policy: str, hands: int, reps: int) -> dict[str, Any]:
    """``sf.rollout`` throughput of one configuration and built-in policy (every seat)."""
    import spoilfive_jax as sf

    env = CONFIGS[name]()
    t0 = time.perf_counter()
    sf.rollout(0, env, policy, num_hands=min(hands, 16384))
    compile_s = time.perf_counter() - t0
    best, decisions = float("inf"), 0
    for i in range(reps):
        t0 = time.perf_counter()
        out = sf.rollout(i + 1, env, policy, num_hands=hands)
        dt = time.perf_counter() - t0
        if dt < best:
            best, decisions = dt, int(out.decisions.sum())
    return {
        "config": name,
        "policy": policy,
        "hands": hands,
        "hands_per_s": hands / best,
        "decisions_per_s": decisions / best,
        "decisions_per_hand": decisions / hands,
        "compile_s": compile_s,
    }


def peer_rate() -> float | None:
    """pyspiel oh_hell random-play decisions/s (``rollout_speed.pyspiel_rate``), or None."""
    from rollout_speed import pyspiel_rate

    return pyspiel_rate()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configs", default="forty_five_4,auction_4", help=f"of {sorted(CONFIGS)}")
    ap.add_argument("--batch", default="1024,16384", help="comma list of batch sizes")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--rollout", action="store_true", help="add sf.rollout rows (the kernel)")
    ap.add_argument("--policies", default="random,greedy,heuristic", help="for --rollout")
    ap.add_argument("--rollout-hands", type=int, default=1 << 20, help="hands per timed rollout")
    ap.add_argument("--no-peers", action="store_true", help="no pyspiel ratio for --rollout")
    ap.add_argument("--step", action=argparse.BooleanOptionalAction, default=True)
    a = ap.parse_args(argv)
    info = {
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "device": jax.devices()[0].device_kind,
    }
    print(f"machine: {info}")
    rows = [
        measure(name, int(b), a.reps)
        for name in a.configs.split(",")
        for b in a.batch.split(",")
        if b and a.step
    ]
    head = f"{'config':<24} {'batch':>6} {'hands/s':>11} {'decisions/s':>13} {'dec/hand':>8} "
    head += f"{'compile s':>9} {'bytes':>6}"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['config']:<24} {r['batch']:>6} {r['hands_per_s']:>11,.0f} "
            f"{r['decisions_per_s']:>13,.0f} {r['decisions_per_hand']:>8.1f} "
            f"{r['compile_s']:>9.1f} {r['bytes_per_state']:>6}"
        )
    result: dict[str, Any] = {"machine": info, "rows": rows}
    if a.rollout:
        result["rollout_rows"] = rollout_rows = [
            measure_rollout(name, policy, a.rollout_hands, a.reps)
            for name in a.configs.split(",")
            for policy in a.policies.split(",")
        ]
        peer = None if a.no_peers else peer_rate()
        result["peer_decisions_per_s"] = peer
        head = f"{'sf.rollout config':<24} {'policy':>9} {'hands/s':>11} {'decisions/s':>13} "
        head += f"{'dec/hand':>8} {'compile s':>9} {'x pyspiel':>9}"
        print()
        print(head)
        print("-" * len(head))
        for r in rollout_rows:
            ratio = f"{r['decisions_per_s'] / peer:>8.0f}x" if peer else f"{'-':>9}"
            print(
                f"{r['config']:<24} {r['policy']:>9} {r['hands_per_s']:>11,.0f} "
                f"{r['decisions_per_s']:>13,.0f} {r['decisions_per_hand']:>8.1f} "
                f"{r['compile_s']:>9.1f} {ratio}"
            )
        if peer:
            print(f"pyspiel oh_hell (5 players, random): {peer:,.0f} decisions/s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    main()
