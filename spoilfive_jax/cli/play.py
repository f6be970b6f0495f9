"""``spoilfive play``: a hand, a session or a whole game against bots in the terminal."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from spoilfive_jax.cli.errors import int_at_least
from spoilfive_jax.cli.options import add_game_options, check_seat, env_from_args
from spoilfive_jax.cli.policies import builtin_or_agent
from spoilfive_jax.core import capabilities as caps


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="play against bots in the terminal",
        description="Play against bots, typing cards as 5H, 10h or 10♥.  Spoil Five: a hand, or "
        "a session of --hands hands (the deal passing left, spoiled pots carried); the "
        "Forty-Five family: a whole game (or --hands hands of it).",
    )
    p.add_argument("--seat", type=int_at_least(0), default=0, help="your seat (default 0)")
    p.add_argument(
        "--bots",
        help="a built-in policy of the game, best (the strongest bot), pimc[:K] (the search bot) "
        "or agent:PATH (default: "
        "the game's strongest built-in, heuristic)",
    )
    p.add_argument(
        "--hands",
        type=int_at_least(1),
        help="Spoil Five: hands in the session (default 1); the Forty-Five family: at most this "
        "many hands of the game (default: until the game is over)",
    )
    p.add_argument("--dealer", type=int_at_least(0), default=0, help="first dealer's seat")
    p.add_argument("--seed", type=int_at_least(0), default=0)
    add_game_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    env = env_from_args(args)
    check_seat("--seat", args.seat, env.num_players)
    check_seat("--dealer", args.dealer, env.num_players)
    name = args.bots or env.policy_names[-1]
    env.capability(caps.TerminalPlay, "play").play_terminal(
        env,
        sys.stdin,
        sys.stdout,
        human=args.seat,
        bots=builtin_or_agent(name, env),
        bots_name=name,
        hands=args.hands,
        dealer=args.dealer,
        seed=args.seed,
    )
    return 0
