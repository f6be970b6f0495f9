"""Oh Hell's speed against OpenSpiel's: hands/s and decisions/s of random play.

Three paths at the same table (``--players``, ``--tricks``):

- ``public step``: one ``jax.jit`` of ``env.init`` and a ``lax.scan`` of ``env.max_decisions``
  steps of ``jax.vmap(env.step)`` over ``--batch`` hands, each action uniformly random among the
  legal ones (the built-in ``random`` policy);
- ``rollout``: ``sf.rollout`` of ``--hands`` hands with ``random`` at every seat (the base
  class's rollouts, through the public step);
- ``pyspiel``: ``oh_hell`` with the same players and tricks, stepped in a Python loop with
  uniformly random legal actions (chance outcomes too), for ``--seconds``.

Each JAX path is timed after a compile run, best of ``--reps``.  Prints a table and the ratios;
``--json FILE`` writes the figures.  ``measure()`` returns them (for ``benchmarks/tables.py``).
Never asserts a speed.

    python examples/oh_hell/bench_oh_hell.py --players 4 --tricks 5 --json out.json
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax as sf


def _step_loop(env: Any, batch: int) -> Any:
    policy = jax.vmap(env.builtin_policy("random"))
    step = jax.vmap(env.step)

    @jax.jit
    def run(key: jax.Array) -> jax.Array:
        deal, act = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(deal, batch))

        def body(state: Any, t: jax.Array) -> tuple[Any, jax.Array]:
            keys = jax.random.split(jax.random.fold_in(act, t), batch)
            live = (~state.terminated).sum()
            state = step(state, policy(keys, state, jnp.maximum(state.current_player, 0)))
            return state, live

        state, live = jax.lax.scan(body, state, jnp.arange(env.max_decisions))
        return live.sum() + state.rewards.sum() * 0  # decisions taken (rewards kept alive)

    return run


def _best(fn: Any, reps: int) -> tuple[float, Any]:
    out = fn(0)  # compile
    best = float("inf")
    for r in range(reps):
        start = time.perf_counter()
        out = fn(r + 1)
        best = min(best, time.perf_counter() - start)
    return best, out


def public_step(env: Any, batch: int, reps: int) -> dict[str, float]:
    run = _step_loop(env, batch)
    seconds, decisions = _best(lambda i: int(run(jax.random.PRNGKey(i))), reps)
    return {"hands_per_s": batch / seconds, "decisions_per_s": decisions / seconds}


def rollout(env: Any, hands: int, reps: int) -> dict[str, float]:
    seconds, result = _best(lambda i: sf.rollout(i, env, "random", hands), reps)
    return {"hands_per_s": hands / seconds, "decisions_per_s": result.decisions.sum() / seconds}


def pyspiel_rate(num_players: int, num_tricks: int, seconds: float) -> dict[str, float] | None:
    """Random play of pyspiel's oh_hell in Python: the best of 5 windows of ``seconds / 5``
    (as ``benchmarks/throughput.py`` measures it), or None without open_spiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("oh_hell", {"players": num_players, "num_tricks_fixed": num_tricks})
    rng = random.Random(0)
    best = {"hands_per_s": 0.0, "decisions_per_s": 0.0}
    for _ in range(5):
        hands = decisions = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds / 5:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                    decisions += 1
            hands += 1
        elapsed = time.perf_counter() - start
        if hands / elapsed > best["hands_per_s"]:
            best = {"hands_per_s": hands / elapsed, "decisions_per_s": decisions / elapsed}
    return best


def measure(
    num_players: int = 4,
    num_tricks: int = 5,
    batch: int = 4096,
    hands: int = 65536,
    reps: int = 3,
    seconds: float = 4.0,
) -> dict[str, Any]:
    """The three paths' figures and the ratios to pyspiel (None without open_spiel)."""
    env = sf.make("oh_hell", num_players=num_players, num_tricks=num_tricks)
    peer = pyspiel_rate(num_players, num_tricks, seconds)
    paths = {"public step": public_step(env, batch, reps), "rollout": rollout(env, hands, reps)}
    for figures in paths.values():
        figures["x_pyspiel"] = figures["hands_per_s"] / peer["hands_per_s"] if peer else None
    return {
        "game": "oh_hell",
        "players": num_players,
        "tricks": num_tricks,
        "batch": batch,
        "hands": hands,
        "devices": [str(d) for d in jax.devices()],
        "machine": platform.processor() or platform.machine(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "pyspiel": peer,
        "paths": paths,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--tricks", type=int, default=5)
    ap.add_argument("--batch", type=int, default=4096, help="hands of the public-step batch")
    ap.add_argument("--hands", type=int, default=65536, help="hands of a rollout")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0, help="pyspiel's timing window")
    ap.add_argument("--json", help="write the figures to this file")
    a = ap.parse_args()
    out = measure(a.players, a.tricks, a.batch, a.hands, a.reps, a.seconds)
    print(f"Oh Hell, {a.players} players, {a.tricks} tricks, random play ({out['devices'][0]})")
    print(f"{'path':<12} {'hands/s':>12} {'decisions/s':>14} {'x pyspiel':>10}")
    rows = [*out["paths"].items()] + ([("pyspiel", out["pyspiel"])] if out["pyspiel"] else [])
    for name, f in rows:
        ratio = f.get("x_pyspiel")
        shown = f"{ratio:>10.1f}" if ratio else f"{'':>10}"
        print(f"{name:<12} {f['hands_per_s']:>12,.0f} {f['decisions_per_s']:>14,.0f} {shown}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2)


if __name__ == "__main__":
    main()
