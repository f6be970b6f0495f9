"""How strong are the built-in policies?  A seat-rotated tournament (``sf.evaluate``) of the
heuristic against random play, for 3, 5 and 7 players, printed as tables with 95% CIs.

    python benchmarks/policy_strength.py [--hands 50000] [--players 3,5,7]
"""

from __future__ import annotations

import argparse
import time

import spoilfive_jax as sf


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="heuristic vs random tournament")
    ap.add_argument("--hands", type=int, default=50_000, help="deals per seating")
    ap.add_argument("--players", default="3,5,7")
    ap.add_argument("--preset", default="seed", choices=["seed", "traditional"])
    a = ap.parse_args(argv)
    rules = sf.spoil_five.Rules.preset(a.preset)
    for n in (int(x) for x in a.players.split(",")):
        t0 = time.perf_counter()
        res = sf.evaluate(
            0,
            sf.spoil_five.SpoilFive(n, rules),
            {"heuristic": "heuristic", "random": "random"},
            num_hands=a.hands,
        )
        print(f"\n{n} players, {a.preset} rules ({time.perf_counter() - t0:.0f} s)")
        print(res.table())


if __name__ == "__main__":
    main()
