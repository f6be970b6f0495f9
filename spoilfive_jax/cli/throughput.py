"""Random-legal-play throughput of the public step API, ``jax.jit(jax.vmap(env.step))``.

One run: ``env.init`` vmapped over B keys, then one jitted ``lax.scan`` of 5N+2 steps (the most a
hand can take: a rob, 5 tricks of N cards, a jink decision) with uniformly random legal actions.
A decision counts when the state stepped was not terminated.  Each configuration is compiled
(time reported), run once to warm up, then timed ``--reps`` times; the best run is reported:
hands/s = B / time, decisions/s = live decisions / time.

Two ways of drawing the uniformly random legal action (one uniform per game in both):

- ``mask``: exactly the picker of the project's acceptance check of the step: in each scan
  iteration, the k-th True of ``state.legal_action_mask`` via
  ``cumsum``/``argmax`` over the
  55 actions, then the step.  On XLA:CPU this picker costs more than the engine step itself (a
  null step with it reaches only ~15-25x pyspiel oh_hell on a 2-core machine): these rows mostly
  time the picker.
- ``bits``: the k-th member of the bitset ``state.legal_set`` via ``bits.count``/``bits.nth`` (a
  few popcounts and shifts; still uniform over the legal actions), picked at the END of each
  iteration from the new state and carried to the next one.  Picked at the start instead (the
  contract's loop shape), XLA:CPU fuses the elementwise pick and its threefry draw into each of
  the ~25 per-field output fusions of the step and recomputes it in every one (5-10x slower);
  carried, the action is a loop buffer computed once.  These rows time the engine.

With ``open_spiel`` installed, the same process also times pyspiel's ``oh_hell`` (players=5,
num_tricks_fixed=5) and ``euchre`` with a random Python loop, and prints each row's ratio of
decisions/s to oh_hell's.  No speed is asserted: the exit code is always 0.

It ships inside the package so that an installed ``spoilfive bench`` runs it;
``benchmarks/throughput.py`` is the same program from a source checkout::

    python benchmarks/throughput.py [--players 2,5,10] [--batch 1024,65536] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax as sf
from spoilfive_jax.core import bits
from spoilfive_jax.core.env import HandState

Picker = Callable[[HandState, jax.Array], jax.Array]
PEERS = {"oh_hell": {"players": 5, "num_tricks_fixed": 5}, "euchre": {}}
RATIO_PEER = "oh_hell"
DESCRIPTION = "Random-legal-play throughput of the public step API, jax.jit(jax.vmap(env.step))."


def pick_mask(state: HandState, key: jax.Array) -> jax.Array:
    """Uniform legal action via the k-th True of ``legal_action_mask`` (the contract's picker)."""
    mask = state.legal_action_mask
    count = mask.sum(-1)
    k = jnp.floor(jax.random.uniform(key, count.shape) * count).astype(jnp.int32)
    return jnp.argmax(jnp.cumsum(mask, -1) > k[:, None], axis=-1).astype(jnp.int32)


def pick_bits(state: HandState, key: jax.Array) -> jax.Array:
    """Uniform legal action via the k-th member of the bitset ``legal_set``."""
    count = bits.count(state.legal_set)
    k = jnp.floor(jax.random.uniform(key, count.shape) * count).astype(jnp.int32)
    return bits.nth(state.legal_set, jnp.minimum(k, count - 1))


PICKERS: dict[str, Picker] = {"bits": pick_bits, "mask": pick_mask}
Carry = tuple[HandState, jax.Array]  # (state, the action to take in it)


def make_run(num_players: int, batch: int, picker: str) -> jax.stages.Wrapped:
    """A jitted ``key -> (live decisions, all hands terminated)`` for one batch of hands."""
    env = sf.make("spoil_five", num_players)  # the seed rules
    init = jax.vmap(env.init)
    step = jax.vmap(env.step)
    pick = PICKERS[picker]
    num_steps = 5 * num_players + 2

    def contract_body(state: HandState, key: jax.Array) -> tuple[HandState, jax.Array]:
        live = (~state.terminated).sum(dtype=jnp.int32)
        return step(state, pick(state, key)), live

    def carried_body(carry: Carry, key: jax.Array) -> tuple[Carry, jax.Array]:
        state, action = carry
        live = (~state.terminated).sum(dtype=jnp.int32)
        state = step(state, action)
        return (state, pick(state, key)), live

    def run(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        k0, k1, k2 = jax.random.split(key, 3)
        state = init(jax.random.split(k0, batch))
        keys = jax.random.split(k1, num_steps)
        if picker == "mask":  # the contract's loop: pick, then step, in one scan iteration
            state, live = jax.lax.scan(contract_body, state, keys)
        else:  # the next action is picked at the end of the iteration and carried
            (state, _), live = jax.lax.scan(carried_body, (state, pick(state, k2)), keys)
        return live.sum(), state.terminated.all()

    return jax.jit(run)


def time_run(run: Any, key: jax.Array, reps: int, label: str, steps: int) -> tuple[float, int]:
    """Warm up a compiled ``run(key) -> (live decisions, all done)``, check that every hand ended
    within ``steps``, and return the best time of ``reps`` runs and its decision count."""
    _, done = run(key)
    if not bool(done):
        raise RuntimeError(f"{label}: a hand did not end within {steps} steps")
    best_s, decisions = float("inf"), 0
    for _ in range(reps):
        key, sub = jax.random.split(key)
        t0 = time.perf_counter()
        live, _ = run(sub)
        n = int(live)  # blocks until the run is done
        dt = time.perf_counter() - t0
        if dt < best_s:
            best_s, decisions = dt, n
    return best_s, decisions


def measure(num_players: int, batch: int, picker: str, reps: int) -> dict[str, Any]:
    """Compile, warm up and time one configuration; the best of ``reps`` runs."""
    key = jax.random.PRNGKey(0)
    t0 = time.perf_counter()
    run = make_run(num_players, batch, picker).lower(key).compile()
    compile_s = time.perf_counter() - t0
    best_s, decisions = time_run(run, key, reps, f"N={num_players}", 5 * num_players + 2)
    return {
        "players": num_players,
        "batch": batch,
        "picker": picker,
        "hands_per_s": batch / best_s,
        "decisions_per_s": decisions / best_s,
        "decisions_per_hand": decisions / batch,
        "compile_s": compile_s,
        "bytes_per_state": sf.spoil_five.state_bytes(num_players),
    }


def pyspiel_rate(name: str, params: dict[str, int], seconds: float) -> dict[str, Any]:
    """Decisions/s and hands/s of pyspiel ``name`` under uniformly random play in Python.

    The best of 5 windows of ``seconds / 5`` (the same best-of rule as for our runs).
    """
    import pyspiel

    game = pyspiel.load_game(name, params)
    rng = random.Random(0)
    best = {"decisions_per_s": 0.0, "hands_per_s": 0.0}
    for _ in range(5):
        decisions = hands = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds / 5:
            s = game.new_initial_state()
            while not s.is_terminal():
                if s.is_chance_node():
                    outcomes = s.chance_outcomes()
                    s.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                else:
                    s.apply_action(rng.choice(s.legal_actions()))
                    decisions += 1
            hands += 1
        dt = time.perf_counter() - t0
        if decisions / dt > best["decisions_per_s"]:
            best = {"decisions_per_s": decisions / dt, "hands_per_s": hands / dt}
    return {"game": str(game), **best}


def machine() -> dict[str, Any]:
    return {
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "device": jax.devices()[0].device_kind,
    }


def format_table(rows: list[dict[str, Any]], peer_rate: float | None) -> str:
    head = (
        f"{'N':>3} {'batch':>6} {'picker':>6} {'hands/s':>12} {'decisions/s':>13} "
        f"{'vs oh_hell':>10} {'compile s':>9} {'bytes/state':>11}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        ratio = f"{r['decisions_per_s'] / peer_rate:9.1f}x" if peer_rate else f"{'-':>10}"
        lines.append(
            f"{r['players']:>3} {r['batch']:>6} {r['picker']:>6} {r['hands_per_s']:>12,.0f} "
            f"{r['decisions_per_s']:>13,.0f} {ratio} {r['compile_s']:>9.1f} "
            f"{r['bytes_per_state']:>11}"
        )
    return "\n".join(lines)


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=DESCRIPTION)
    ap.add_argument("--players", type=_ints, help="comma list of N (default 2,5,10)")
    ap.add_argument("--batch", type=_ints, help="comma list of B (default 1024,...,65536)")
    ap.add_argument("--pickers", default="bits,mask", help="comma list of: bits, mask")
    ap.add_argument("--reps", type=int, default=5, help="timed runs per configuration")
    ap.add_argument("--peer-seconds", type=float, default=5.0, help="pyspiel time per game")
    ap.add_argument("--json", metavar="FILE", help="also write all results as JSON")
    ap.add_argument("--quick", action="store_true", help="CI smoke: N=5, B=1024, short peers")
    ap.add_argument("--no-peers", action="store_true", help="skip the pyspiel peers")
    a = ap.parse_args(argv)
    players = a.players or ([5] if a.quick else [2, 5, 10])
    batches = a.batch or ([1024] if a.quick else [1024, 4096, 16384, 65536])
    peer_seconds = min(a.peer_seconds, 0.5) if a.quick else a.peer_seconds

    info = machine()
    print(
        f"machine: {info['processor']}, {info['cpu_count']} CPUs; python {info['python']}, "
        f"jax {info['jax']}, backend {info['backend']} ({info['device']})"
    )
    peers: dict[str, Any] = {}
    if not a.no_peers:
        try:
            peers = {name: pyspiel_rate(name, p, peer_seconds) for name, p in PEERS.items()}
        except ImportError:
            print("open_spiel not installed: no peer timings (pip install '.[bench]')")
    for p in peers.values():
        print(
            f"pyspiel {p['game']}: {p['decisions_per_s']:,.0f} decisions/s, "
            f"{p['hands_per_s']:,.0f} hands/s (random play, Python loop)"
        )

    rows = []
    for n in players:
        for b in batches:
            for picker in a.pickers.split(","):
                rows.append(measure(n, b, picker, a.reps))
                print(f"  done N={n} batch={b} picker={picker}", file=sys.stderr, flush=True)
    peer_rate = peers[RATIO_PEER]["decisions_per_s"] if RATIO_PEER in peers else None
    for r in rows:
        r["ratio_vs_oh_hell"] = r["decisions_per_s"] / peer_rate if peer_rate else None
    print()
    print(format_table(rows, peer_rate))
    print(
        "\npicker: bits = k-th member of state.legal_set, carried to the next scan iteration"
        "\n(times the engine); mask = k-th True of legal_action_mask via cumsum/argmax, exactly"
        "\nas the contract check (on XLA:CPU that picker costs more than the step itself)."
        f"\nBest of {a.reps} runs after compile + warm-up, 5N+2 steps per run; vs oh_hell ="
        "\ndecisions/s over pyspiel oh_hell's decisions/s, measured in the same process."
    )
    result = {"machine": info, "peers": peers, "rows": rows}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    main()
