"""The strategy study: the rule sheets' strategy tips answered with measured numbers.

Runs every measurement of ``docs/strategy.md`` (its questions 1-10) and writes the
numbers as JSON and the plots as PNG files:

    python examples/strategy_study.py --size quick --out /tmp/q/  # minutes on a 2-core CPU
    python examples/strategy_study.py --size full --out docs/     # >= 10^6 hands where needed
    python examples/strategy_study.py --size full --out docs/ --only q4 q10  # merge a rerun

Progress lines go to stderr.  Same seed and size -> same numbers.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from study import common, family, plots
from study import spoil_five as s5

import spoilfive_jax as sf

PLAYERS = (4, 5, 6)
CARRIED = (0, 5, 10, 15, 20, 30)
PIMC_SEAT = 2  # Q4's pimc table: one seat (each seat is a compile of the scorer's lineup)

SIZES: dict[str, dict[str, int]] = {
    "tiny": {  # every question end to end in a few minutes (the slow tests); numbers meaningless
        "q1_hands": 512, "q1_pimc_hands": 8, "rob_hands": 16, "rob_samples": 4,
        "renege_hands": 512, "renege_samples": 4, "spoil_hands": 512, "spoil_pimc_hands": 8,
        "jink_hands": 512, "jink_samples": 4, "rate_hands": 512, "seat_hands": 512,
        "seat_pimc_hands": 8, "pimc_samples": 4, "check_positions": 8, "five_hands": 64,
        "five_samples": 4, "partner_hands": 64, "partner_samples": 4, "auction_hands": 512,
        "auction_greedy_hands": 512, "auction_pimc_hands": 8,
    },
    "quick": {
        "q1_hands": 40_000, "q1_pimc_hands": 64, "rob_hands": 2_000, "rob_samples": 32,
        "renege_hands": 60_000, "renege_samples": 32, "spoil_hands": 40_000,
        "spoil_pimc_hands": 96, "jink_hands": 20_000, "jink_samples": 64, "rate_hands": 100_000,
        "seat_hands": 100_000, "seat_pimc_hands": 64, "pimc_samples": 32, "check_positions": 32,
        "five_hands": 5_000, "five_samples": 32, "partner_hands": 10_000,
        "partner_samples": 32, "auction_hands": 20_000, "auction_greedy_hands": 20_000,
        "auction_pimc_hands": 32,
    },
    "full": {
        "q1_hands": 1_000_000, "q1_pimc_hands": 6_000, "rob_hands": 6_000, "rob_samples": 64,
        "renege_hands": 300_000, "renege_samples": 48, "spoil_hands": 200_000,
        "spoil_pimc_hands": 9_600, "jink_hands": 100_000, "jink_samples": 96,
        "rate_hands": 1_000_000, "seat_hands": 1_000_000, "seat_pimc_hands": 10_000,
        "pimc_samples": 32, "check_positions": 2_000, "five_hands": 20_000, "five_samples": 64,
        "partner_hands": 40_000, "partner_samples": 48, "auction_hands": 1_000_000,
        "auction_greedy_hands": 250_000, "auction_pimc_hands": 800,
    },
}  # fmt: skip


def questions(z: dict[str, int], seed: int) -> dict[str, Callable[[], Any]]:
    """Each question's measurements as a thunk (run in order, timed).  pimc everywhere is
    ``z["pimc_samples"]`` worlds a decision with the game's own heuristic in its rollouts."""
    k, checks = z["pimc_samples"], z["check_positions"]
    pimc5 = common.pimc_of(sf.spoil_five.SpoilFive(5), k)
    pimc_family = common.pimc_of(sf.forty_five.FortyFive(4), k)
    pimc_auction = common.pimc_of(sf.forty_five.AuctionFortyFives(4), k)
    family_checks = max(checks * 3 // 5, 8)  # a family playout costs more than a Spoil Five one
    return {
        "q1": lambda: {
            "heuristic": [s5.win_by_holding(seed, n, z["q1_hands"]) for n in PLAYERS],
            "pimc_5p": s5.win_by_holding(seed, 5, z["q1_pimc_hands"], policy=pimc5),
        },
        "q2": lambda: {
            "heuristic": [
                s5.rob_value(seed, n, z["rob_hands"], z["rob_samples"],
                             check=pimc5 if n == 5 else None, check_positions=checks)
                for n in PLAYERS
            ],
        },
        "q3": lambda: {
            "heuristic": [
                s5.renege_value(seed, n, z["renege_hands"], z["renege_samples"],
                                check=pimc5 if n == 5 else None, check_positions=checks)
                for n in PLAYERS
            ],
        },
        "q4": lambda: {
            "heuristic": [s5.spoil_vs_win(seed, n, z["spoil_hands"], CARRIED) for n in PLAYERS],
            "pimc_table_5p": s5.spoil_vs_win(
                seed + 4, 5, z["spoil_pimc_hands"], CARRIED, seats=(PIMC_SEAT,),
                others=pimc5, extra={"pimc": pimc5},
            ),
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
            "heuristic": family.five_of_trumps(
                seed, z["five_hands"], z["five_samples"],
                check=pimc_family, check_positions=family_checks,
            ),
            "greedy_playouts": family.five_of_trumps(
                seed, z["five_hands"] // 4, z["five_samples"], policy="greedy"
            ),
        },
        "q9": lambda: {
            "heuristic": family.partner_suit(
                seed, z["partner_hands"], z["partner_samples"],
                check=pimc_family, check_positions=family_checks,
            ),
            "greedy_playouts": family.partner_suit(
                seed, z["partner_hands"] // 4, z["partner_samples"], policy="greedy"
            ),
        },
        "q10": lambda: {
            "heuristic": family.auction_make_rates(seed, z["auction_hands"]),
            "greedy": family.auction_make_rates(seed, z["auction_greedy_hands"], "greedy"),
            "pimc": family.auction_make_rates(seed, z["auction_pimc_hands"], pimc_auction),
        },
    }  # fmt: skip


QUESTIONS = ("q1", "q2", "q3", "q4", "q5", "q7", "q8", "q9", "q10")


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


def commit() -> str:
    """The code's git commit (``+dirty`` when the code, not the docs, has changes), or
    ``unknown``."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=here,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "examples", "spoilfive_jax"],
            cwd=here.parent,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def merge_meta(results: dict[str, Any], ran: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The ``meta`` block: for every question in ``results``, the size, seed and commit it was
    run with (``ran`` adds this run's), and ``consistent``: whether all share one size, seed
    and commit, i.e. the numbers are one set."""
    per = dict(results.get("meta", {}).get("questions", {}))
    per.update(ran)
    keys = [(v["size"], v["seed"], v["commit"]) for q, v in per.items() if q in results]
    return {
        "questions": per,
        "sizes": {v["size"]: SIZES[v["size"]] for v in per.values() if v["size"] in SIZES},
        "consistent": len(set(keys)) <= 1,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=sorted(SIZES), default="quick")
    ap.add_argument("--out", type=Path, default=Path("docs"))
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument(
        "--only",
        nargs="+",
        help="questions to run (q1 .. q10; q6 is in q4/q5), merged into the JSON already in"
        " --out (the others kept); any other word (e.g. 'plots'): run nothing and redraw the"
        " plots from that JSON.  Without --only every question runs and the JSON is rewritten.",
    )
    args = ap.parse_args(argv)
    z = SIZES[args.size]
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "strategy_study.json"
    old = json.loads(path.read_text()) if args.only and path.exists() else {}
    results: dict[str, Any] = {k: v for k, v in old.items() if k == "meta" or k in QUESTIONS}
    todo = questions(z, args.seed)
    start = time.perf_counter()
    ran: dict[str, dict[str, Any]] = {}
    code = commit()
    for name, thunk in todo.items():
        if args.only and name not in args.only:
            continue
        print(f"{name} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        results[name] = to_json(thunk())
        seconds = round(time.perf_counter() - t0, 1)
        results[name]["seconds"] = seconds
        ran[name] = {"size": args.size, "seed": args.seed, "commit": code, "seconds": seconds}
        print(f"{name} done in {seconds} s", file=sys.stderr, flush=True)
        results["meta"] = merge_meta(results, ran)
        path.write_text(json.dumps(results, indent=1))
    if ran:
        print(f"wrote {path} ({time.perf_counter() - start:.1f} s)", file=sys.stderr)
        if not results["meta"]["consistent"]:
            print("warning: the JSON now mixes sizes, seeds or commits (meta.questions)",
                  file=sys.stderr)  # fmt: skip
    for png in plots.make_all(results, args.out):
        print(f"wrote {png}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
