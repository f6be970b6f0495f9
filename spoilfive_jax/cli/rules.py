"""``spoilfive rules``: the chosen game's rule options in words and its card ranking."""

from __future__ import annotations

import argparse
from typing import Any

from spoilfive_jax.cli.errors import CliError
from spoilfive_jax.cli.options import add_game_options, env_from_args
from spoilfive_jax.cli.output import words
from spoilfive_jax.core.cards import SUIT_SYMBOLS, SUITS

SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "rules",
        help="card ranking and rule options",
        description="Print what the chosen rule options mean and the card ranking for a trump "
        "suit (all four without SUIT).",
    )
    # Read as text and checked after parsing, so an unknown option before it (``--players 4``)
    # is reported by name rather than as a bad suit.
    p.add_argument("suit", nargs="?", help="trump suit: C, D, H or S (or clubs, ♣, ...)")
    add_game_options(p, players=False)
    p.set_defaults(run=run)


def suit_index(text: str) -> int:
    t = text.strip().lower()
    for i, (letter, name, symbol) in enumerate(zip(SUITS, SUIT_NAMES, SUIT_SYMBOLS, strict=True)):
        if t in (letter.lower(), name, name[:-1], symbol):
            return i
    raise CliError(f"rules: unknown suit {text!r}; use C, D, H or S (or clubs, ...)")


def run(args: argparse.Namespace) -> int:
    suit = None if args.suit is None else suit_index(args.suit)
    env = env_from_args(args)
    print(words(env).rules_text(env, suit))
    return 0
