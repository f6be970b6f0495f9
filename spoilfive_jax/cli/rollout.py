"""``spoilfive rollout``: play many hands and summarise them (table, JSON, CSV, plot)."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from spoilfive_jax.cli.errors import CliError, int_at_least
from spoilfive_jax.cli.options import add_game_options, check_seat, env_from_args
from spoilfive_jax.cli.output import (
    add_output_options,
    check_outputs,
    show_report,
    table_wanted,
    words,
    write_csv,
    write_json,
)
from spoilfive_jax.cli.policies import seat_policies
from spoilfive_jax.cli.progress import Progress

POLICY_HELP = (
    "a built-in policy of the game (spoil_five: random, heuristic; the Forty-Five family: "
    "random, greedy, heuristic), pimc or pimc:K (the search bot, K samples a decision) or "
    "agent:PATH (.npz/.msgpack, extra [rl]); one, or one per seat with commas"
)


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "rollout",
        help="play many hands and summarise them",
        description="Play many independent hands (every seat deals the same way) and summarise "
        "them per seat: win rates, spoils, jinks and chips (Spoil Five), points, tricks and teams "
        "(the Forty-Five family).",
    )
    p.add_argument("--hands", type=int_at_least(1), default=100_000, help="hands to play")
    p.add_argument("--policy", help=f"{POLICY_HELP} (default: heuristic; the family: random)")
    p.add_argument("--batch", type=int_at_least(1), help="hands played at once")
    p.add_argument("--seed", type=int_at_least(0), default=0)
    p.add_argument("--dealer", type=int_at_least(0), default=0, help="seat that deals")
    p.add_argument(
        "--carried",
        type=int_at_least(0),
        default=None,
        help="chips carried in (Spoil Five's pot; passed on only when given)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_game_options(p)
    add_output_options(p)
    p.add_argument(
        "--per-hand",
        action="store_true",
        help="--json/--csv: one record per hand (keeps every hand in memory; without it, and "
        "without --plot, the hands are summarised as they are played, in memory that does not "
        "grow with --hands)",
    )
    p.add_argument(
        "--plot",
        metavar="FILE.png",
        help="the game's figure of the rollout (needs matplotlib: extra [plot]); .png, .pdf, "
        ".svg, ...",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import spoilfive_jax as sf

    env = env_from_args(args)
    n = env.num_players
    policies, names = seat_policies(args.policy, env)
    if args.per_hand and args.json is None and args.csv is None:
        raise CliError("--per-hand needs --json or --csv")
    check_outputs(args)
    check_seat("--dealer", args.dealer, n)
    # Only --per-hand output and the plot (the distribution of chip results) need the hands:
    # otherwise the run streams, in memory that does not grow with --hands.
    per_hand = args.per_hand or bool(args.plot)
    with Progress("rollout", args.hands, not args.quiet) as progress:
        result = sf.rollout(
            args.seed,
            env,
            policies,
            args.hands,
            args.batch,
            progress,
            dealer=args.dealer,
            per_hand=per_hand,
            **({} if args.carried is None else {"carried": args.carried}),
        )
    summary = result.summary()
    meta = {
        "game": env.id,
        "players": n,
        "rules": words(env).rules_in_force(env),
        "policies": names,
        "seed": args.seed,
        "dealer": args.dealer,
        "carried": args.carried or 0,
    }
    if args.json is not None:
        if args.per_hand:
            write_json(args.json, {**meta, "hands": per_hand_records(env, result)}, "hands")
        else:
            write_json(args.json, {**meta, **summary, "seconds": result.seconds})
    if args.csv is not None:
        header, rows = (
            per_hand_rows(env, result)
            if args.per_hand
            else words(env).summary_rows(env, summary, names)
        )
        write_csv(args.csv, header, rows)
    if args.plot:
        import matplotlib  # an optional extra: loaded only when a plot is asked for

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        words(env).plot_rollout(plt, env, result, names, args.plot)
    if table_wanted(args):
        show_report(words(env).rollout_report(env, summary, names, result.seconds))
        if args.plot:
            print(f"plot written to {args.plot}")
    return 0


def per_hand_rows(env: Any, result: Any) -> tuple[list[str], list[list[Any]]]:
    fields, block, _, prefix = words(env).per_hand_columns(env, result)
    header = ["hand", *fields]
    header += [f"{prefix}_{i}" for i in range(block.shape[1])]
    header += [f"tricks_{s}" for s in range(result.tricks_won.shape[1])]
    cols = [np.arange(result.num_hands)] + [getattr(result, f) for f in fields]
    table = np.column_stack(
        [np.asarray(c).astype(np.int64) for c in cols]
        + [block.astype(np.int64), result.tricks_won.astype(np.int64)]
    )
    return header, table.tolist()


def per_hand_records(env: Any, result: Any) -> list[dict[str, Any]]:
    fields, block, name, _ = words(env).per_hand_columns(env, result)
    records = []
    for h in range(result.num_hands):
        rec: dict[str, Any] = {"hand": h}
        for f in fields:
            value = getattr(result, f)[h]
            rec[f] = bool(value) if value.dtype == np.bool_ else int(value)
        rec[name] = block[h].astype(int).tolist()
        rec["tricks"] = result.tricks_won[h].tolist()
        records.append(rec)
    return records
