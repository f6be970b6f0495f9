"""The bot ladder of every game: each pair of the project's players, head to head, with the
difference and its 95% interval.

Spoil Five (5 players): one seat of policy A among copies of B, rotated through every seat;
the family (4 players, two partnerships): A's partnership against B's, then swapped.  All the
seatings play the same deals (one key), so the difference is paired: A's result a hand minus
the other seats' mean, averaged over the seatings of each deal, with a 95% interval over deals
(``sf.rollout`` with a policy a seat; pimc through it too).  The players: ``random``,
``greedy`` (the family), ``heuristic``, the shipped PPO agent (``examples/agents``: Spoil
Five's ``ppo_seat.npz``, the family's ``<game id>_ppo.npz``),
``pimc`` (64 worlds, heuristic playouts) and ``best`` (``sf.best_policy``, where it is not
pimc itself: Spoil Five, Forty-Five, Twenty-Five); last, the cheating bound: the same pimc (and
best) seeing every hand (``see_all=True``) against the fair one.  OpenSpiel's ISMCTS, which plays
outside the batched rollouts, has its own table (``ismcts_baseline.py``).

    python benchmarks/ladder.py --hands 500 --json benchmarks/results/ladder.json
    python benchmarks/ladder.py --games spoil_five --hands 200
    python benchmarks/ladder.py --games spoil_five --hands 500 \
        --json benchmarks/results/ladder.json --merge   # replaces that game's pairs only
    python benchmarks/ladder.py --games forty_five --only best --hands 500 \
        --json benchmarks/results/ladder.json --merge   # best's pairs, the others kept
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import spoilfive_jax as sf
from spoilfive_jax.games.forty_five.agent import AGENTS_DIR

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import merged, provenance

GAMES = ("spoil_five", "forty_five", "twenty_five", "auction_forty_fives")
AGENTS = Path(__file__).resolve().parents[1] / "examples" / "agents"


def agent_file(game: str) -> Path:
    """The shipped agent of ``game`` (it may not exist): the package's own copy first."""
    packaged = Path(AGENTS_DIR) / f"{game}_ppo.npz"
    if packaged.is_file():
        return packaged
    return AGENTS / ("ppo_seat.npz" if game == "spoil_five" else f"{game}_ppo.npz")


def players(env: Any) -> dict[str, Any]:
    """The ladder's players for ``env``'s game, weakest first as far as known."""
    out: dict[str, Any] = {name: name for name in ("random", "greedy") if name in env.policy_names}
    out["heuristic"] = "heuristic"
    if agent_file(env.id).is_file():
        from spoilfive_jax.rl.agent import load_policy

        out["ppo"] = load_policy(str(agent_file(env.id)))
    out["pimc"] = sf.pimc(num_samples=64)
    best = sf.best_policy(env)
    if dataclasses.replace(best, name="") != sf.pimc(env, 64):  # (where best is not pimc itself)
        out["best"] = best
    return out


def seatings(env: Any) -> list[np.ndarray]:
    """bool[N] a seating: the seats policy A holds (one seat, or one partnership)."""
    n = env.num_players
    if env.id == "spoil_five":
        return [np.arange(n) == r for r in range(n)]
    return [np.arange(n) % 2 == r for r in range(2)]


def match(env: Any, a: Any, b: Any, hands: int, seed: int) -> dict[str, Any]:
    """A against B over ``hands`` deals, every seating on the same deals."""
    per_deal = np.zeros(hands)
    t0 = time.perf_counter()
    rows = seatings(env)
    for seats in rows:
        lineup = [a if s else b for s in seats]
        rewards = np.asarray(sf.rollout(seed, env, lineup, num_hands=hands).rewards, np.float64)
        per_deal += (rewards[:, seats].mean(1) - rewards[:, ~seats].mean(1)) / len(rows)
    return {
        "diff": float(per_deal.mean()),
        "diff_ci": float(1.96 * per_deal.std(ddof=1) / np.sqrt(hands)),
        "hands": hands * len(rows),
        "seconds": time.perf_counter() - t0,
    }


def ladder(game: str, hands: int, seed: int, only: str | None = None) -> dict[str, Any]:
    """Every pair of ``game``'s players (``only``: those that include that player), then the
    cheating bounds (``only``: that player's)."""
    env = sf.make(game)
    entrants = players(env)
    if only is not None and only not in entrants:
        raise ValueError(f"{game} has no player {only!r} in the ladder ({', '.join(entrants)})")
    pairs = []
    for a, b in itertools.combinations(entrants, 2):
        if only is not None and only not in (a, b):
            continue
        r = match(env, entrants[b], entrants[a], hands, seed)  # the later (stronger) one as A
        pairs.append({"a": b, "b": a, **r})
        print(
            f"{game:>20} {b:>9} vs {a:<9} {r['diff']:>+8.3f} ± {r['diff_ci']:.3f} "
            f"({r['hands']:,} hands, {r['seconds']:.0f} s)",
            flush=True,
        )
    # the cheating bound: the same bot seeing every hand, against the fair one
    cheats = {"pimc": sf.pimc(num_samples=64, see_all=True)}
    if "best" in entrants:
        cheats["best"] = sf.best_policy(env, see_all=True)
    for name, cheat_bot in cheats.items():
        if only is not None and only != name:
            continue
        cheat = match(env, cheat_bot, entrants[name], hands, seed)
        pairs.append({"a": f"{name}, sees all", "b": name, **cheat})
        print(
            f"{game:>20} {name} sees all vs {name} {cheat['diff']:>+8.3f} ± {cheat['diff_ci']:.3f}"
        )
    unit = env.capability(sf.capabilities.Rollouts).score_unit(env)
    return {"game": game, "players": env.num_players, "unit": unit, "pairs": pairs}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    ap.add_argument("--hands", type=int, default=1000, help="deals a pair (each seating)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument(
        "--merge", action="store_true", help="keep the other games of --json FILE, replace these"
    )
    ap.add_argument(
        "--only",
        metavar="PLAYER",
        help="only the pairs that include PLAYER and its cheating bound (with --merge the "
        "game's other pairs in --json FILE are kept)",
    )
    args = ap.parse_args(argv)
    lacking = [g for g in args.games if args.only and args.only not in players(sf.make(g))]
    if lacking:  # (before hours of the other games' pairs)
        ap.error(f"--only {args.only}: {', '.join(lacking)} has no such player in the ladder")
    result: dict[str, Any] = provenance(__file__, sys.argv[1:] if argv is None else argv)
    result["games"] = [ladder(g, args.hands, args.seed, args.only) for g in args.games]
    if args.merge and args.json and Path(args.json).is_file():
        old = json.loads(Path(args.json).read_text())
        if args.only:
            result["games"] = [_with_old_pairs(old, g, result["command"]) for g in result["games"]]
        result = merged(old, result, "games", lambda g: g["game"])
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return result


def _with_old_pairs(old: dict[str, Any], game: dict[str, Any], command: str) -> dict[str, Any]:
    """``game``'s new pairs in place of the same pairs of its entry in ``old`` (the others
    kept, each with the command that measured it), the cheating bounds last."""
    (before,) = [g for g in old["games"] if g["game"] == game["game"]] or [{"pairs": []}]
    for pair in before["pairs"]:
        pair.setdefault("command", before.get("command", old["command"]))
    for pair in game["pairs"]:
        pair["command"] = command
    fresh = {(p["a"], p["b"]): p for p in game["pairs"]}
    pairs = [fresh.pop((p["a"], p["b"]), p) for p in before["pairs"]] + list(fresh.values())
    pairs.sort(key=lambda p: "sees all" in p["a"])  # (stable: the fair pairs in order first)
    commands = dict.fromkeys(p["command"] for p in pairs)
    return {**game, "pairs": pairs, "command": "; ".join(commands)}


if __name__ == "__main__":
    main()
