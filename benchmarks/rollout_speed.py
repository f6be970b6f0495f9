"""Rollout and scorer throughput: ``sf.rollout`` hands/s and decisions/s against batch size,
for N = 2, 5, 10 and the random and heuristic policies, with compile time and bytes per hand
in flight; ``sf.score_hands`` for 1,000 queries x 1,000 rollouts; and, when ``open_spiel`` is
installed, pyspiel's ``oh_hell`` (5 players, 5 tricks) random-play decisions/s measured in the
same process, as the ratio the project is judged by.  Prints a table (and --json); never
asserts a speed.

    python benchmarks/rollout_speed.py            # full table (a few minutes on 2 cores)
    python benchmarks/rollout_speed.py --quick    # one small row per policy
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
import numpy as np

import spoilfive_jax as sf
from spoilfive_jax.games.spoil_five import fast

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # for throughput.py


def pyspiel_rate(seconds: float = 4.0) -> float | None:
    """Random-play decisions/s of pyspiel's oh_hell (5 players, 5 tricks), or None."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return None
    from throughput import pyspiel_rate as peer  # the same measurement as the step benchmark

    rate = peer("oh_hell", {"players": 5, "num_tricks_fixed": 5}, seconds)
    return float(rate["decisions_per_s"])


def bytes_in_flight(num_players: int) -> int:
    """Bytes of the rollout kernel's per-hand state (hands, status, table, chosen action)."""
    rules = sf.spoil_five.Rules()
    cards = [jnp.zeros(1, jnp.int32)] * (5 * num_players + 1)
    shapes = jax.eval_shape(
        lambda: fast.deal_cards(
            cards, jnp.zeros(1, jnp.int32), jnp.zeros(1, jnp.int32), num_players, rules
        )
    )
    return sum(x.dtype.itemsize * int(np.prod(x.shape)) for x in jax.tree.leaves(shapes)) + 4


def time_rollout(n: int, policy: str, batch: int, hands: int, reps: int) -> dict[str, Any]:
    env = sf.spoil_five.SpoilFive(n)
    t0 = time.perf_counter()
    out = sf.rollout(0, env, policy, num_hands=batch, batch_size=batch)
    compile_s = time.perf_counter() - t0
    best = float("inf")
    for i in range(reps):
        t0 = time.perf_counter()
        out = sf.rollout(i + 1, env, policy, num_hands=hands, batch_size=batch)
        best = min(best, time.perf_counter() - t0)
    decisions = int(out.decisions.sum())
    return {
        "players": n,
        "policy": policy,
        "batch": batch,
        "hands": hands,
        "hands_per_s": hands / best,
        "decisions_per_s": decisions / best,
        "compile_s": compile_s,
        "bytes_per_hand": bytes_in_flight(n),
    }


def time_scorer(queries: int, rollouts: int) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    decks = np.stack([rng.permutation(52) for _ in range(queries)])
    hands, turnup = decks[:, :5], decks[:, 5]
    seat = rng.integers(0, 5, queries)
    sf.score_hands(0, hands[:2], turnup[:2], seat[:2], num_players=5, num_rollouts=rollouts)
    t0 = time.perf_counter()
    sf.score_hands(1, hands, turnup, seat, num_players=5, num_rollouts=rollouts)
    seconds = time.perf_counter() - t0
    return {"queries": queries, "rollouts": rollouts, "seconds": seconds}


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description="sf.rollout / sf.score_hands throughput")
    ap.add_argument("--players", default="2,5,10")
    ap.add_argument("--batch", default="4096,16384,65536")
    ap.add_argument("--policies", default="random,heuristic")
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="N=5, batch 4096, 100k hands")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--no-scorer", action="store_true")
    ap.add_argument("--json", help="write every row to this file")
    a = ap.parse_args(argv)
    if a.quick:
        a.players, a.batch, a.hands, a.reps = "5", "4096", 100_000, 1
    print(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"jax {jax.__version__} on {jax.default_backend()} ({jax.device_count()} device(s))"
    )
    rows = []
    head = (
        f"{'N':>3} {'policy':>9} {'batch':>7} {'hands/s':>12} {'decisions/s':>14} "
        f"{'compile s':>9} {'B/hand':>6}"
    )
    print(head)
    for n in (int(x) for x in a.players.split(",")):
        for policy in a.policies.split(","):
            for batch in (int(x) for x in a.batch.split(",")):
                r = time_rollout(n, policy, batch, max(a.hands, batch), a.reps)
                rows.append(r)
                print(
                    f"{n:>3} {policy:>9} {batch:>7} {r['hands_per_s']:>12,.0f} "
                    f"{r['decisions_per_s']:>14,.0f} {r['compile_s']:>9.1f} "
                    f"{r['bytes_per_hand']:>6}",
                    flush=True,
                )
    if not a.no_scorer:
        q, r = (100, 1000) if a.quick else (1000, 1000)
        s = time_scorer(q, r)
        rows.append(s)
        print(f"score_hands: {q} queries x {r} rollouts in {s['seconds']:.1f} s")
    peer = None if a.no_peers else pyspiel_rate(2.0 if a.quick else 4.0)
    if peer:
        print(f"pyspiel oh_hell random play: {peer:,.0f} decisions/s")
        for row in rows:
            if "decisions_per_s" in row:
                row["ratio_vs_pyspiel"] = row["decisions_per_s"] / peer
        best = {}
        for row in rows:
            if row.get("players") == 5:
                best[row["policy"]] = max(best.get(row["policy"], 0), row["ratio_vs_pyspiel"])
        for policy, ratio in best.items():
            print(f"5 players, {policy}: {ratio:,.0f}x pyspiel oh_hell (best batch)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"pyspiel_oh_hell": peer, "rows": rows}, f, indent=1)
    return rows


if __name__ == "__main__":
    main()
