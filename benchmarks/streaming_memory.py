"""Memory of a streamed rollout: ``spoilfive rollout --hands N`` (which streams: it prints only
a summary) run as ``python -m spoilfive_jax`` in a subprocess for each N, and the child's peak
resident set size (``os.wait4``'s rusage of that child alone).  A streamed run keeps a state of
fixed size, so the peak should not grow with N.  For contrast, ``--per-hand`` runs ``rollout
--plot FILE.png`` at the sizes it names: the plot needs the hands, so that run keeps every
hand's record (``per_hand=True``; matplotlib must be installed).  ``--parquet`` runs
``rollout --per-hand --parquet FILE`` at the sizes it names: every hand goes to a Parquet file
chunk by chunk (extra ``parquet``), so its peak should not grow with N either (the target at
10**7 hands: under 1.5 GB).  Prints a table (and --json); never asserts.

    python benchmarks/streaming_memory.py                       # 10**5, 10**6, 10**7 hands
    python benchmarks/streaming_memory.py --hands 1e6,1e7 --per-hand 1e6,1e7
    python benchmarks/streaming_memory.py --hands '' --parquet 1e7
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance

ROOT = Path(__file__).resolve().parents[1]


def run_child(argv: list[str]) -> dict[str, Any]:
    """Run ``python -m spoilfive_jax ARGV`` (this checkout first on the path); its wall time
    and peak RSS in MiB (Linux reports ``ru_maxrss`` in KiB)."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "spoilfive_jax", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stderr is not None
    err = proc.stderr.read()  # (drained before waiting: a full pipe would block the child)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"spoilfive {' '.join(argv)} failed: {err.decode()[-2000:]}")
    scale = 1024 if sys.platform == "darwin" else 1  # macOS reports bytes
    return {
        "seconds": time.perf_counter() - start,
        "max_rss_mib": usage.ru_maxrss / scale / 1024,
    }


def measure(hands: int, mode: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """One run of ``mode``: ``streamed`` (a summary), ``per-hand`` (``--plot``: every hand in
    memory) or ``parquet`` (every hand to a Parquet file as it is played)."""
    argv = ["rollout", "--hands", str(hands), "--players", str(args.players), "--quiet"]
    argv += ["--policy", args.policy]
    if args.batch:
        argv += ["--batch", str(args.batch)]
    if mode == "parquet":
        argv += ["--per-hand", "--parquet", str(tmp / "hands.parquet")]
    else:
        argv += ["--json", str(tmp / "summary.json")]
    if mode == "per-hand":  # (the figure's distribution of results needs every hand)
        argv += ["--plot", str(tmp / "rollout.png")]
    row = {"hands": hands, "mode": mode, **run_child(argv)}
    row["hands_per_s"] = hands / row["seconds"]
    if mode == "parquet":
        row["file_mib"] = (tmp / "hands.parquet").stat().st_size / 2**20
    return row


def sizes(text: str) -> list[int]:
    return [int(float(x)) for x in text.split(",") if x]


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description="peak RSS of spoilfive rollout against --hands")
    ap.add_argument("--hands", default="1e5,1e6,1e7", help="streamed run sizes")
    ap.add_argument("--per-hand", default="", help="per-hand (--plot) run sizes, e.g. 1e6,1e7")
    ap.add_argument(
        "--parquet", default="", help="--per-hand --parquet run sizes, e.g. 1e7 (needs pyarrow)"
    )
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--policy", default="random")
    ap.add_argument("--batch", type=int, help="--batch of the runs (default: the library's)")
    ap.add_argument("--json", help="write every row to this file")
    a = ap.parse_args(argv)
    print(f"# {platform.machine()}, {os.cpu_count()} CPUs; spoilfive rollout, {a.players} players")
    print(f"{'mode':>9} {'hands':>14} {'max RSS MiB':>12} {'seconds':>9} {'hands/s':>11}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        runs = [(n, "streamed") for n in sizes(a.hands)]
        runs += [(n, "per-hand") for n in sizes(a.per_hand)]
        runs += [(n, "parquet") for n in sizes(a.parquet)]
        for n, mode in runs:
            r = measure(n, mode, a, Path(tmp))
            rows.append(r)
            print(
                f"{r['mode']:>9} {n:>14,} {r['max_rss_mib']:>12.0f} {r['seconds']:>9.1f} "
                f"{r['hands_per_s']:>11,.0f}",
                flush=True,
            )
    if a.json:
        argv = sys.argv[1:] if argv is None else argv
        where = provenance(__file__, argv)
        Path(a.json).write_text(json.dumps({**where, "rows": rows}, indent=1))
    return rows


if __name__ == "__main__":
    main()
