"""Speed of the exact solver (``sf.solve``, ``games.forty_five.endgame.search_solve``) and of a
pimc decision on it.

For each game and table of ``CASES``, on hands at the first lead of their play (the whole
play left, 5 tricks), after the first trick (4 tricks left) and after the second (3 left):

- whole-hand solves a second with one world (each of the first ``--positions`` worlds of the
  batch solved alone, best of ``--reps``: one over their mean time, and the largest time: a
  world's tree, and so its time, varies many times from one deal to the next), and with a
  batch of 64 x 6 worlds (a pimc decision's: 64 worlds x up to 6 legal moves), after a
  compile run, best of ``--reps``;
- the children the search generates (mean and largest of the batch), against the full tree:
  the plain enumeration's leaves (``endgame.leaves``: the most a tree of that many plays can
  have) and, where it is small enough to search (``--full-limit``), the children of the search
  of every line of every legal card (``prune=False, distinct=False``), measured;
- a pimc decision of ``sf.pimc(env, 64, solve_tricks="all")`` at the first lead and at the
  trick's second seat, wall time after a compile run (best of ``--reps``), its mean and largest
  over ``--positions`` positions (a decision's time varies several times from one position to
  the next with the size of its worlds' trees: a single position's time misleads), and the
  time a decision of a vmapped batch of ``BATCHED`` decisions takes (as tournaments and
  rollouts call a bot: their worlds are searched as one batch).

Spoil Five (5 players, every seat for itself: the paranoid solve) searches some 15 times the
family's nodes on a whole hand, so its rows use 16 worlds and its pimc 4.

    python benchmarks/solve_speed.py --json benchmarks/results/solve_speed.json
    python benchmarks/solve_speed.py --quick          # one small table, small batches
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax as sf
from spoilfive_jax.core import search
from spoilfive_jax.games.forty_five import endgame, fast_playout
from spoilfive_jax.games.spoil_five import solve as spoil_five_solve
from spoilfive_jax.games.spoil_five import view

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance

CASES = (
    ("forty_five", 4),
    ("twenty_five", 4),
    ("auction_forty_fives", 4),
    ("forty_five", 2),
    ("spoil_five", 5),
)
QUICK = (("forty_five", 2),)
BATCHED = 8  # decisions of the vmapped pimc row (as a tournament or a rollout calls the bot)
FAMILY_PLAY, SPOIL_FIVE_PLAY = 6, 1  # the games' play phases (``state.phase``)


def at_the_play(env: sf.Env, count: int, tricks_done: int, seed: int) -> Any:
    """``count`` hands taken by the heuristic to the lead of trick ``tricks_done`` + 1."""
    act = jax.vmap(env.builtin_policy("heuristic"))
    step = jax.vmap(env.step)
    keys = jax.random.split(jax.random.PRNGKey(seed), count)
    play = SPOIL_FIVE_PLAY if env.id == "spoil_five" else FAMILY_PLAY

    @jax.jit
    def run() -> Any:
        def body(s: Any, _: Any) -> tuple[Any, None]:
            go = (s.phase != play) | (s.trick_num < tricks_done) | (s.current_player != s.leader)
            go = go & ~s.terminated
            new = step(s, act(keys, s, jnp.maximum(s.current_player, 0)))
            wide = lambda x: go.reshape(go.shape + (1,) * (x.ndim - 1))  # noqa: E731
            return jax.tree.map(lambda a, b: jnp.where(wide(a), a, b), new, s), None

        return jax.lax.scan(body, jax.vmap(env.init)(keys), None, length=env.max_decisions)[0]

    return run()


def best_time(fn: Callable[[], Any], reps: int) -> float:
    jax.block_until_ready(fn())
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        jax.block_until_ready(fn())
        best = min(best, time.perf_counter() - t0)
    return best


def solver(
    env: sf.Env, prune: bool = True, distinct: bool = True, tricks: int = 5
) -> Callable[..., Any]:
    """A jitted solve of ``tricks`` tricks left, with the transposition table a solve of that
    depth gets (``core.search.transpositions_for``, as ``sf.solve`` and pimc's)."""
    n, rules = env.num_players, env.rules
    size = search.transpositions_for(tricks * n)
    if env.id == "spoil_five":

        @jax.jit
        def run_spoil_five(states: Any, keys: jax.Array) -> tuple[jax.Array, jax.Array]:
            del keys  # (every decision is searched)
            table, h = view.to_fast(states, n)
            player = states.current_player
            value, _, nodes = spoil_five_solve.search_solve(
                h, table, player, n, rules, prune, distinct=distinct, transpositions=size
            )
            return value, nodes

        return run_spoil_five

    @jax.jit
    def run(states: Any, keys: jax.Array) -> tuple[jax.Array, jax.Array]:
        r = fast_playout.resume(states, fast_playout.chooser_of(keys, "heuristic", n), rules)
        player = states.current_player
        value, _, nodes = endgame.search_solve(
            r.play, r.table, player, n, rules, prune, distinct, transpositions=size
        )
        return value, nodes

    return run


def solve_rows(
    env: sf.Env, batch: int, reps: int, full_limit: int, positions: int
) -> list[dict[str, Any]]:
    rows = []
    n = env.num_players
    for tricks_done in (0, 1, 2):
        tricks = 5 - tricks_done
        states = at_the_play(env, batch, tricks_done, seed=tricks)
        keys = jax.random.split(jax.random.PRNGKey(0), batch)
        run = solver(env, tricks=tricks)
        alone = [  # (one program for every world: the shape is [1])
            best_time(functools.partial(run, jax.tree.map(lambda x, i=i: x[i : i + 1], states),
                                        keys[i : i + 1]), reps)
            for i in range(min(positions, batch))
        ]  # fmt: skip
        t_one = sum(alone) / len(alone)
        t_batch = best_time(functools.partial(run, states, keys), reps)
        _, nodes = jax.device_get(run(states, keys))
        row = {
            "game": env.id,
            "players": n,
            "tricks_left": tricks,
            "batch": batch,
            "one_world_positions": len(alone),
            "one_world_solves_per_s": 1 / t_one,
            "one_world_max_s": max(alone),
            "batch_s": t_batch,
            "batch_solves_per_s": batch / t_batch,
            "nodes_mean": float(nodes.mean()),
            "nodes_max": int(nodes.max()),
            "enumeration_leaves": None if env.id == "spoil_five" else endgame.leaves(tricks, n),
            "full_nodes_mean": None,
        }
        if row["enumeration_leaves"] is not None and endgame.leaves(tricks, n) <= full_limit:
            _, full = jax.device_get(solver(env, False, False, tricks)(states, keys))
            row["full_nodes_mean"] = float(full.mean())
        rows.append(row)
        print(
            f"  {env.id} {n}p, {tricks} tricks: one world {row['one_world_solves_per_s']:,.0f}/s "
            f"(mean of {len(alone)}, largest {max(alone) * 1e3:,.1f} ms), "
            f"{batch} worlds in {t_batch * 1e3:,.0f} ms; nodes mean {row['nodes_mean']:,.0f} "
            f"max {row['nodes_max']:,}",
            file=sys.stderr,
        )
    return rows


def pimc_rows(
    env: sf.Env, samples: int, reps: int, positions: int, batch: int = BATCHED
) -> list[dict[str, Any]]:
    """A pimc decision's wall time at ``positions`` positions of each kind (the first lead and
    the trick's second seat), each the best of ``reps`` after a compile run: their mean and
    largest (the worlds' trees, and so a decision's time, differ by several times from one
    position to the next), and a decision of a vmapped batch of ``batch``."""
    bot = sf.pimc(env, samples, solve_tricks="all")
    one, many = jax.jit(bot), jax.jit(jax.vmap(bot))
    act = env.builtin_policy("heuristic")
    rows = []
    count = max(positions, batch)
    for seat_in_trick in (0, 1):
        states = at_the_play(env, count, 0, seed=11)
        for _ in range(seat_in_trick):
            actions = jax.vmap(act)(jax.random.split(jax.random.PRNGKey(0), count), states,
                                    states.current_player)  # fmt: skip
            states = jax.vmap(env.step)(states, actions)
        key = jax.random.PRNGKey(1)
        times = []
        for i in range(positions):
            state = jax.tree.map(lambda x, i=i: x[i], states)
            times.append(best_time(functools.partial(one, key, state, state.current_player), reps))
        first = jax.tree.map(lambda x: x[:batch], states)
        keys = jax.random.split(key, batch)
        t_many = best_time(functools.partial(many, keys, first, first.current_player), 1)
        rows.append(
            {"game": env.id, "players": env.num_players, "samples": samples,
             "seat_in_trick": seat_in_trick, "positions": positions,
             "decision_s": sum(times) / positions, "decision_max_s": max(times),
             "batched": batch, "batched_decision_s": t_many / batch}
        )  # fmt: skip
        print(
            f"  {env.id}: pimc {samples}, seat {seat_in_trick}: {sum(times) / positions:.2f} s "
            f"a decision alone (mean of {positions} positions, largest {max(times):.2f} s), "
            f"{t_many / batch:.2f} s a decision in a batch of {batch}",
            file=sys.stderr,
        )
    return rows


def table(rows: list[dict[str, Any]], pimc: list[dict[str, Any]]) -> str:
    lines = [
        "| game | players | tricks left | one world, solves/s (worlds timed) | one world, "
        "ms (largest) | worlds | all solved, ms | nodes mean (max) | full tree: enumeration "
        "leaves | full tree, nodes searched |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        full = "n/a" if r["full_nodes_mean"] is None else f"{r['full_nodes_mean']:,.0f}"
        leaves = "n/a" if r["enumeration_leaves"] is None else f"{r['enumeration_leaves']:,}"
        largest = r.get("one_world_max_s")
        top = "n/a" if largest is None else f"{largest * 1e3:,.1f}"
        lines.append(
            f"| {r['game']} | {r['players']} | {r['tricks_left']} | "
            f"{r['one_world_solves_per_s']:,.0f} ({r.get('one_world_positions', 1)}) | {top} | "
            f"{r['batch']} | {r['batch_s'] * 1e3:,.0f} | "
            f"{r['nodes_mean']:,.0f} ({r['nodes_max']:,}) | {leaves} | {full} |"
        )
    lines += [
        "",
        "| game | players | pimc worlds | seat in the first trick | positions | decision, ms "
        "(mean) | decision, ms (largest) | a decision of a vmapped batch, ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in pimc:
        batched = r.get("batched_decision_s")
        cell = "n/a" if batched is None else f"{batched * 1e3:,.0f} (of {r['batched']})"
        largest = r.get("decision_max_s")
        top = "n/a" if largest is None else f"{largest * 1e3:,.0f}"
        lines.append(
            f"| {r['game']} | {r['players']} | {r['samples']} | {r['seat_in_trick'] + 1} | "
            f"{r.get('positions', 1)} | {r['decision_s'] * 1e3:,.0f} | {top} | {cell} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="one 2-player table, batch 8")
    ap.add_argument("--batch", type=int, default=384, help="worlds at once (64 x 6)")
    ap.add_argument("--samples", type=int, default=64, help="pimc's worlds a decision")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument(
        "--positions",
        type=int,
        default=8,
        help="positions a pimc row, and worlds a one-world solve, times (mean, largest)",
    )
    ap.add_argument("--full-limit", type=int, default=20_000, help="largest tree searched whole")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    cases = QUICK if a.quick else CASES
    batch, samples = (8, 4) if a.quick else (a.batch, a.samples)
    rows, pimc = [], []
    for game, n in cases:
        env = sf.make(game, num_players=n)
        # Spoil Five's paranoid whole hands search 40 times the family's nodes: fewer worlds.
        few = game == "spoil_five"
        positions = 2 if a.quick else a.positions
        rows += solve_rows(env, min(batch, 16) if few else batch, a.reps, a.full_limit, positions)
        if n == 4 or a.quick or few:
            pimc += pimc_rows(env, min(samples, 4) if few else samples, a.reps, positions)
    print(table(rows, pimc))
    argv = sys.argv[1:] if argv is None else argv
    result = {"rows": rows, "pimc": pimc, **provenance(__file__, argv)}
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    main()
