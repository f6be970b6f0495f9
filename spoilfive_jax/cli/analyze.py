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
from spoilfive_jax.cli.policies import BEST, PIMC, resolve
from spoilfive_jax.cli.progress import status
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.cards import card_id, card_str
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


def read_states(
    env: Any, positions: list[tuple[str, str]], args: argparse.Namespace | None = None
) -> list[tuple[Any, Any]]:
    """(table, state) of each position; a one-line ``CliError`` naming the bad one, or a
    position whose table contradicts ``--players`` or the rule flags given in ``args``."""
    out = []
    for where, text in positions:
        try:
            table = env.capability(caps.Positions, "analyze").position_env(env, text)
            if args is not None:
                check_table_flags(where, table, env, args)
            positions_of = table.capability(caps.Positions, "analyze")
            out.append((table, positions_of.position_from_history(table, text)))
        except NotImplementedError as e:
            raise CliError(str(e)) from None
        except ValueError as e:
            raise CliError(f"{where}: {e}") from None
    return out


def check_table_flags(where: str, table: Any, env: Any, args: argparse.Namespace) -> None:
    """A position names its table (``players=``, ``rules=``); flags that say otherwise are a
    contradiction, refused as the command line refuses contradictory flags (the library
    refuses a position for another table the same way)."""
    players = getattr(args, "players", None)
    if players is not None and table.num_players != players:
        raise CliError(
            f"{where}: the position has {table.num_players} players but --players {players} "
            "was given; drop one of them"
        )
    if getattr(args, "rule_given", None) and table.rules != env.rules:
        flags = " ".join(flag for flag, _ in args.rule_given.values())
        raise CliError(
            f"{where}: the position's rules= differ from the rule flags given ({flags}); "
            "drop one of them"
        )


def run(args: argparse.Namespace) -> int:
    import spoilfive_jax as sf

    env = env_from_args(args)
    check_outputs(args)
    positions = read_positions(args)
    states = read_states(env, positions, args)
    spec = args.policy or env.policy_names[-1]
    if spec.strip().startswith(PIMC) or spec.strip() == BEST:
        raise CliError(
            f"--policy: {spec.strip()} cannot play out the samples (a search bot); use a "
            "built-in or agent:PATH"
        )
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
    write_outputs(args, spec, seconds, positions, results)
    if table_wanted(args):
        for (_, text), (table, res) in zip(positions, results, strict=True):
            columns, rows = res.cells()
            title = (
                f"{words(table).title(table)} · {words(table).table_text(table)} · "
                f"player {int(res.player)} to act · "
                f"{args.samples} samples a move · rollouts: {spec}\n"
                f"rules: {words(table).rules_line(table)}\n{text}"
            )
            show_table(Table(title, columns, rows))
    return 0


def machine_text(text: str) -> str:
    """An action's machine text (JSON and CSV, as everywhere): a card as ``card_str`` (``4♠`` ->
    ``4S``, ``10♦`` -> ``TD``, ``JK``); any other move as the game writes it (``PASS``)."""
    try:
        return card_str(card_id(text, joker=True))
    except ValueError:
        return text


def move_records(results: list[tuple[Any, Any]]) -> list[dict[str, Any]]:
    """One record a legal move of each position, best first: machine text for the move, and
    float32 values (written as their shortest decimals, not ``1.899999976158142``)."""
    records = []
    for i, (table, res) in enumerate(results):
        for rank, row in enumerate(res.rows(), 1):
            values = {k: np.float32(v) if isinstance(v, float) else v for k, v in row.items()}
            values["text"] = machine_text(row["text"])
            head = {"position": i + 1, "game": table.id, "player": int(res.player), "rank": rank}
            records.append(head | values)
    return records


def write_outputs(
    args: argparse.Namespace,
    spec: str,
    seconds: float,
    positions: list[tuple[str, str]],
    results: list[tuple[Any, Any]],
) -> None:
    """``--json`` (the run, the rules in force of each position's table, then the moves one a
    line) and ``--csv`` (the moves)."""
    records = move_records(results)
    if args.json is not None:
        data = {
            "samples": args.samples,
            "policy": spec,
            "seed": args.seed,
            "seconds": seconds,
            "positions": [text for _, text in positions],
            "rules": [words(table).rules_in_force(table) for table, _ in results],
            "moves": records,
        }
        write_json(args.json, data, "moves")
    if args.csv is not None:
        header = sorted({k for r in records for k in r}, key=list(records[0]).index)
        write_csv(args.csv, header, [[r.get(k) for k in header] for r in records])


__all__ = [
    "EXAMPLE",
    "add_parser",
    "check_table_flags",
    "machine_text",
    "move_records",
    "read_positions",
    "read_states",
    "run",
    "write_outputs",
]
