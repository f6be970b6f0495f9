"""The strategy study: the rule sheets' strategy tips answered with measured numbers.

Runs every measurement of ``docs/strategy.md`` (questions 1-10 of issue 11) and writes the
numbers as JSON and the plots as PNG files:

    python examples/strategy_study.py --size quick --out docs/   # ~8 min on a busy 2-core CPU
    python examples/strategy_study.py --size full --out docs/    # >= 10^6 hands where needed

Progress lines go to stderr.  Same seed and size -> same numbers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from study import family, plots
from study import spoil_five as s5

import spoilfive_jax as sf

PLAYERS = (4, 5, 6)
CARRIED = (0, 5, 10, 15, 20, 30)

SIZES: dict[str, dict[str, int]] = {
    "quick": {
        "q1_hands": 40_000, "q1_pimc_hands": 64, "rob_hands": 2_000, "rob_samples": 32,
        "renege_hands": 60_000, "renege_samples": 32, "spoil_hands": 40_000,
        "jink_hands": 20_000, "jink_samples": 64, "rate_hands": 100_000,
        "seat_hands": 100_000, "seat_pimc_hands": 64, "pimc_samples": 8,
        "five_hands": 5_000, "five_samples": 32, "partner_hands": 10_000,
        "partner_samples": 32, "auction_hands": 20_000, "auction_pimc_hands": 32,
    },
    "full": {
        "q1_hands": 1_000_000, "q1_pimc_hands": 4_000, "rob_hands": 6_000, "rob_samples": 64,
        "renege_hands": 300_000, "renege_samples": 48, "spoil_hands": 200_000,
        "jink_hands": 100_000, "jink_samples": 96, "rate_hands": 1_000_000,
        "seat_hands": 1_000_000, "seat_pimc_hands": 6_000, "pimc_samples": 8,
        "five_hands": 20_000, "five_samples": 64, "partner_hands": 40_000,
        "partner_samples": 48, "auction_hands": 1_000_000, "auction_pimc_hands": 600,
    },
}  # fmt: skip


def questions(z: dict[str, int], seed: int) -> dict[str, Callable[[], Any]]:
    """Each question's measurements as a thunk (run in order, timed)."""
    pimc5 = sf.pimc(sf.SpoilFive(5), z["pimc_samples"])
    pimc_auction = sf.pimc(sf.AuctionFortyFives(4), z["pimc_samples"], "greedy")
    return {
        "q1": lambda: {
            "heuristic": [s5.win_by_holding(seed, n, z["q1_hands"]) for n in PLAYERS],
            "pimc_5p": s5.win_by_holding(seed, 5, z["q1_pimc_hands"], policy=pimc5),
        },
        "q2": lambda: {
            "heuristic": [s5.rob_value(seed, n, z["rob_hands"], z["rob_samples"]) for n in PLAYERS],
            "random_playouts_5p": s5.rob_value(
                seed, 5, z["rob_hands"] // 4, z["rob_samples"], policy="random"
            ),
        },
        "q3": lambda: {
            "heuristic": [
                s5.renege_value(seed, n, z["renege_hands"], z["renege_samples"]) for n in PLAYERS
            ],
            "random_playouts_5p": s5.renege_value(
                seed, 5, z["renege_hands"] // 2, z["renege_samples"], policy="random"
            ),
        },
        "q4": lambda: {
            "heuristic": [s5.spoil_vs_win(seed, n, z["spoil_hands"], CARRIED) for n in PLAYERS],
        },
        "q5": lambda: {
            "break_even": s5.break_even_table(list(PLAYERS), list(CARRIED)),
            "decisions": [
                s5.jink_decisions(seed, n, z["jink_hands"], z["jink_samples"], list(CARRIED))
                for n in PLAYERS
            ],
            "heuristic_rates": [
                s5.jink_rates(seed, n, z["rate_hands"], "heuristic") for n in PLAYERS
            ],
        },
        "q7": lambda: {
            "heuristic": [s5.seat_advantage(seed, n, z["seat_hands"]) for n in PLAYERS],
            "heuristic_no_rob": [
                s5.seat_advantage(seed, n, z["seat_hands"], rob="off") for n in PLAYERS
            ],
            "pimc_5p": s5.seat_advantage(seed, 5, z["seat_pimc_hands"], policy=pimc5),
        },
        "q8": lambda: {
            "greedy": family.five_of_trumps(seed, z["five_hands"], z["five_samples"]),
            "random_playouts": family.five_of_trumps(
                seed, z["five_hands"] // 4, z["five_samples"], policy="random"
            ),
        },
        "q9": lambda: {
            "greedy": family.partner_suit(seed, z["partner_hands"], z["partner_samples"]),
        },
        "q10": lambda: {
            "greedy": family.auction_make_rates(seed, z["auction_hands"]),
            "pimc": family.auction_make_rates(seed, z["auction_pimc_hands"], pimc_auction),
        },
    }


def to_json(x: Any) -> Any:
    """Plain JSON values (numpy scalars and arrays to numbers and lists, NaN to null)."""
    if isinstance(x, dict):
        return {str(k): to_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_json(v) for v in x]
    if isinstance(x, np.ndarray):
        return to_json(x.tolist())
    if isinstance(x, (np.floating, float)):
        return None if not np.isfinite(x) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    return x


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=sorted(SIZES), default="quick")
    ap.add_argument("--out", type=Path, default=Path("docs"))
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument(
        "--only",
        nargs="+",
        help="questions to run (q1 .. q10; q6 is in q4/q5); any other word (e.g. 'plots'):"
        " run nothing and redraw the plots from the JSON in --out",
    )
    args = ap.parse_args(argv)
    z = SIZES[args.size]
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "strategy_study.json"
    results: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    todo = questions(z, args.seed)
    start = time.perf_counter()
    ran = []
    for name, thunk in todo.items():
        if args.only and name not in args.only:
            continue
        print(f"{name} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        results[name] = to_json(thunk())
        results[name]["seconds"] = round(time.perf_counter() - t0, 1)
        ran.append(name)
        print(f"{name} done in {results[name]['seconds']} s", file=sys.stderr, flush=True)
        meta = {"size": args.size, "seed": args.seed, "sizes": z}
        results["meta"] = {**results.get("meta", {}), **meta}
        path.write_text(json.dumps(results, indent=1))
    if ran:
        seconds = round(time.perf_counter() - start, 1)
        results["meta"].setdefault("runs", []).append({"questions": ran, "seconds": seconds})
        path.write_text(json.dumps(results, indent=1))
        print(f"wrote {path} ({seconds} s)", file=sys.stderr)
    for png in plots.make_all(results, args.out):
        print(f"wrote {png}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
