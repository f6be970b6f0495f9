"""``spoilfive bench``: the public step's throughput table (``cli.throughput``, shipped with the
package; ``benchmarks/throughput.py`` runs the same program from a source checkout)."""

from __future__ import annotations

import argparse
from typing import Any

from spoilfive_jax.cli.errors import int_at_least
from spoilfive_jax.cli.output import check_format, check_writable


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "bench",
        help="throughput table (with pyspiel peers when installed)",
        description="Random-play hands/s and decisions/s of jit(vmap(step)), with pyspiel "
        "peers when installed (the program of benchmarks/throughput.py).",
    )
    p.add_argument("--players", type=int_list, help="comma list of N (default 2,5,10)")
    p.add_argument("--batch", type=int_list, help="comma list of batch sizes")
    p.add_argument("--pickers", type=pickers, default="bits,mask", help="bits and/or mask")
    p.add_argument("--reps", type=int_at_least(1), default=5, help="timed runs per row")
    p.add_argument("--peer-seconds", type=float, help="pyspiel time per peer game")
    p.add_argument("--quick", action="store_true", help="N=5, batch 1024, short peers")
    p.add_argument("--no-peers", action="store_true", help="skip the pyspiel peers")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.json:
        check_writable("--json", args.json)
        check_format("--json", args.json)
    from spoilfive_jax.cli.throughput import main  # imports jax: only when the command runs

    argv = ["--reps", str(args.reps), "--pickers", args.pickers]
    if args.players:
        argv += ["--players", args.players]
    if args.batch:
        argv += ["--batch", args.batch]
    if args.peer_seconds is not None:
        argv += ["--peer-seconds", str(args.peer_seconds)]
    if args.json:
        argv += ["--json", args.json]
    argv += ["--quick"] if args.quick else []
    argv += ["--no-peers"] if args.no_peers else []
    main(argv)
    return 0


def int_list(text: str) -> str:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}"
        ) from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return ",".join(str(v) for v in values)


def pickers(text: str) -> str:
    names = [x.strip() for x in text.split(",") if x.strip()]
    if not names or any(x not in ("bits", "mask") for x in names):
        raise argparse.ArgumentTypeError(f"pickers are bits and/or mask, got {text!r}")
    return ",".join(names)
