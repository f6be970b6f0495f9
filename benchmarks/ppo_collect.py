"""PPO's collection alone: decisions a second of the data-gathering half of ``rl.ppo.update``
(``ppo._collect``: the network picks the learner's action, the opponents play through
``env.step`` until the learner is to act again, finished hands are dealt anew), without the
learning half, for every game at its default table.

A small network (``--hidden``, default 64 x 64) so that the engine's share shows; 256 tables x
16 learner decisions a call, the shipped agents' shape.  Each figure is the best of ``--reps``
calls after a compile call.  Printed: learner decisions a second (the transitions PPO learns
from; the opponents' decisions in between come with them) and the time of a call.  Nothing is
asserted.

    python benchmarks/ppo_collect.py --json benchmarks/results/ppo_collect.json
    python benchmarks/ppo_collect.py --games spoil_five --reps 3

To compare with another commit, run this file with that commit's package first on the path,
each run under its own ``--label`` and ``--merge``d into one JSON (a row per game and label,
the faster where a label's game is measured again, so runs can alternate; ``scripts/docs.py``
shows one column a label): it reads only ``PPOConfig``, ``init_runner``,
``_bot_policy``, ``_play_on`` and ``_collect``, which have not changed shape.

    PYTHONPATH=/path/to/old/checkout python benchmarks/ppo_collect.py --label before \
        --merge --json benchmarks/results/ppo_collect.json
    python benchmarks/ppo_collect.py --label after --merge \
        --json benchmarks/results/ppo_collect.json
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from typing import Any

import jax

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance

import spoilfive_jax as sf

GAMES = ("spoil_five", "forty_five", "twenty_five", "auction_forty_fives")


def measure(
    game: str, label: str, hidden: tuple[int, ...], envs: int, steps: int, reps: int
) -> dict[str, Any]:
    """One game's collection rates (module docstring)."""
    from spoilfive_jax.rl import ppo

    cfg = ppo.PPOConfig(
        game=game,
        num_players=sf.make(game).num_players,
        num_envs=envs,
        num_steps=steps,
        hidden=hidden,
    )
    runner = ppo.init_runner(cfg, jax.random.PRNGKey(0), 10)
    net = cfg.network
    bot = ppo._bot_policy(cfg, net, runner.params)

    @jax.jit
    def collect(params: Any, state: Any, key: jax.Array) -> tuple[Any, Any, Any]:
        start, _, _ = ppo._play_on(cfg, bot, key, state, None)
        return ppo._collect(cfg, net, params, bot, False, start, key)

    state, key = runner.state, runner.key
    state, key, _ = jax.block_until_ready(collect(runner.params, state, key))  # compiles
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        state, key, _ = jax.block_until_ready(collect(runner.params, state, key))
        best = min(best, time.perf_counter() - t0)
    return {
        "game": game,
        "label": label,
        "players": cfg.num_players,
        "learner_decisions_per_s": envs * steps / best,
        "seconds_per_call": best,
    }


def _merged_command(command: str) -> str:
    """The command of merged runs: ``command`` without its ``--games`` and ``--label``, saying
    the runs were merged by game and label."""
    words, kept, skip = shlex.split(command), [], False
    for w in words:
        if skip and not w.startswith("--"):
            continue
        skip = w in ("--games", "--label")
        if not skip:
            kept.append(w)
    return shlex.join(kept) + " (runs merged by game and label, the faster kept)"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    ap.add_argument("--hidden", type=int, nargs="+", default=[64, 64], help="layer widths")
    ap.add_argument("--envs", type=int, default=256, help="tables")
    ap.add_argument("--steps", type=int, default=16, help="learner decisions a table a call")
    ap.add_argument("--reps", type=int, default=5, help="timed calls (the best is kept)")
    ap.add_argument("--label", default="this checkout", help="the rows' label (a commit)")
    ap.add_argument("--json", default=None, help="write the rows here")
    ap.add_argument(
        "--merge", action="store_true", help="keep the other games' and labels' rows of --json"
    )
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    if args.merge and not args.json:
        ap.error("--merge needs --json FILE")
    rows = []
    for game in args.games:
        row = measure(game, args.label, tuple(args.hidden), args.envs, args.steps, args.reps)
        rows.append(row)
        print(
            f"  {game} ({args.label}): {row['learner_decisions_per_s']:,.0f} learner decisions/s "
            f"({row['seconds_per_call'] * 1e3:.1f} ms a call of {args.envs} x {args.steps})"
        )
    out = {"rows": rows, **provenance(__file__, sys.argv[1:] if argv is None else argv)}
    if args.merge and os.path.exists(args.json):
        with open(args.json, encoding="utf-8") as f:
            old = json.load(f)
        merged = {(r["game"], r["label"]): r for r in old["rows"]}
        for r in rows:  # a row measured again keeps the faster run (the best of all its calls)
            was = merged.get((r["game"], r["label"]))
            if was is None or r["learner_decisions_per_s"] > was["learner_decisions_per_s"]:
                merged[r["game"], r["label"]] = r
        out["rows"] = list(merged.values())
        out["command"] = _merged_command(out["command"])
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    return out


if __name__ == "__main__":
    main()
