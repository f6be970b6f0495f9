"""Random games a second through pyspiel: each OpenSpiel game of ``spoilfive_jax.openspiel`` at
its default table beside OpenSpiel's own Python ``kuhn_poker`` and ``liars_poker``, measured in
the same process.  Nothing is asserted.

A game here is one call of OpenSpiel's own ``pyspiel.random_sim_test`` (its C++ driver): a
random hand played through the Python game with, at every node, the legal actions of every
seat, the action strings, a clone and ``str`` of both, and at every decision each seat's
observation and information-state tensors and strings, the rewards and returns, the legal
mask, and a clone that takes the same action (``--serialize`` adds its serialization round
trip at the first ten nodes and every power of two).  After one warm-up game (the compiles)
and a short run that estimates the rate, each round makes one ``random_sim_test`` call a game
of about ``--seconds`` (its generator moves on within a call, so the games differ; every call
plays the same ones), the games in turn; the best round is reported, and the median beside.

    python benchmarks/openspiel_speed.py
    python benchmarks/openspiel_speed.py --seconds 20 --json benchmarks/results/openspiel_speed.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np
import pyspiel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance

PEERS = ("python_kuhn_poker", "python_liars_poker")
BASELINE = "python_liars_poker"


def calibrate(game: Any, seconds: float, serialize: bool) -> tuple[int, float]:
    """(games to a call of about ``seconds``, the first game's seconds: the compiles)."""
    first = _run(game, 1, serialize)
    one = _run(game, 1, serialize)
    probe = max(1, min(200, int(0.2 * seconds / max(one, 1e-6))))
    rate = probe / _run(game, probe, serialize)
    return max(2, int(rate * seconds)), first


def _run(game: Any, sims: int, serialize: bool) -> float:
    t0 = time.perf_counter()
    pyspiel.random_sim_test(game, num_sims=sims, serialize=serialize, verbose=False)
    return time.perf_counter() - t0


def measure(names: list[str], seconds: float, rounds: int, serialize: bool) -> list[dict[str, Any]]:
    """One row a game: its rate in each round (the games interleaved, so that a busy moment
    of the machine falls on all of them alike), the best and the median."""
    import open_spiel.python.games  # noqa: F401  (registers OpenSpiel's Python games)

    import spoilfive_jax.openspiel  # noqa: F401  (registers ours)

    games = {name: pyspiel.load_game(name) for name in names}
    rows = {}
    for name, game in games.items():
        sims, first = calibrate(game, seconds, serialize)
        rows[name] = {"game": name, "players": game.num_players(), "games": sims, "first_s": first}
        rows[name]["rates"] = []
    for r in range(rounds):
        for name, game in games.items():
            row = rows[name]
            row["rates"].append(row["games"] / _run(game, row["games"], serialize))
            print(f"  round {r + 1}: {name} {row['rates'][-1]:.1f} games/s", file=sys.stderr)
    for row in rows.values():
        row["games_per_s"] = max(row["rates"])
        row["median_games_per_s"] = float(np.median(row["rates"]))
    base = rows.get(BASELINE)
    for row in rows.values():
        row["x_liars_poker"] = None if base is None else row["games_per_s"] / base["games_per_s"]
    return list(rows.values())


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| game | players | games/s (best) | median | x liars_poker | first game (s) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        ratio = "" if r["x_liars_poker"] is None else f"{r['x_liars_poker']:.2f}"
        lines.append(
            f"| {r['game']} | {r['players']} | {r['games_per_s']:.1f} "
            f"| {r['median_games_per_s']:.1f} | {ratio} "
            f"| {r['first_s']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="a game's time in each round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds (the best is reported)")
    ap.add_argument(
        "--games",
        nargs="+",
        default=None,
        help="the games (default: kuhn_poker, liars_poker and every game of ours)",
    )
    ap.add_argument("--serialize", action="store_true", help="random_sim_test's serialize=True")
    ap.add_argument("--json", default=None, help="write the rows here")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1:
        ap.error(
            f"--seconds must be positive and --rounds at least 1, got {args.seconds}, {args.rounds}"
        )
    if args.games is None:
        import spoilfive_jax.openspiel as sfo

        args.games = [*PEERS, *sfo.GAMES]
    rows = measure(args.games, args.seconds, args.rounds, args.serialize)
    result = {"rows": rows, "serialize": args.serialize, **provenance(__file__, argv)}
    print(table(rows))
    print(f"\n{result['command']} ({result['date']}, {result['machine']})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return result


if __name__ == "__main__":
    main()
