"""``spoilfive rollout``: play many hands and summarise them (table, JSON, CSV, plot), or write
every hand (``--per-hand``: CSV, JSON, Parquet), resumably (``--checkpoint``)."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import Any

from spoilfive_jax.cli.errors import CliError, int_at_least
from spoilfive_jax.cli.hands import CsvHands, JsonHands, ParquetHands, Writers
from spoilfive_jax.cli.options import add_game_options, check_seat, env_from_args
from spoilfive_jax.cli.output import (
    add_output_options,
    check_outputs,
    check_writable,
    show_report,
    table_wanted,
    words,
    write_csv,
    write_json,
)
from spoilfive_jax.cli.policies import seat_policies
from spoilfive_jax.cli.runs import (
    INTERRUPTED,
    add_run_options,
    checkpoint_of,
    join,
    main_process,
    running,
    stopped,
)

POLICY_HELP = (
    "a built-in policy of the game (spoil_five: random, heuristic; the Forty-Five family: "
    "random, greedy, heuristic), best (the strongest bot, sf.best_policy), pimc or pimc:K (the "
    "search bot, K samples a decision) or "
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
    add_game_options(p)
    add_output_options(p)
    p.add_argument(
        "--per-hand",
        action="store_true",
        help="--json/--csv/--parquet: one record per hand, written as the hands are played (in "
        "memory that does not grow with --hands; without it the hands are summarised)",
    )
    p.add_argument(
        "--parquet",
        metavar="FILE",
        help="with --per-hand: the hands as a Parquet file, one row group a chunk (needs pyarrow: "
        "extra [parquet])",
    )
    p.add_argument(
        "--plot",
        metavar="FILE.png",
        help="the game's figure of the rollout (needs matplotlib: extra [plot]); .png, .pdf, "
        ".svg, ...",
    )
    add_run_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    join(args)
    env = env_from_args(args)
    n = env.num_players
    policies, names = seat_policies(args.policy, env)
    check_per_hand(args)
    check_outputs(args)
    check_seat("--dealer", args.dealer, n)
    checkpoint = checkpoint_of(args, names)
    meta = {
        "game": env.id,
        "players": n,
        "rules": words(env).rules_in_force(env),
        "policies": names,
        "seed": args.seed,
        "dealer": args.dealer,
        "carried": args.carried or 0,
    }
    writer = hand_writer(args, env, meta, checkpoint) if args.per_hand else None
    result = play(args, env, policies, checkpoint, writer)
    if not main_process():  # (process 0 prints and writes the files)
        return 0 if result.num_hands == args.hands else INTERRUPTED
    summary = result.summary()
    if args.json is not None and not args.per_hand:
        write_json(args.json, {**meta, **summary, "seconds": result.seconds})
    if args.csv is not None and not args.per_hand:
        write_csv(args.csv, *words(env).summary_rows(env, summary, names))
    if args.plot:
        import matplotlib  # an optional extra: loaded only when a plot is asked for

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        words(env).plot_rollout(plt, env, result, names, args.plot)
    if table_wanted(args):
        show_report(words(env).rollout_report(env, summary, names, result.seconds))
        if args.plot:
            print(f"plot written to {args.plot}")
    if result.num_hands < args.hands:
        return stopped(result.num_hands, args.hands, "hands", checkpoint)
    return 0


def play(args: argparse.Namespace, env: Any, policies: Any, checkpoint: Any, writer: Any) -> Any:
    """The rollout: streamed (the summary pooled as the hands are played, the ``--per-hand``
    files written chunk by chunk; Ctrl-C stops after a chunk), or, for ``--plot`` (the figure
    needs every hand), kept in memory and the files written after."""
    import spoilfive_jax as sf

    options = {"dealer": args.dealer}
    if args.carried is not None:  # (passed on only when given)
        options["carried"] = args.carried
    run = (args.seed, env, policies, args.hands, args.batch)
    with running("rollout", args.hands, "hands", args, stoppable=not args.plot) as (bar, stop):
        if not args.plot:
            return sf.rollout(
                *run,
                bar,
                per_hand=False,
                checkpoint=checkpoint,
                writer=writer,
                should_stop=stop,
                **options,
            )
        result = sf.rollout(*run, bar, per_hand=True, **options)
    if writer is not None and main_process():
        write_result(writer, result)
    return result


def check_per_hand(args: argparse.Namespace) -> None:
    """``--per-hand`` needs a file (``--json``, ``--csv`` or ``--parquet``); ``--parquet``
    needs ``--per-hand`` and pyarrow; ``--checkpoint`` cannot resume ``--plot`` (its hands
    are in memory) nor per-hand records on stdout."""
    if args.per_hand and args.json is None and args.csv is None and args.parquet is None:
        raise CliError("--per-hand needs --json, --csv or --parquet")
    if args.parquet is not None:
        if not args.per_hand:
            raise CliError("--parquet writes one row per hand: give --per-hand too")
        if importlib.util.find_spec("pyarrow") is None:
            raise CliError("--parquet needs pyarrow: pip install 'spoilfive-jax[parquet]'")
        if Path(args.parquet).suffix.lower() not in (".parquet", ".pq"):
            raise CliError(
                f"--parquet: name a file ending in .parquet or .pq (got {args.parquet!r})"
            )
        check_writable("--parquet", args.parquet)
    if args.checkpoint is not None and args.plot:
        raise CliError(
            "--checkpoint cannot resume --plot (the figure needs every hand in memory); give one"
        )
    if args.checkpoint is not None and args.per_hand and "-" in (args.json, args.csv):
        raise CliError("--checkpoint cannot resume per-hand records on stdout; give a FILE")


def hand_writer(args: argparse.Namespace, env: Any, meta: dict[str, Any], checkpoint: Any) -> Any:
    """The ``--per-hand`` files as one writer (``cli.hands``)."""
    writers: list[Any] = []
    if args.json is not None:
        writers.append(JsonHands(args.json, env, meta))
    if args.csv is not None:
        writers.append(CsvHands(args.csv, env))
    if args.parquet is not None:
        parts = None if checkpoint is None else checkpoint.directory
        writers.append(ParquetHands(args.parquet, env, meta, parts))
    return Writers(writers)


def write_result(writer: Any, result: Any, size: int = 1 << 16) -> None:
    """Write a whole in-memory rollout through ``writer``, ``size`` hands at a time."""
    writer.open(None)
    try:
        for start in range(0, result.num_hands, size):
            writer.write(start, {f: v[start : start + size] for f, v in result.fields.items()})
        writer.finish(True)
    finally:
        writer.close()
