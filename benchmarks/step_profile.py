"""Where the public step's loop spends its time: the same jitted ``lax.scan`` of 5N+2 steps of
B hands (``spoilfive bench``'s ``mask`` row), taken apart by leaving pieces out.

- ``loop``: the contract's loop, each iteration drawing one uniform a hand, picking the k-th
  legal action from ``state.legal_action_mask`` (``cumsum``/``argmax``) and stepping;
- ``null step``: the same loop with a step that returns the state unchanged (the draw and the
  picker alone);
- ``draws``: the uniforms alone (``jax.random.uniform``, one a hand an iteration);
- ``engine``: the step with the action picked from the bitset at the end of the iteration and
  carried (``bits``, a few popcounts): the step's own cost.

The step's own work is ``engine``, the draws' and the picker's own work ``null step``; what the
loop spends beyond both is the pick made inside the step's iteration: XLA:CPU fuses it into the
step's output fusions and computes it again in each (the reason ``bits`` carries its pick to the
next iteration).  The rate of ``null step`` and ``draws`` is the loop's decisions at their cost.
Also the bytes of one hand's State and the instructions of the compiled batched step (XLA's
optimized HLO).
With ``open_spiel`` installed, each variant's decisions/s is divided by pyspiel ``oh_hell``'s,
measured in the same process.  Nothing is asserted; the exit code is always 0.

    python benchmarks/step_profile.py [--players 5] [--batch 8192] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax as sf
from spoilfive_jax.cli.throughput import (
    PEERS,
    RATIO_PEER,
    pick_bits,
    pick_mask,
    pyspiel_rate,
    time_run,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance

VARIANTS = ("loop", "null step", "draws", "engine")


def make_loop(env: Any, batch: int, variant: str) -> Any:
    """A jitted ``key -> (live decisions, all hands ended)`` of 5N+2 iterations of ``variant``
    over ``batch`` hands (``cli.throughput.time_run``'s form; the variants that never step
    report their hands as ended)."""
    init, step = jax.vmap(env.init), jax.vmap(env.step)
    steps = 5 * env.num_players + 2

    def body(carry: Any, key: jax.Array) -> tuple[Any, jax.Array]:
        state, action = carry
        live = (~state.terminated).sum(dtype=jnp.int32)
        if variant == "loop":
            state = step(state, pick_mask(state, key))
        elif variant == "null step":
            # the barrier hides that the state is unchanged, or XLA would hoist the mask's
            # cumsum out of the loop; the pick is carried so that it is not optimised away
            state = jax.lax.optimization_barrier(state)
            action = pick_mask(state, key)
        elif variant == "draws":
            state = jax.lax.optimization_barrier(state)
            action = (jax.random.uniform(key, (batch,)) * 55).astype(jnp.int32)
        else:  # engine: step with the carried action, pick the next one from the bitset
            state = step(state, action)
            action = pick_bits(state, key)
        return (state, action), live

    def run(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        k0, k1, k2 = jax.random.split(key, 3)
        state = init(jax.random.split(k0, batch))
        first = pick_bits(state, k2)
        (end, last), live = jax.lax.scan(body, (state, first), jax.random.split(k1, steps))
        ended = end.terminated.all() if variant in ("loop", "engine") else jnp.bool_(True)
        return live.sum() + 0 * last.sum(), ended  # (the carried actions are used)

    return jax.jit(run)


def step_instructions(env: Any, batch: int) -> int:
    """Instructions in the optimized HLO of ``jit(vmap(env.step))`` over ``batch`` hands."""
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), batch))
    actions = jnp.zeros(batch, jnp.int32)
    text = jax.jit(jax.vmap(env.step)).lower(state, actions).compile().as_text()
    return sum(
        1 for line in text.splitlines() if " = " in line and not line.startswith("HloModule")
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--batch", type=int, default=8192)
    ap.add_argument("--reps", type=int, default=10, help="timed runs per variant")
    ap.add_argument("--peer-seconds", type=float, default=5.0, help="pyspiel time")
    ap.add_argument("--no-peers", action="store_true", help="skip the pyspiel peer")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    env = sf.spoil_five.SpoilFive(args.players)
    peer = None
    if not args.no_peers:
        try:
            name = RATIO_PEER
            peer = pyspiel_rate(name, PEERS[name], args.peer_seconds)["decisions_per_s"]
        except ImportError:
            print("open_spiel not installed: no peer ratio (pip install '.[bench]')")
    rows: list[dict[str, Any]] = []
    for variant in VARIANTS:
        run, steps = make_loop(env, args.batch, variant), 5 * args.players + 2
        seconds, decisions = time_run(run, jax.random.PRNGKey(0), args.reps, variant, steps)
        if variant in ("null step", "draws"):  # no hand ends: the loop's decisions, at this cost
            decisions = rows[0]["decisions"]
        rate = decisions / seconds
        rows.append(
            {
                "variant": variant,
                "ms": 1000 * seconds,
                "decisions": decisions,
                "decisions_per_s": rate,
                "ratio_vs_oh_hell": rate / peer if peer else None,
            }
        )
        ratio = f"  {rate / peer:6.1f}x {RATIO_PEER}" if peer else ""
        print(f"{variant:>10}: {1000 * seconds:8.2f} ms a run, {rate:>13,.0f} decisions/s{ratio}")
    result = {
        **provenance(__file__, sys.argv[1:] if argv is None else argv),
        "players": args.players,
        "batch": args.batch,
        "steps": 5 * args.players + 2,
        "peer_decisions_per_s": peer,
        "rows": rows,
        "state_bytes": sf.spoil_five.state_bytes(args.players),
        "step_instructions": step_instructions(env, args.batch),
    }
    print(
        f"State: {result['state_bytes']} bytes a hand; compiled step: "
        f"{result['step_instructions']:,} HLO instructions"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
