"""``spoilfive tournament``: policies against each other on the same deals (``sf.evaluate``)."""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from spoilfive_jax.cli.errors import CliError, int_at_least
from spoilfive_jax.cli.options import add_game_options, env_from_args
from spoilfive_jax.cli.output import (
    add_output_options,
    check_outputs,
    show_table,
    table_wanted,
    words,
    write_csv,
    write_json,
)
from spoilfive_jax.cli.policies import resolve
from spoilfive_jax.cli.runs import (
    INTERRUPTED,
    add_run_options,
    checkpoint_of,
    join,
    main_process,
    running,
    stopped,
)
from spoilfive_jax.core.present import Table


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "tournament",
        help="policies against each other",
        # a description is printed as written (no %-formatting): 95% here, not 95%%
        description="Seat the policies round the table in every rotation on the same deals; "
        "report chips (or points) per hand with 95% confidence intervals.",
    )
    p.add_argument(
        "policies",
        nargs="*",
        default=None,
        metavar="POLICY",
        help="built-in policies of the game, best (the strongest bot), pimc[:K] (the search bot) "
        "or agent:PATH (default: "
        "the game's strongest built-in and random: heuristic random)",
    )
    p.add_argument("--hands", type=int_at_least(2), default=20_000, help="deals per seating")
    p.add_argument("--batch", type=int_at_least(1))
    p.add_argument("--seed", type=int_at_least(0), default=0)
    add_game_options(p)
    add_output_options(p)
    add_run_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import spoilfive_jax as sf

    join(args)
    env = env_from_args(args)
    given = args.policies or [env.policy_names[-1], "random"]
    names = [p.strip() for p in given]
    if len(names) < 2:
        raise CliError("a tournament needs at least two policies")
    if len(set(names)) != len(names):
        raise CliError(f"each policy may appear once, got {' '.join(names)}")
    check_outputs(args)
    cache: dict[str, Any] = {}
    policies = {name: resolve(name, env, cache) for name in names}
    checkpoint = checkpoint_of(args, names)
    start = time.perf_counter()
    with running("tournament", args.hands, "deals", args) as (progress, stop):
        result = sf.evaluate(
            args.seed,
            env,
            policies,
            args.hands,
            args.batch,
            per_hand=False,  # (the output is per policy: the deals stream)
            progress=progress,
            checkpoint=checkpoint,
            should_stop=stop,
        )
    seconds = time.perf_counter() - start
    if not main_process():  # (process 0 prints and writes the files)
        return 0 if result.hands == args.hands else INTERRUPTED
    report(args, env, result, seconds)
    if result.hands < args.hands:
        return stopped(result.hands, args.hands, "deals", checkpoint)
    return 0


def report(args: argparse.Namespace, env: Any, result: Any, seconds: float) -> None:
    """The ``--json``/``--csv`` records and the table of a tournament's result."""
    unit = result.unit
    records = [
        {
            "policy": name,
            f"mean_{unit}": result.mean_reward[i],
            "ci95": result.ci95[i],
            "win_rate": result.win_rate[i],
        }
        for i, name in enumerate(result.names)
    ]
    if args.json is not None:
        data = {
            "game": env.id,
            "players": env.num_players,
            "rules": words(env).rules_in_force(env),
            "deals": result.hands,
            "seatings": result.rotations,
            "seconds": seconds,
            "policies": records,
        }
        write_json(args.json, data)
    if args.csv is not None:
        header = list(records[0])
        write_csv(args.csv, header, [[r[k] for k in header] for r in records])
    if table_wanted(args):
        title = (
            f"{words(env).title(env)} · {result.hands:,} deals × {result.rotations} seatings · "
            f"{words(env).table_text(env)} · {seconds:.1f} s\nrules: {words(env).rules_line(env)}"
        )
        if words(env).tournament_note(env):
            title += "\n" + words(env).tournament_note(env)
        order = np.argsort(-result.mean_reward)
        rows = [
            [
                result.names[i],
                f"{result.mean_reward[i]:+.4f}",
                f"± {result.ci95[i]:.4f}",
                f"{100 * result.win_rate[i]:.2f}",
            ]
            for i in order
        ]
        show_table(Table(title, ["policy", f"{unit}/hand", "95% CI", "win %"], rows))
