"""One table per game: every speed path, as decisions/s and as a ratio to pyspiel, on 1 core
and on all cores.  The README's benchmark tables come from this script.

For each game (``--games``, each at its default table: Spoil Five 5 players, the Forty-Five
family 4) the rows are:

- ``rollout <policy>``: ``sf.rollout`` with each built-in policy (``env.policy_names``) at every
  seat, on the game's rollout kernel; best of ``--reps`` runs of ``--hands`` hands after a
  compile run;
- ``public step``: ``env.init`` + ``jax.jit`` of a ``lax.scan`` of ``env.max_decisions`` steps of
  ``jax.vmap(env.step)`` with uniformly random legal actions picked by the hash of
  the project's acceptance check of the step (the same loop; the batch of keys is sharded over
  the devices); init is inside the timing, a decision counts when its state was live;
- ``analysis <policy>``: ``sf.analyze`` of ``--positions`` positions met along random play, with
  ``--samples`` samples each and the game's last built-in policy in the playouts; decisions/s
  counts every decision of every playout (the playout length measured with ``env.step``).

Each ratio divides by pyspiel ``oh_hell``'s decisions/s (5 players, 5 tricks, random play in a
Python loop; best of 5 windows) measured in the same process, at its start and at its end (the
mean is used; both are printed, so a change of load shows).  Without ``open_spiel`` the ratios
read ``n/a``.  With the Oh Hell plugin installed (``pip install -e examples/oh_hell``), its
table is the same game as pyspiel's, at the same 5 players and 5 tricks: the one same-game
comparison (``--games oh_hell``).

Cores: XLA on CPU runs one program on one core, so each core setting (``--cores 1 all``) runs in
its own process: this script spawns itself per setting (``--worker``), with that many XLA host
devices (``sf.use_all_cores(n)``, before JAX's first computation) and, unless ``--no-pin``,
pinned to that many cores.  ``--in-process`` measures with the devices this process already has.

Accelerators: ``--sweep LO:HI`` chooses each path's batch by measurement: batches of 2**LO ..
2**HI hands (rollouts, step) or rollouts per chunk (analysis), doubling, stopping once the
throughput has not grown by 5% for two sizes or memory runs out; the sweep is printed and the
best batch is then timed (the rollout batch is swept with ``random`` and used for every
policy).  ``bash benchmarks/gpu.sh`` runs it.  Never asserts a speed.

    python benchmarks/tables.py                              # every game, 1 and all cores
    python benchmarks/tables.py --quick                      # small sizes (about 2 minutes)
    python benchmarks/tables.py --games spoil_five --cores 1 --markdown --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from spoilfive_jax.tools.cores import cpu_count  # (imports jax; computes nothing)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance

HERE = os.path.dirname(os.path.abspath(__file__))
PATHS = ("rollout", "step", "analysis")
GROW = 1.05  # a sweep goes on while a size beats the best so far by this factor ...
PATIENCE = 2  # ... or until this many sizes in a row have not


# ------------------------------------------------------------------------ batch-size sweep


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether an exception says the device ran out of memory (XLA's RESOURCE_EXHAUSTED)."""
    text = f"{type(exc).__name__}: {exc}".lower()
    return isinstance(exc, MemoryError) or any(
        s in text for s in ("resource_exhausted", "resource exhausted", "out of memory")
    )


def sweep(
    measure: Callable[[int], float],
    sizes: Sequence[int],
    grow: float = GROW,
    patience: int = PATIENCE,
) -> tuple[int, list[dict[str, Any]]]:
    """(the best size, the trace) of ``measure(size) -> throughput`` over increasing ``sizes``.

    Stops when ``patience`` sizes in a row have not beaten the best throughput so far by
    ``grow``, or when a size runs out of memory (the trace records it; any other error is
    raised).  The best size is the one with the highest throughput measured.
    """
    if not sizes:
        raise ValueError("sweep needs at least one size")
    trace: list[dict[str, Any]] = []
    best_size, best, stale = sizes[0], 0.0, 0
    for size in sizes:
        try:
            rate = float(measure(size))
        except Exception as exc:
            if not is_out_of_memory(exc):
                raise
            trace.append({"batch": size, "decisions_per_s": None, "note": "out of memory"})
            break
        trace.append({"batch": size, "decisions_per_s": rate})
        stale = 0 if rate > best * grow else stale + 1
        if rate > best:
            best_size, best = size, rate
        if stale >= patience:
            break
    if best == 0.0:
        raise RuntimeError(f"sweep: no size ran ({trace})")
    return best_size, trace


def sweep_sizes(text: str) -> list[int]:
    """``"LO:HI"`` -> [2**LO, ..., 2**HI]."""
    try:
        lo, hi = (int(x) for x in text.split(":"))
    except ValueError:
        raise ValueError(
            f"--sweep takes LO:HI exponents of two, e.g. 12:20, got {text!r}"
        ) from None
    if not 0 <= lo <= hi <= 30:
        raise ValueError(f"--sweep LO:HI needs 0 <= LO <= HI <= 30, got {text!r}")
    return [1 << e for e in range(lo, hi + 1)]


# ------------------------------------------------------------------------ measurements

# The one same-game comparison: the Oh Hell plugin (``examples/oh_hell``, installed) at the
# table of the pyspiel game every ratio divides by, so its ratios compare like with like.
SAME_TABLE: dict[str, dict[str, int]] = {"oh_hell": {"num_players": 5, "num_tricks": 5}}


def peer_rate(seconds: float) -> float | None:
    """pyspiel oh_hell (5 players, 5 tricks) random-play decisions/s, or None without it."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return None
    sys.path.insert(0, HERE)
    from throughput import pyspiel_rate  # the best-of-5-windows loop of the step benchmark

    return float(
        pyspiel_rate("oh_hell", {"players": 5, "num_tricks_fixed": 5}, seconds)["decisions_per_s"]
    )


def time_rollout(env: Any, policy: str, batch: int | None, hands: int, reps: int) -> dict[str, Any]:
    """``sf.rollout`` of ``hands`` hands: compile run, then the best of ``reps``."""
    import spoilfive_jax as sf

    sf.rollout(0, env, policy, num_hands=hands, batch_size=batch)  # compiles the same program
    best, decisions = float("inf"), 0
    for i in range(reps):
        t0 = time.perf_counter()
        out = sf.rollout(i + 1, env, policy, num_hands=hands, batch_size=batch)
        dt = time.perf_counter() - t0
        if dt < best:
            best, decisions = dt, int(out.decisions.sum())
    return {"decisions_per_s": decisions / best, "hands_per_s": hands / best}


def make_step_run(env: Any, batch: int) -> Any:
    """The contract's loop: jitted ``key -> (live decisions, every hand ended)`` for one batch."""
    import jax
    import jax.numpy as jnp

    from spoilfive_jax.tools.sharding import shard_batch

    init, step = jax.vmap(env.init), jax.vmap(env.step)
    salt = jnp.arange(env.num_actions, dtype=jnp.uint32) * jnp.uint32(0x9E3779B9)

    def body(state: Any, key: jax.Array) -> tuple[Any, jax.Array]:
        mask = state.legal_action_mask
        live = (~state.terminated).sum(dtype=jnp.int32)
        x = jax.random.bits(key, (mask.shape[0], 1), jnp.uint32) ^ salt  # one word per hand
        x = (x ^ (x >> 16)) * jnp.uint32(0x7FEB352D)
        x = (x ^ (x >> 15)) * jnp.uint32(0x846CA68B)
        x = x ^ (x >> 16)
        action = jnp.argmax(jnp.where(mask, x >> 1, 0), axis=-1).astype(jnp.int32)
        return step(state, action), live

    def run(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        k0, k1 = jax.random.split(key)
        state = init(shard_batch(jax.random.split(k0, batch)))
        state, live = jax.lax.scan(body, state, jax.random.split(k1, env.max_decisions))
        return live.sum(), state.terminated.all()

    return jax.jit(run)


def time_step(env: Any, batch: int, reps: int) -> dict[str, Any]:
    import jax

    run = make_step_run(env, batch)
    key = jax.random.PRNGKey(0)
    _, done = run(key)
    if not bool(done):
        raise RuntimeError(f"{env.id}: a hand did not end within {env.max_decisions} steps")
    best, decisions = float("inf"), 0
    for _ in range(reps):
        key, sub = jax.random.split(key)
        t0 = time.perf_counter()
        live, _ = run(sub)
        n = int(live)
        dt = time.perf_counter() - t0
        if dt < best:
            best, decisions = dt, n
    return {"decisions_per_s": decisions / best, "hands_per_s": batch / best}


def analysis_positions(env: Any, count: int, seed: int = 0) -> Any:
    """``count`` live positions met along random play (a spread of phases and tricks)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    step = jax.jit(jax.vmap(env.step))
    act = jax.jit(jax.vmap(env.builtin_policy("random")))
    keys = jax.random.split(jax.random.PRNGKey(seed), count)
    state = chosen = jax.jit(jax.vmap(env.init))(keys)
    stop = np.random.default_rng(seed).integers(0, env.max_decisions - env.num_players, count)
    for t in range(env.max_decisions):
        turn = jax.vmap(lambda k, t=t: jax.random.fold_in(k, t))(keys)
        new = step(state, act(turn, state, jnp.maximum(state.current_player, 0)))
        take = jnp.asarray(stop > t) & ~new.terminated

        def pick(a: jax.Array, b: jax.Array, take: jax.Array = take) -> jax.Array:
            return jnp.where(take.reshape(take.shape + (1,) * (a.ndim - 1)), a, b)

        chosen, state = jax.tree.map(pick, new, chosen), new
    return jax.device_get(chosen)


def playout_length(env: Any, positions: Any, policy: str) -> float:
    """Mean decisions from these positions to the end of the hand with ``policy`` at every seat
    (the length of an analysis playout, the tried action included)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    step = jax.jit(jax.vmap(env.step))
    act = jax.jit(jax.vmap(env.builtin_policy(policy)))
    state = jax.tree.map(jnp.asarray, positions)
    keys = jax.random.split(jax.random.PRNGKey(1), np.shape(state.current_player)[0])
    count = np.zeros(keys.shape[0])
    for t in range(env.max_decisions):
        live = ~np.asarray(state.terminated)
        if not live.any():
            break
        count += live
        turn = jax.vmap(lambda k, t=t: jax.random.fold_in(k, t))(keys)
        state = step(state, act(turn, state, jnp.maximum(state.current_player, 0)))
    return float(count.mean())


def time_analysis(
    env: Any, positions: Any, samples: int, policy: str, batch: int | None, reps: int
) -> dict[str, Any]:
    """``sf.analyze`` of the positions: compile run, then the best of ``reps``."""
    import numpy as np

    import spoilfive_jax as sf

    res = sf.analyze(0, env, positions, num_samples=samples, policy=policy, batch_size=batch)
    best = float("inf")
    for i in range(reps):
        t0 = time.perf_counter()
        sf.analyze(i + 1, env, positions, num_samples=samples, policy=policy, batch_size=batch)
        best = min(best, time.perf_counter() - t0)
    count = int(np.shape(res.legal)[0])
    rollouts = int(res.legal.sum()) * samples
    per = playout_length(env, positions, policy)
    return {
        "decisions_per_s": rollouts * per / best,
        "positions_per_s": count / best,
        "rollouts_per_s": rollouts / best,
    }


def measure_game(game: str, cfg: argparse.Namespace) -> tuple[list[dict[str, Any]], list[Any]]:
    """Every requested path of one game: (rows, sweeps)."""
    import spoilfive_jax as sf

    env = sf.make(game, **SAME_TABLE.get(game, {}))
    rows: list[dict[str, Any]] = []
    sweeps: list[dict[str, Any]] = []
    sizes = sweep_sizes(cfg.sweep) if cfg.sweep else None
    tries = min(2, cfg.reps)  # timed runs per sweep point, best kept

    def chosen(path: str, default: int | None, rate: Callable[[int], float]) -> int | None:
        if sizes is None:
            return default
        best, trace = sweep(rate, sizes)
        sweeps.append({"game": game, "path": path, "chosen": best, "trace": trace})
        print(f"  sweep {game} {path}: " + _sweep_text(trace) + f" -> {best}", file=sys.stderr)
        return best

    def row(path: str, batch: int | None, result: dict[str, Any]) -> None:
        rows.append(
            {"game": game, "players": env.num_players, "path": path, "batch": batch, **result}
        )
        print(f"  done {game} {path}", file=sys.stderr, flush=True)

    if "rollout" in cfg.paths:
        batch = chosen(
            "rollout",
            cfg.rollout_batch,
            lambda b: time_rollout(env, "random", b, max(cfg.hands, 4 * b), tries)[
                "decisions_per_s"
            ],
        )
        for policy in env.policy_names:
            row(f"rollout {policy}", batch, time_rollout(env, policy, batch, cfg.hands, cfg.reps))
    if "step" in cfg.paths:
        batch = chosen(
            "step", cfg.step_batch, lambda b: time_step(env, b, tries)["decisions_per_s"]
        )
        row("public step", batch, time_step(env, batch or cfg.step_batch, cfg.reps))
    if "analysis" in cfg.paths:
        policy = env.policy_names[-1]
        pos = analysis_positions(env, cfg.positions)
        batch = chosen(
            "analysis",
            cfg.analysis_batch,
            lambda b: time_analysis(env, pos, cfg.samples, policy, b, tries)["decisions_per_s"],
        )
        row(
            f"analysis {policy}",
            batch,
            time_analysis(env, pos, cfg.samples, policy, batch, cfg.reps),
        )
    return rows, sweeps


def _sweep_text(trace: list[dict[str, Any]]) -> str:
    return ", ".join(
        f"{t['batch']}: {t['decisions_per_s'] / 1e6:.2f} M/s"
        if t["decisions_per_s"] is not None
        else f"{t['batch']}: {t['note']}"
        for t in trace
    )


def worker(cfg: argparse.Namespace) -> dict[str, Any]:
    """Measure every game in this process (its devices are already set)."""
    import jax

    devices = jax.local_devices()
    backend = jax.default_backend()
    cores = cpu_count()
    label = (
        f"{len(devices)} core" + ("s" if len(devices) > 1 else "")
        if backend == "cpu"
        else f"{len(devices)} x {devices[0].device_kind}"
    )
    peer_start = None if cfg.no_peers else peer_rate(cfg.peer_seconds)
    rows: list[dict[str, Any]] = []
    sweeps: list[dict[str, Any]] = []
    for game in cfg.games:
        r, s = measure_game(game, cfg)
        rows += r
        sweeps += s
    peer_end = None if cfg.no_peers else peer_rate(cfg.peer_seconds)
    peer = None if peer_start is None or peer_end is None else (peer_start + peer_end) / 2
    for r in rows:
        r["ratio_vs_oh_hell"] = r["decisions_per_s"] / peer if peer else None
    return {
        "label": label,
        "backend": backend,
        "devices": len(devices),
        "device_kind": devices[0].device_kind,
        "cores_pinned": cores,
        "peer": {"start": peer_start, "end": peer_end, "mean": peer},
        "rows": rows,
        "sweeps": sweeps,
    }


# ------------------------------------------------------------------------ processes


def spawn(argv: list[str], devices: int, pin: bool) -> dict[str, Any]:
    """Run this script as a worker with ``devices`` host devices (pinned to as many cores)."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    pin = pin and bool(cores) and devices < len(cores)

    def preexec() -> None:  # in the child, before it starts any thread
        os.sched_setaffinity(0, cores[:devices])

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "worker.json")
        cmd = [sys.executable, os.path.abspath(__file__), *argv, "--worker", str(devices)]
        proc = subprocess.run(
            [*cmd, "--worker-json", out], preexec_fn=preexec if pin else None, check=False
        )
        if proc.returncode != 0:
            raise RuntimeError(f"worker for {devices} device(s) failed (exit {proc.returncode})")
        with open(out) as f:
            return json.load(f)  # type: ignore[no-any-return]


def device_counts(cores: Sequence[str]) -> list[int]:
    """``--cores`` values ("1", "all", any positive integer) as device counts, in order."""
    out = []
    for c in cores:
        n = cpu_count() if c == "all" else int(c) if c.isdigit() and int(c) > 0 else None
        if n is None:
            raise ValueError(f"--cores takes positive integers or 'all', got {c!r}")
        if n not in out:
            out.append(n)
    return out


# ------------------------------------------------------------------------ tables


def _load(x: Sequence[float] | None) -> str:
    return "n/a" if x is None else " ".join(f"{v:.2f}" for v in x)


def _rate(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.0f}k"


def _ratio(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1f}x" if x < 10 else f"{x:.0f}x"


def game_tables(result: dict[str, Any], markdown: bool = False) -> str:
    """The text of one table per game from a result (``main``'s return value)."""
    settings = result["settings"]
    blocks = []
    for game in result["games"]:
        head = ["path", "batch"]
        for s in settings:
            head += [f"dec/s {s['label']}", f"x oh_hell {s['label']}"]
        if len(settings) > 1:
            head.append(f"{settings[-1]['label']} / {settings[0]['label']}")
        lines = []
        paths = [r["path"] for r in settings[0]["rows"] if r["game"] == game]
        players = next(r["players"] for r in settings[0]["rows"] if r["game"] == game)
        for path in paths:
            cells = [
                r for s in settings for r in s["rows"] if r["game"] == game and r["path"] == path
            ]
            batches = sorted({str(r["batch"] or "default") for r in cells})
            line = [path, " / ".join(batches)]
            for r in cells:
                line += [_rate(r["decisions_per_s"]), _ratio(r["ratio_vs_oh_hell"])]
            if len(settings) > 1:
                line.append(f"{cells[-1]['decisions_per_s'] / cells[0]['decisions_per_s']:.2f}")
            lines.append(line)
        title = f"{game}, {players} players"
        peers = "; ".join(
            f"{s['label']}: "
            + (
                "n/a (open_spiel not installed or --no-peers)"
                if s["peer"]["mean"] is None
                else f"{_rate(s['peer']['mean'])} decisions/s (start {_rate(s['peer']['start'])}, "
                f"end {_rate(s['peer']['end'])})"
            )
            for s in settings
        )
        note = f"pyspiel oh_hell (5 players, 5 tricks, random play), same process: {peers}"
        blocks.append(_render(title, head, lines, note, markdown))
    return "\n\n".join(blocks)


def _render(title: str, head: list[str], lines: list[list[str]], note: str, markdown: bool) -> str:
    if markdown:
        out = [f"**{title}**", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(line) + " |" for line in lines]
        return "\n".join([*out, "", note])
    widths = [max(len(x[i]) for x in [head, *lines]) for i in range(len(head))]
    fmt = "  ".join(f"{{:{'<' if i == 0 else '>'}{w}}}" for i, w in enumerate(widths))
    out = [title, fmt.format(*head), "-" * (sum(widths) + 2 * len(widths) - 2)]
    return "\n".join([*out, *(fmt.format(*line) for line in lines), note])


# ------------------------------------------------------------------------ command line


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="all", help="comma list of game ids, or all")
    ap.add_argument("--cores", nargs="+", default=["1", "all"], help="core settings: 1 all")
    ap.add_argument("--paths", default=",".join(PATHS), help=f"comma list of {', '.join(PATHS)}")
    ap.add_argument("--quick", action="store_true", help="small sizes, short peers")
    ap.add_argument("--hands", type=int, help="hands per timed rollout (2M; quick 64k)")
    ap.add_argument("--reps", type=int, help="timed runs per row, best kept (3; quick 1)")
    ap.add_argument("--rollout-batch", type=int, help="sf.rollout batch (its default)")
    ap.add_argument("--step-batch", type=int, help="public step batch (8192; quick 1024)")
    ap.add_argument("--positions", type=int, help="analysed positions (200; quick 8)")
    ap.add_argument("--samples", type=int, help="samples a position (200; quick 16)")
    ap.add_argument("--analysis-batch", type=int, help="sf.analyze batch_size (its default)")
    ap.add_argument("--sweep", metavar="LO:HI", help="choose each path's batch: 2**LO..2**HI")
    ap.add_argument("--peer-seconds", type=float, help="pyspiel time, each end (5; quick 1)")
    ap.add_argument("--no-peers", action="store_true", help="skip pyspiel: ratios n/a")
    ap.add_argument("--no-pin", action="store_true", help="do not pin workers to their cores")
    ap.add_argument("--in-process", action="store_true", help="no workers: this process's devices")
    ap.add_argument("--markdown", action="store_true", help="markdown tables")
    ap.add_argument("--json", metavar="FILE", help="also write every row and sweep as JSON")
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--worker-json", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    q = a.quick
    defaults = {
        "hands": 1 << 16 if q else 2_000_000,
        "reps": 1 if q else 3,
        "step_batch": 1024 if q else 8192,
        "positions": 8 if q else 200,
        "samples": 16 if q else 200,
        "peer_seconds": 1.0 if q else 5.0,
    }
    for name, value in defaults.items():
        if getattr(a, name) is None:
            setattr(a, name, value)
    for name in ("hands", "reps", "step_batch", "positions", "rollout_batch", "analysis_batch"):
        if getattr(a, name) is not None and getattr(a, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be a positive integer")
    if a.samples < 2:
        ap.error("--samples must be at least 2")
    if a.sweep:
        try:
            sweep_sizes(a.sweep)
        except ValueError as exc:
            ap.error(str(exc))
    try:
        device_counts(a.cores)
    except ValueError as exc:
        ap.error(str(exc))
    a.paths = [p for p in a.paths.split(",") if p]
    if bad := [p for p in a.paths if p not in PATHS]:
        ap.error(f"--paths: unknown {bad}; choose from {', '.join(PATHS)}")
    return a


def main(argv: list[str] | None = None) -> dict[str, Any]:
    argv = list(sys.argv[1:] if argv is None else argv)
    cfg = parse(argv)
    if cfg.worker is not None:  # a spawned worker: set the devices before JAX computes anything
        import spoilfive_jax as sf

        sf.use_all_cores(cfg.worker)
    import jax

    import spoilfive_jax as sf

    known = sf.available_games()
    cfg.games = list(known) if cfg.games == "all" else cfg.games.split(",")
    if bad := [g for g in cfg.games if g not in known]:
        raise ValueError(f"--games: unknown {bad}; choose from {', '.join(known)}")
    if cfg.worker is not None:
        if jax.local_device_count() != cfg.worker and jax.default_backend() == "cpu":
            raise RuntimeError(
                f"worker asked for {cfg.worker} devices, has {jax.local_device_count()}"
            )
        out = worker(cfg)
        with open(cfg.worker_json, "w") as f:
            json.dump(out, f)
        return out
    load_start = os.getloadavg() if hasattr(os, "getloadavg") else None
    if cfg.in_process:
        settings = [worker(cfg)]
    else:
        settings = [spawn(argv, n, not cfg.no_pin) for n in device_counts(cfg.cores)]
    where = provenance(__file__, argv)
    where["machine"]["cores"] = cpu_count()
    where["machine"]["load_average_start"] = load_start
    where["machine"]["load_average_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    result = {
        **where,
        "games": cfg.games,
        "config": {k: v for k, v in vars(cfg).items() if not k.startswith("worker")},
        "settings": settings,
    }
    m = result["machine"]
    print(
        f"# {m['processor']}, {m['cores']} cores, python {m['python']}, jax {m['jax']}; "
        f"backends: {', '.join(s['label'] for s in settings)}; load average (1, 5, 15 min) "
        f"at the start {_load(m['load_average_start'])}, at the end {_load(m['load_average_end'])}"
    )
    for s in settings:
        for sw in s["sweeps"]:
            print(
                f"sweep ({s['label']}) {sw['game']} {sw['path']}: {_sweep_text(sw['trace'])} "
                f"-> batch {sw['chosen']}"
            )
    print()
    print(game_tables(result, cfg.markdown))
    if cfg.json:
        with open(cfg.json, "w") as f:
            json.dump(result, f, indent=1)
    return result


if __name__ == "__main__":
    main()
