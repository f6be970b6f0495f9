"""``spoilfive score``: what hands are worth, by Monte Carlo (``sf.score_hands``).

Hands come from the command line or ``--file``: one hand a line, five cards (``5H``, ``10♦``,
``J♥``; ``JK`` with ``--joker``), then optionally the turn-up and the seat number; ``#`` starts
a comment.  The columns of the table and the records come from the game.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

import numpy as np

from spoilfive_jax.cli.errors import CliError, int_at_least
from spoilfive_jax.cli.options import add_game_options, env_from_args, names_text
from spoilfive_jax.cli.output import (
    add_output_options,
    check_outputs,
    show_report,
    table_wanted,
    words,
    write_records,
)
from spoilfive_jax.cli.policies import seat_policies
from spoilfive_jax.cli.rollout import POLICY_HELP
from spoilfive_jax.cli.runs import (
    INTERRUPTED,
    add_run_options,
    checkpoint_of,
    join,
    main_process,
    running,
    stopped,
)
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.cards import card_symbol

FILE_HELP = (
    "hands one per line: 5 cards [turn-up] [seat], e.g. '5H JH AH KD 2C 9H 2'; # starts a "
    "comment; - = stdin (UTF-8)"
)


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="win %%, spoil %% and expected chips (or points) of hands",
        description="Estimate what hands are worth by Monte Carlo: the seat gets its five cards "
        "and the turn-up, the unseen cards are dealt at random and the hand is played out.",
    )
    p.add_argument(
        "hands",
        nargs="*",
        metavar="HAND",
        help='five cards, e.g. "5H JH AH KD 2C" or "5♥ J♥ A♥ K♦ 10♣" (a sixth card is the turn-up)',
    )
    p.add_argument("--file", metavar="FILE", help=FILE_HELP)
    p.add_argument("--turnup", metavar="CARD", help="the turn-up (trump) card")
    p.add_argument(
        "--seat",
        type=int_at_least(0),
        default=1,
        help="the hand's seat: 0 = dealer, 1 = eldest (leads), ... (default 1)",
    )
    p.add_argument("--policy", help=f"{POLICY_HELP} (default: heuristic; the family: random)")
    p.add_argument("--rollouts", type=int_at_least(2), default=10_000, help="deals per hand")
    p.add_argument(
        "--threshold",
        type=int,
        metavar="POINTS",
        help="the Forty-Five family: report P(the seat's team scores >= POINTS) (default 15)",
    )
    p.add_argument("--batch", type=int_at_least(1))
    p.add_argument("--seed", type=int_at_least(0), default=0)
    add_game_options(p)
    add_output_options(p)
    add_run_options(p)
    p.set_defaults(run=run)


@dataclasses.dataclass(frozen=True)
class Query:
    hand: list[int]
    turnup: int  # -1: none (a game without a turn-up)
    seat: int
    source: str  # where it came from, for error messages


def _cards(env: Any, text: Any, source: str) -> list[int]:
    try:
        return words(env).read_cards(env, text)  # type: ignore[no-any-return]
    except ValueError as e:
        raise CliError(f"{source}: {e}") from None


def _scoring(env: Any) -> Any:
    """The game's hand scorer (``HandScoring``), or the one error naming the game."""
    return env.capability(caps.HandScoring, "spoilfive score")


def _query(env: Any, text: str, turnup: int | None, seat: int, source: str) -> Query:
    """Five cards, optionally a sixth (the turn-up) and a seat number, from one line."""
    tokens = text.replace(",", " ").split()
    numbers = [t for t in tokens if t.isdigit()]
    cards = _cards(env, [t for t in tokens if not t.isdigit()], source)
    if len(numbers) > 1:
        raise CliError(f"{source}: more than one seat number in {text.strip()!r}")
    if numbers:
        seat = int(numbers[0])
    if not _scoring(env).has_turnup(env):
        if len(cards) != 5:
            raise CliError(
                f"{source}: a hand has 5 cards ({words(env).title(env)} has no turn-up), "
                f"got {len(cards)} in "
                f"{text.strip()!r}"
            )
        turn = -1
    elif len(cards) == 6:
        cards, turn = cards[:5], cards[5]
        if turnup is not None and turnup != turn:
            raise CliError(
                f"{source}: the sixth card {card_symbol(turn)} is a turn-up, and --turnup gives "
                f"{card_symbol(turnup)}; give one of them"
            )
    elif len(cards) == 5 and turnup is not None:
        turn = turnup
    elif len(cards) == 5:
        raise CliError(f"{source}: no turn-up: give --turnup CARD or a sixth card")
    else:
        raise CliError(
            f"{source}: a hand has 5 cards (plus an optional turn-up), got {len(cards)} "
            f"in {text.strip()!r}"
        )
    shown = " ".join(card_symbol(c) for c in cards)
    dup = sorted({c for c in cards if cards.count(c) > 1})
    if dup:
        raise CliError(f"{source}: duplicate card {card_symbol(dup[0])} in {shown}")
    if turn in cards:
        raise CliError(f"{source}: the turn-up {card_symbol(turn)} is also in the hand {shown}")
    if turn == 52:
        raise CliError(
            f"{source}: the turn-up must be a card, not the joker (a turned-up joker goes to "
            "the dealer and the next card is turned up)"
        )
    n = env.num_players
    if not 0 <= seat < n:
        raise CliError(f"{source}: seat must be 0..{n - 1} for {n} players, got {seat}")
    return Query(cards, turn, seat, source)


def _file_lines(name: str) -> list[str]:
    """The lines of ``name`` (``-``: stdin), each decoded as UTF-8 on its own, so a bad byte is
    reported with the file and the line."""
    if name == "-":
        data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else None
        if data is None:  # a text stream without bytes (tests)
            return sys.stdin.read().splitlines()
    else:
        data = Path(name).read_bytes()
    lines = []
    for i, raw in enumerate(data.splitlines(), 1):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise CliError(
                f"{name}:{i}: not UTF-8 text (byte 0x{raw[e.start]:02x} at column {e.start + 1})"
            ) from None
    return lines


def read_queries(args: argparse.Namespace, env: Any) -> list[Query]:
    turnup = None
    if args.turnup is not None:
        if not _scoring(env).has_turnup(env):
            raise CliError(f"--turnup: {words(env).title(env)} has no turn-up")
        ids = _cards(env, args.turnup, "--turnup")
        if len(ids) != 1:
            raise CliError(f"--turnup takes one card, got {args.turnup!r}")
        turnup = ids[0]
    queries = [_query(env, h, turnup, args.seat, f"hand {i + 1}") for i, h in enumerate(args.hands)]
    if args.file:
        from_file = len(queries)
        for i, line in enumerate(_file_lines(args.file), 1):
            body = line.split("#", 1)[0].strip()
            if body:
                queries.append(_query(env, body, turnup, args.seat, f"{args.file}:{i}"))
        if len(queries) == from_file:  # it was given, so say what is wrong with it
            where = "stdin" if args.file == "-" else args.file
            raise CliError(f"--file: {where} holds no hands (only blank lines and # comments)")
    if not queries:
        raise CliError('give one or more hands, e.g. "5H JH AH KD 2C", or --file FILE')
    return queries


def run(args: argparse.Namespace) -> int:
    import spoilfive_jax as sf

    join(args)
    env = env_from_args(args)
    threshold = args.threshold
    default = _scoring(env).score_threshold(env)
    if threshold is not None and default is None:
        raise CliError(f"--threshold: --game {env.id} scores no points threshold")
    if threshold is None:
        threshold = default
    queries = read_queries(args, env)
    check_outputs(args)
    policies, names = seat_policies(args.policy, env)
    checkpoint = checkpoint_of(args, names)
    extra = {} if threshold is None else {"threshold": threshold}
    total = len(queries) * args.rollouts
    with running("score", total, "rollouts", args) as (progress, stop):
        scores = sf.score_hands(
            args.seed,
            np.array([q.hand for q in queries], np.int32),
            np.array([q.turnup for q in queries], np.int32)
            if _scoring(env).has_turnup(env)
            else None,
            np.array([q.seat for q in queries], np.int32),
            policy=policies,
            num_rollouts=args.rollouts,
            batch_size=args.batch,
            env=env,
            per_hand=False,  # (the output is per query: the rollouts stream)
            progress=progress,
            checkpoint=checkpoint,
            should_stop=stop,
            **extra,
        )
    if not main_process():  # (process 0 prints and writes the files)
        return 0 if progress.done == total else INTERRUPTED
    if progress.done < total:  # stopped: the queries whose rollouts all ran
        queries = queries[: progress.done // args.rollouts]
    if queries:
        report(args, env, queries, scores, names, extra, threshold)
    if progress.done < total:
        return stopped(progress.done, total, "rollouts", checkpoint)
    return 0


def report(
    args: argparse.Namespace,
    env: Any,
    queries: list[Query],
    scores: Any,
    names: list[str],
    extra: dict[str, Any],
    threshold: Any,
) -> None:
    """The ``--json``/``--csv`` records and the table of the scored queries."""
    meta = {
        "game": env.id,
        "players": env.num_players,
        "rules": words(env).rules_in_force(env),
        "policies": names,
        "rollouts": args.rollouts,
        **extra,
    }
    write_records(args, meta, _scoring(env).score_records(env, queries, scores))
    if table_wanted(args):
        heading = (
            f"{words(env).title(env)} · {words(env).table_text(env)} · {names_text(names)} play · "
            f"{args.rollouts:,} rollouts a hand · seat 0 deals, seat 1 leads"
        )
        show_report(_scoring(env).score_report(env, queries, scores, heading, threshold))
