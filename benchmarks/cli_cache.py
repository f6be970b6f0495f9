"""The command line's compiled programs kept between runs: ``spoilfive analyze`` of one position
of each game, three times in fresh processes sharing a new cache directory (the first compiles
and writes the programs, the second and third read them back), and once with the cache off.

    python benchmarks/cli_cache.py [--games spoil_five forty_five ...] [--json FILE]

Prints each run's wall time (the whole command: Python and JAX start-up, reading the position,
compiling or loading, the analysis itself, printing).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POSITIONS = {
    "spoil_five": "players=5; dealer=0; turnup=7D; player=1; hand=5D JH AH KC 4S; history=",
    "forty_five": "players=4; dealer=0; turnup=7D; player=1; hand=5D JH AH KC 4S; history=",
    "twenty_five": "players=4; dealer=0; turnup=7D; player=1; hand=5D JH AH KC 4S; history=",
}


def timed(game: str, cache: str) -> float:
    """Seconds of one ``spoilfive analyze`` in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k != "JAX_COMPILATION_CACHE_DIR"}
    env["SPOILFIVE_COMPILE_CACHE"] = cache
    argv = [sys.executable, "-m", "spoilfive_jax", "analyze", "--game", game, POSITIONS[game]]
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env, cwd=ROOT)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=list(POSITIONS), choices=list(POSITIONS))
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args(argv)
    out: dict[str, dict[str, float]] = {}
    print(f"{'game':<14}{'cache off':>11}{'first':>9}{'second':>9}{'third':>9}")
    for game in args.games:
        with tempfile.TemporaryDirectory() as cache:
            off = timed(game, "off")
            first, second, third = (timed(game, cache) for _ in range(3))
        out[game] = {"off": off, "first": first, "second": second, "third": third}
        print(f"{game:<14}{off:>10.1f}s{first:>8.1f}s{second:>8.1f}s{third:>8.1f}s")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return out


if __name__ == "__main__":
    main()
