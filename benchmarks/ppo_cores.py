"""PPO training speed on one CPU device against every core: learner decisions a second of the
training update (``spoilfive_jax.rl.ppo.update``) with its tables on one host device, then split
over one device per core (``sf.use_all_cores()``), each in a fresh process (the device count is
fixed when JAX starts).  The configuration is the shipped agents' (256 tables x 16 decisions an
update, a 256 x 256 network); the first updates, which compile, are not timed.

    python benchmarks/ppo_cores.py --json benchmarks/results/ppo_cores.json
    python benchmarks/ppo_cores.py --games spoil_five --updates 5
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance

GAMES = ("spoil_five", "forty_five", "twenty_five", "auction_forty_fives")

_ONE_RUN = """
    import json, time, jax
    import spoilfive_jax as sf
    devices = sf.use_all_cores({devices})
    from spoilfive_jax.rl import ppo
    cfg = ppo.PPOConfig(game={game!r}, num_players=sf.make({game!r}).num_players,
                        num_envs={envs}, num_steps=16, hidden=(256, 256), num_devices=devices)
    runner = ppo.init_runner(cfg, jax.random.PRNGKey(0), 100)
    for _ in range(2):  # compiles (the first call plays up to the learner: a second program)
        runner, m = ppo.update(cfg, 100, runner)
    jax.block_until_ready(runner.params)
    t0 = time.perf_counter()
    for _ in range({updates}):
        runner, m = ppo.update(cfg, 100, runner)
    jax.block_until_ready(runner.params)
    seconds = time.perf_counter() - t0
    print(json.dumps({{"devices": devices, "seconds": seconds,
                       "decisions_per_s": {updates} * cfg.num_envs * cfg.num_steps / seconds}}))
"""


def one_run(game: str, devices: int, updates: int, envs: int) -> dict[str, Any]:
    """A fresh process timing ``updates`` updates of ``game`` on ``devices`` host devices."""
    code = _ONE_RUN.format(game=game, devices=devices, updates=updates, envs=envs)
    env = {k: v for k, v in os.environ.items() if "host_platform_device_count" not in v}
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"{game} on {devices} devices failed:\n{out.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    ap.add_argument("--updates", type=int, default=10, help="timed updates a run")
    ap.add_argument("--envs", type=int, default=256, help="tables (a multiple of the cores)")
    ap.add_argument("--json", default=None, help="write the figures to this file")
    args = ap.parse_args(argv)
    from spoilfive_jax.tools.cores import cpu_count

    cores = cpu_count()
    rows = []
    for game in args.games:
        one = one_run(game, 1, args.updates, args.envs)
        every = one_run(game, cores, args.updates, args.envs)
        row = {
            "game": game,
            "one_device": one["decisions_per_s"],
            "every_core": every["decisions_per_s"],
            "devices": every["devices"],
            "speedup": every["decisions_per_s"] / one["decisions_per_s"],
        }
        rows.append(row)
        print(
            f"{game:20s} one device {row['one_device']:8.0f} decisions/s, "
            f"{row['devices']} devices {row['every_core']:8.0f}: {row['speedup']:.2f}x",
            flush=True,
        )
    result = {**provenance(__file__, argv), "rows": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
    return result


if __name__ == "__main__":
    main()
