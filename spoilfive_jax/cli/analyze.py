"""``spoilfive analyze``: every legal move of a position scored (``sf.analyze``).

A position is one line of text read by the game (``Env.position_env`` for its table,
``Positions.position_from_history`` for the state), e.g. for Spoil Five
``players=5; dealer=0; turnup=7D; player=1; hand=5D JH AH KC 4S; history=1:rob 2:QC``; so this
module never names a game.  ``--file`` reads one position a line (``#`` starts a comment).  An
impossible or inconsistent history is a one-line error naming the position.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

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
from spoilfive_jax.cli.policies import PIMC, resolve
from spoilfive_jax.cli.progress import status
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.present import Table

EXAMPLE = "players=5; dealer=0; turnup=7D; player=1; hand=5D JH AH KC 4S; history="


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "analyze",
        help="score every legal move of a position",
        description="Score every legal move of the player to act: the cards it cannot see are "
        "dealt uniformly over the deals consistent with the history, each move is played out "
        "with --policy at every seat, and the moves are listed best first with standard "
        f"errors.  Example position (Spoil Five): {EXAMPLE!r}.",
    )
    p.add_argument(
        "position",
        nargs="?",
        help="a position: players=N; dealer=S; rules=...; turnup=CARD; player=S; hand=CARDS; "
        "history=S:CARD S:rob S:pass ... (the game's format, README)",
    )
    p.add_argument("--file", help="positions, one a line ('#' starts a comment)")
    p.add_argument(
        "--samples", type=int_at_least(2), default=1000, help="samples per move (default 1000)"
    )
    p.add_argument(
        "--policy",
        help="the policy of every seat in the playouts: a built-in policy of the game or "
        "agent:PATH (default: the game's strongest built-in)",
    )
    p.add_argument("--batch", type=int_at_least(1), help="rollouts per compiled chunk")
    p.add_argument("--seed", type=int_at_least(0), default=0)
    p.add_argument("--quiet", action="store_true", help="no status line")
    add_game_options(p)
    add_output_options(p)
    p.set_defaults(run=run)


def read_positions(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(where, text) of each position: the argument, or the lines of ``--file``."""
    if (args.position is None) == (args.file is None):
        raise CliError("give one position or --file FILE")
    if args.position is not None:
        return [("the position", args.position)]
    path = Path(args.file)
    if not path.is_file():
        raise CliError(f"--file: no such file: {args.file}")
    out = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if text:
            out.append((f"{args.file}:{i}", text))
    if not out:
        raise CliError(f"--file: {args.file} holds no position")
    return out


def read_states(env: Any, positions: list[tuple[str, str]]) -> list[tuple[Any, Any]]:
    """(table, state) of each position; a one-line ``CliError`` naming the bad one."""
    out = []
    for where, text in positions:
        try:
            table = env.capability(caps.Positions, "analyze").position_env(env, text)
            positions_of = table.capability(caps.Positions, "analyze")
            out.append((table, positions_of.position_from_history(table, text)))
        except NotImplementedError as e:
            raise CliError(str(e)) from None
        except ValueError as e:
            raise CliError(f"{where}: {e}") from None
    return out


def run(args: argparse.Namespace) -> int:
    import spoilfive_jax as sf

    env = env_from_args(args)
    check_outputs(args)
    positions = read_positions(args)
    states = read_states(env, positions)
    spec = args.policy or env.policy_names[-1]
    if spec.strip().startswith(PIMC):
        raise CliError("--policy: pimc cannot play out the samples; use a built-in or agent:PATH")
    policies: dict[Any, Any] = {}
    cache: dict[str, Any] = {}
    results = []
    start = time.perf_counter()
    with status(
        f"analyze: {len(states)} position(s), {args.samples} samples a move", not args.quiet
    ):
        for table, state in states:
            if table not in policies:
                policies[table] = resolve(spec, table, cache)
            res = sf.analyze(args.seed, table, state, args.samples, policies[table], args.batch)
            results.append((table, res))
    seconds = time.perf_counter() - start
    records = []
    for i, (table, res) in enumerate(results):
        for rank, row in enumerate(res.rows(), 1):
            records.append(
                {"position": i + 1, "game": table.id, "player": int(res.player), "rank": rank} | row
            )
    if args.json is not None:
        data = {
            "samples": args.samples,
            "policy": spec,
            "seed": args.seed,
            "seconds": seconds,
            "positions": [text for _, text in positions],
            "moves": records,
        }
        write_json(args.json, data, "moves")
    if args.csv is not None:
        header = sorted({k for r in records for k in r}, key=list(records[0]).index)
        write_csv(args.csv, header, [[r.get(k) for k in header] for r in records])
    if table_wanted(args):
        for (_, text), (table, res) in zip(positions, results, strict=True):
            columns, rows = res.cells()
            title = (
                f"{words(table).title(table)} · {words(table).table_text(table)} · "
                f"player {int(res.player)} to act · "
                f"{args.samples} samples a move · rollouts: {spec}\n{text}"
            )
            show_table(Table(title, columns, rows))
    return 0


__all__ = ["EXAMPLE", "add_parser", "read_positions", "read_states", "run"]
