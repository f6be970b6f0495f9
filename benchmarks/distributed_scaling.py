"""Local scaling over processes: one streamed rollout played by 1 process, then by P processes
joined on 127.0.0.1 (``sf.distributed``, gloo collectives), each with one CPU device, side by side
in one run; the rate is timed after a warm-up call (compile excluded) and the summaries are
checked to agree.

    python benchmarks/distributed_scaling.py                      # 1 and 2 processes
    python benchmarks/distributed_scaling.py --processes 1 2 4 --hands 20000000 --json out.json

On a machine with C cores, up to C processes can scale; past that they share cores.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance

GAME, PLAYERS, POLICY = "spoil_five", 5, "heuristic"


def worker(process_id: int, num: int, port: int, hands: int, batch: int) -> None:
    import jax
    import numpy as np

    jax.config.update("jax_num_cpu_devices", 1)
    import spoilfive_jax as sf

    if num > 1:
        sf.distributed.initialize(f"127.0.0.1:{port}", num, process_id)
    env = sf.make(GAME, num_players=PLAYERS)
    sf.rollout(1, env, POLICY, batch * num, batch, per_hand=False)  # compile
    begin = time.perf_counter()
    result = sf.rollout(0, env, POLICY, hands, batch, per_hand=False)
    seconds = time.perf_counter() - begin
    if sf.distributed.is_main_process():
        summary = {k: v for k, v in result.summary().items() if not k.endswith("_per_s")}
        summary.pop("seconds", None)
        plain = {k: np.asarray(v).tolist() for k, v in summary.items()}
        print(json.dumps({"seconds": seconds, "summary": plain}))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(num: int, hands: int, batch: int) -> dict[str, object]:
    port = free_port()
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    env.pop("XLA_FLAGS", None)
    size = ["--hands", str(hands), "--batch", str(batch)]
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "--worker", str(i), str(num), str(port), *size],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        for i in range(num)
    ]
    outs = [p.communicate()[0] for p in procs]
    if any(p.returncode for p in procs):
        raise SystemExit(f"{num} processes: a worker failed (exit {[p.returncode for p in procs]})")
    record: dict[str, object] = json.loads(outs[0].strip().splitlines()[-1])
    return record


def agree(a: dict[str, object], b: dict[str, object]) -> bool:
    """The same summary: every count and mean exactly, standard errors to float32 rounding
    (the batches' float32 sums are reduced in another order)."""
    import numpy as np

    if a.keys() != b.keys():
        return False
    for k, x in a.items():
        y = b[k]
        if k.endswith("_se"):
            if not np.allclose(np.asarray(x, float), np.asarray(y, float), rtol=1e-5):
                return False
        elif x != y:
            return False
    return True


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    p.add_argument("--hands", type=int, default=4_000_000)
    p.add_argument("--batch", type=int, default=16384, help="hands a process plays at once")
    p.add_argument("--json", metavar="FILE", help="also write the figures here")
    p.add_argument("--worker", type=int, nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(*args.worker, args.hands, args.batch * args.worker[1])
        return
    rows, first = [], None
    for num in args.processes:
        r = run(num, args.hands, args.batch)
        rate = args.hands / float(r["seconds"])  # type: ignore[arg-type]
        if first is None:
            first = (rate, r["summary"])
        same = agree(r["summary"], first[1])  # type: ignore[arg-type]
        rows.append(
            {"processes": num, "hands_per_s": rate, "speedup": rate / first[0], "same": same}
        )
        print(
            f"{num} process{'es' if num > 1 else '  '}  {rate:>14,.0f} hands/s  "
            f"x{rate / first[0]:.2f}  summary {'the same' if same else 'DIFFERS'}"
        )
    record = {
        **provenance(__file__, sys.argv[1:]),
        "benchmark": "distributed_scaling",
        "game": GAME,
        "players": PLAYERS,
        "policy": POLICY,
        "hands": args.hands,
        "rows": rows,
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=2)


if __name__ == "__main__":
    main()
