"""OpenSpiel's Python ISMCTS, an outside baseline, against the project's pimc bot at equal (and
larger) wall time a decision, on the OpenSpiel games of ``spoilfive_jax.openspiel``.

Spoil Five (seed rules): one ISMCTS seat among copies of the opponent (``sf.pimc``, 64 worlds,
heuristic playouts, unless ``--against``: ``best`` is ``sf.best_policy``), rotated through every
seat over the same deals (fresh deals from one seed).  ``--game forty_five`` or
``twenty_five`` (4 players): an ISMCTS partnership against the opponent's, swapped over the
same deals.  First the opponent's own cost a decision is measured in the same harness (a
``PolicyBot`` stepping one OpenSpiel state at a time); then ISMCTS (random rollouts, worlds
from the game's exact resampler, UCT constant 2) gets each ``--times`` multiple of it: its
simulations a decision come from a calibration run (seconds a simulation), and the time it
really took is reported beside.  The difference is the ISMCTS seats' chips (points) a hand
minus the other seats' mean, with a 95% interval over deals.  Nothing is asserted.

    python benchmarks/ismcts_baseline.py --deals 40 --times 1 30 300 \\
        --json benchmarks/results/ismcts_baseline.json
    python benchmarks/ismcts_baseline.py --against best --deals 40 --times 1 300 \\
        --json benchmarks/results/ismcts_best.json
    python benchmarks/ismcts_baseline.py --game forty_five --players 4 --deals 40 \\
        --times 1 30 --json benchmarks/results/ismcts_forty_five.json
    python benchmarks/ismcts_baseline.py --game twenty_five --against best --deals 40 \\
        --times 1 10 --json benchmarks/results/ismcts_twenty_five_best.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import spoilfive_jax as sf
import spoilfive_jax.openspiel as sfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance


def opponent_bot(game: Any, against: str, seed: int) -> Any:
    if against == "best":
        return sfo.PolicyBot(game, "best", seed=seed)
    if against.startswith("pimc"):
        samples = int(against.split(":")[1]) if ":" in against else 64
        return sfo.PolicyBot(game, sf.pimc(num_samples=samples), seed=seed)
    return sfo.PolicyBot(game, against, seed=seed)


def hand(game: Any, order: np.ndarray, bots: list[Any], clock: dict[int, list[float]]) -> Any:
    """Play one hand dealt from ``order``; each bot's seconds a decision go to ``clock``."""
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(int(order[len(state.history())]))
    while not state.is_terminal():
        p = state.current_player()
        t0 = time.perf_counter()
        action = bots[p].step(state)
        clock.setdefault(id(bots[p]), []).append(time.perf_counter() - t0)
        state.apply_action(action)
    return np.array(state.returns())


def ms_per_decision(game: Any, bot: Any, orders: list[np.ndarray], warm: int = 1) -> float:
    """The bot's mean milliseconds a decision over hands it plays at every seat."""
    n = game.num_players()
    clock: dict[int, list[float]] = {}
    for i, order in enumerate(orders):
        hand(game, order, [bot] * n, clock if i >= warm else {})
    return 1000 * float(np.mean(clock[id(bot)]))


def seatings(game: Any) -> list[np.ndarray]:
    """bool[N] a seating: the seats ISMCTS holds (one seat of Spoil Five, or a partnership)."""
    n = game.num_players()
    if game.get_type().short_name == "python_spoil_five":
        return [np.arange(n) == r for r in range(n)]
    return [np.arange(n) % 2 == r for r in range(2)]


def tournament(game: Any, ismcts: Any, other: Any, orders: list[np.ndarray]) -> dict[str, Any]:
    clock: dict[int, list[float]] = {}
    diff = np.zeros(len(orders))
    rows = seatings(game)
    for d, order in enumerate(orders):
        for seats in rows:
            bots = [ismcts if s else other for s in seats]
            r = hand(game, order, bots, clock)
            diff[d] += (r[seats].mean() - r[~seats].mean()) / len(rows)
    return {
        "diff": float(diff.mean()),
        "diff_ci": float(1.96 * diff.std(ddof=1) / np.sqrt(len(orders))),
        "hands": len(orders) * len(rows),
        "ismcts_ms": 1000 * float(np.mean(clock[id(ismcts)])),
        "other_ms": 1000 * float(np.mean(clock[id(other)])),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--game", choices=["spoil_five", "forty_five", "twenty_five"], default="spoil_five"
    )
    ap.add_argument("--players", type=int, help="default: 5 in Spoil Five, 4 in the family")
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--times", type=float, nargs="+", default=[1.0, 30.0, 300.0])
    ap.add_argument("--against", default="pimc", help="best, pimc[:K] or a built-in policy name")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    if args.players is None:
        args.players = 5 if args.game == "spoil_five" else 4
    if args.game != "spoil_five" and args.players != 4:
        ap.error(f"--game {args.game}: the partnership baseline is for 4 players (--players 4)")
    game = pyspiel.load_game(f"python_{args.game}", {"players": args.players})
    deck = game.max_chance_outcomes()
    rng = np.random.default_rng(args.seed)
    orders = [rng.permutation(deck) for _ in range(args.deals)]
    calibration = [np.random.default_rng(10_000 + i).permutation(deck) for i in range(3)]
    other = opponent_bot(game, args.against, args.seed)
    other_ms = ms_per_decision(game, other, calibration)
    probe = sfo.ismcts_bot(game, 32, seed=args.seed)
    sim_ms = ms_per_decision(game, probe, calibration) / 32
    print(f"{args.against}: {other_ms:.2f} ms a decision; ISMCTS: {sim_ms:.3f} ms a simulation")
    print(f"{'times':>6} {'sims':>5} {'ISMCTS ms':>9} {'other ms':>8} {'diff':>8} {'95% CI':>8}")
    rows = []
    for times in args.times:
        sims = max(2, round(times * other_ms / sim_ms))  # (1: OpenSpiel's ISMCTS has no visit)
        bot = sfo.ismcts_bot(game, sims, seed=args.seed)
        r = {"times": times, "simulations": sims, **tournament(game, bot, other, orders)}
        rows.append(r)
        print(
            f"{times:>6g} {sims:>5} {r['ismcts_ms']:>9.2f} {r['other_ms']:>8.2f} "
            f"{r['diff']:>+8.3f} ±{r['diff_ci']:>7.3f}",
            flush=True,
        )
    result: dict[str, Any] = provenance(__file__, sys.argv[1:] if argv is None else argv)
    result.update(
        game=args.game,
        players=args.players,
        against=args.against,
        deals=args.deals,
        other_ms=other_ms,
        simulation_ms=sim_ms,
        rows=rows,
    )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
