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
best) seeing every hand (``see_all=True``) against the fair one, and with ``--solver`` the true
upper bound, ``solver, sees all``: every decision of its seats the exact solve of the real deal
(``sf.pimc(env, 1, see_all=True, solve_tricks="all")``: minimax for the partnership, paranoid
in Spoil Five), against the strongest fair player (best, else pimc).  Left out by default: a
Spoil Five decision solves the whole hand of five seats.

OpenSpiel's Python ISMCTS (``--ismcts SIMS`` simulations a decision, random rollouts, worlds
from the game's exact resampler; left out by default) plays every other player too,
outside the batched rollouts: one state at a time through ``spoilfive_jax.openspiel``, the
other player a ``PolicyBot``, ISMCTS seated as player A above over ``--ismcts-deals`` fresh
deals of its own (OpenSpiel's chance nodes), rows ``ismcts vs X``.  It needs the ``openspiel``
extra.  ``ismcts_baseline.py`` plays it at equal time a decision instead.

    python benchmarks/ladder.py --hands 500 --json benchmarks/results/ladder.json
    python benchmarks/ladder.py --games spoil_five --hands 200
    python benchmarks/ladder.py --games spoil_five --hands 500 \
        --json benchmarks/results/ladder.json --merge   # replaces that game's pairs only
    python benchmarks/ladder.py --games forty_five --only best --hands 500 \
        --json benchmarks/results/ladder.json --merge   # best's pairs, the others kept
    python benchmarks/ladder.py --only ismcts --ismcts 32 --ismcts-deals 40 \
        --json benchmarks/results/ladder.json --merge   # ISMCTS against every player
    python benchmarks/ladder.py --games forty_five twenty_five auction_forty_fives \
        --only solver --solver --hands 256 \
        --json benchmarks/results/ladder.json --merge   # the family's true bounds
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
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
ISMCTS = "ismcts"  # (the outside baseline's name in the ladder)
SOLVER = "solver"  # (the true bound's player: ``--only solver``)
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


def ladder(
    game: str,
    hands: int,
    seed: int,
    only: str | None = None,
    ismcts: int = 0,
    ismcts_deals: int = 40,
    solver: bool = False,
) -> dict[str, Any]:
    """Every pair of ``game``'s players (``only``: those that include that player), ISMCTS
    (``ismcts`` simulations a decision; 0: none) against each of them, then the cheating
    bounds (``only``: that player's), the true bound last (``solver``)."""
    env = sf.make(game)
    entrants = players(env)
    known = [*entrants, *([ISMCTS] if ismcts else []), *([SOLVER] if solver else [])]
    if only is not None and only not in known:
        raise ValueError(f"{game} has no player {only!r} in the ladder ({', '.join(known)})")
    pairs = []
    for a, b in itertools.combinations(entrants, 2):
        if only is not None and only not in (a, b):
            continue
        r = match(env, entrants[b], entrants[a], hands, seed)  # the later (stronger) one as A
        pairs.append({"a": b, "b": a, **r})
        _report(game, b, a, r)
    for name, player in entrants.items() if ismcts else ():
        if only is not None and only not in (name, ISMCTS):
            continue
        r = ismcts_match(env, player, ismcts, ismcts_deals, seed)
        pairs.append({"a": ISMCTS, "b": name, **r})
        _report(game, ISMCTS, name, r)
    for name, cheat_bot, fair in bounds(env, entrants, solver):
        if only is not None and only != name:
            continue
        cheat = match(env, cheat_bot, entrants[fair], hands, seed)
        pairs.append({"a": f"{name}, sees all", "b": fair, **cheat})
        _report(game, f"{name}, sees all", fair, cheat)
    unit = env.capability(sf.capabilities.Rollouts).score_unit(env)
    return {"game": game, "players": env.num_players, "unit": unit, "pairs": pairs}


def bounds(env: Any, entrants: dict[str, Any], solver: bool) -> list[tuple[str, Any, str]]:
    """(name, the bot seeing every hand, the fair player it meets): pimc's and best's cheating
    bounds (each against itself), then with ``solver`` the true bound against the strongest."""
    out = [("pimc", sf.pimc(num_samples=64, see_all=True), "pimc")]
    if "best" in entrants:
        out.append(("best", sf.best_policy(env, see_all=True), "best"))
    if solver:
        exact = sf.pimc(env, 1, see_all=True, solve_tricks="all", name=SOLVER)
        out.append((SOLVER, exact, "best" if "best" in entrants else "pimc"))
    return out


def ismcts_match(env: Any, player: Any, simulations: int, deals: int, seed: int) -> dict[str, Any]:
    """OpenSpiel's ISMCTS against ``player`` (a policy spec, played by a ``PolicyBot``) in
    ``env``'s game, seated as ``match`` seats A (one seat among the player's, or a
    partnership) over ``deals`` fresh deals: the ISMCTS seats' result a hand minus the
    others' mean."""
    import pyspiel
    from ismcts_baseline import tournament

    import spoilfive_jax.openspiel as sfo

    game = pyspiel.load_game(f"python_{env.id}", {"players": env.num_players})
    rng = np.random.default_rng(seed)
    orders = [rng.permutation(game.max_chance_outcomes()) for _ in range(deals)]
    t0 = time.perf_counter()
    bot = sfo.ismcts_bot(game, simulations, seed=seed)
    r = tournament(game, bot, sfo.PolicyBot(game, player, seed=seed), orders)
    return {
        "diff": r["diff"],
        "diff_ci": r["diff_ci"],
        "hands": r["hands"],
        "seconds": time.perf_counter() - t0,
        "simulations": simulations,
        "ismcts_ms": r["ismcts_ms"],
    }


def _report(game: str, a: str, b: str, r: dict[str, Any]) -> None:
    print(
        f"{game:>20} {a:>15} vs {b:<9} {r['diff']:>+8.3f} ± {r['diff_ci']:.3f} "
        f"({r['hands']:,} hands, {r['seconds']:.0f} s)",
        flush=True,
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    ap.add_argument("--hands", type=int, default=1000, help="deals a pair (each seating)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--ismcts",
        type=int,
        default=0,
        metavar="SIMS",
        help="also OpenSpiel's ISMCTS with SIMS (>= 2) simulations a decision against every "
        "player (needs the openspiel extra; the docs' rows: 32; default 0: left out)",
    )
    ap.add_argument("--ismcts-deals", type=int, default=40, help="deals of each ISMCTS pair")
    ap.add_argument(
        "--solver",
        action="store_true",
        help="also the true bound: every decision the exact solve of the real deal, against "
        "best (else pimc); left out by default (slow in Spoil Five)",
    )
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
    if args.merge and not args.json:  # (without a file the run's figures would be kept nowhere)
        ap.error("--merge keeps the other rows of --json FILE: give --json FILE")
    if args.ismcts < 0 or args.ismcts == 1:
        ap.error(f"--ismcts must be 0 (none) or at least 2 simulations, got {args.ismcts}")
    if args.ismcts and args.ismcts_deals < 2:
        ap.error(f"--ismcts-deals must be at least 2, got {args.ismcts_deals}")
    if args.ismcts and importlib.util.find_spec("pyspiel") is None:
        ap.error("--ismcts needs OpenSpiel (pip install 'spoilfive-jax[openspiel]'), or --ismcts 0")
    if args.only == ISMCTS and not args.ismcts:
        ap.error("--only ismcts needs --ismcts SIMS")
    if args.only == SOLVER and not args.solver:
        ap.error("--only solver needs --solver")
    known = ({ISMCTS} if args.ismcts else set()) | ({SOLVER} if args.solver else set())
    lacking = [
        g for g in args.games if args.only and args.only not in known | set(players(sf.make(g)))
    ]
    if lacking:  # (before hours of the other games' pairs)
        ap.error(f"--only {args.only}: {', '.join(lacking)} has no such player in the ladder")
    result: dict[str, Any] = provenance(__file__, sys.argv[1:] if argv is None else argv)
    result["games"] = [
        ladder(g, args.hands, args.seed, args.only, args.ismcts, args.ismcts_deals, args.solver)
        for g in args.games
    ]
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
