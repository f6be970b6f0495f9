"""Where a compiled loop spends its time, by the package function that wrote each operation.

XLA:CPU runs a jitted loop as fusions; a profile names the fusions, not the Python that made
them, and one fusion often holds the work of many functions (a shared intermediate is
recomputed inside every fusion that reads it).  This script:

1. wraps every function of ``spoilfive_jax.games``, ``.core`` and ``.tools`` (and of the
   game's own package where it is a plugin, such as ``spoilfive_oh_hell``) in a
   ``jax.named_scope`` of its name (``module__function``), so that each operation XLA compiles
   carries the innermost package function that wrote it;
2. compiles and runs one of four programs once, then once more under ``jax.profiler.trace``:
   ``step``, ``jit(vmap(env.step))`` scanned over ``max_decisions`` steps from
   ``jit(vmap(env.init))`` (``policy_speed.py``'s step loop), ``rollout``, ``sf.rollout`` of
   one batch, ``init``, ``jit(vmap(env.init))`` of a batch of split keys alone, or ``pimc``,
   ``--batch`` decisions of ``sf.pimc(env, 64, solve_tricks="all")`` at the first lead (the
   exact solver's loop; ``--batch 1`` keeps the profile small); the policy
   picks with ``sf.first_legal`` (a user's policy) or is a built-in name (``--policy``);
3. reads XLA's optimized program (dumped with ``--xla_dump_to``; the largest module is the
   loop's) and the profile's events, and prints the slowest fusions with the functions whose
   operations they hold, then every function's share: each fusion's time split by the share
   of its operations each function wrote (``-``: operations outside any package function;
   names in parentheses: whole operations that are not fusions).

What it found first (2026-12-07): the family's legal set recomputing the whole step inside each
of its words, a reduction over Auction's stock at every decision, and the views' conversion
of card sets to ids (docs/engine_plan.md, stages 3 and 4).  The figures are one run's on a
shared machine: read the shares, and time a change with ``policy_speed.py``.  Nothing is
asserted.

    python benchmarks/fusion_profile.py --game auction_forty_fives --path step
    python benchmarks/fusion_profile.py --game spoil_five --path rollout --top 20
    python benchmarks/fusion_profile.py --game oh_hell --path rollout --policy random
    python benchmarks/fusion_profile.py --game forty_five --path init
    python benchmarks/fusion_profile.py --game forty_five --path pimc --batch 1
"""

from __future__ import annotations

import argparse
import collections
import functools
import glob
import gzip
import importlib
import json
import os
import pkgutil
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

SCOPE = "S_"  # the prefix of the scopes this script adds (``module__function``)


def scope_package(plugin: str | None = None) -> int:
    """Wrap every function defined in ``spoilfive_jax.games``, ``.core`` and ``.tools`` (and in
    the package ``plugin``, a game written outside ``spoilfive_jax`` such as the Oh Hell
    example's ``spoilfive_oh_hell``) in a named scope, and rebind every module's reference to
    it (``from x import f`` included).  A label is ``module__function`` (the module's last
    name), ``plugin__module__function`` for a plugin's, so that a plugin's
    ``game.apply_action`` is not taken for Spoil Five's.  Returns the number of functions
    wrapped."""
    import jax

    import spoilfive_jax.core
    import spoilfive_jax.games
    import spoilfive_jax.tools

    packages = [spoilfive_jax.games, spoilfive_jax.core, spoilfive_jax.tools]
    if plugin is not None:
        packages.append(importlib.import_module(plugin))
    for pkg in packages:
        for info in pkgutil.walk_packages(getattr(pkg, "__path__", []), pkg.__name__ + "."):
            importlib.import_module(info.name)
    roots = ("spoilfive_jax",) if plugin is None else ("spoilfive_jax", plugin)
    modules = [m for n, m in sys.modules.items() if n.split(".")[0] in roots and m]
    wrapped: dict[int, Callable[..., Any]] = {}
    for m in modules:
        for name, f in vars(m).items():
            own = getattr(f, "__module__", None) == m.__name__
            if own and hasattr(f, "__code__") and not name.startswith("__"):
                root, short = m.__name__.split(".")[0], m.__name__.rsplit(".", 1)[-1]
                home = "" if root == "spoilfive_jax" else f"{root}__"  # (a plugin's: its own)
                label = f"{SCOPE}{home}{short}__{name}"

                def scoped(*a: Any, _f: Any = f, _label: str = label, **k: Any) -> Any:
                    with jax.named_scope(_label):
                        return _f(*a, **k)

                wrapped[id(f)] = functools.update_wrapper(scoped, f)
    for m in modules:
        for name, f in list(vars(m).items()):
            if id(f) in wrapped:
                setattr(m, name, wrapped[id(f)])
    return len(wrapped)


def run_once(
    game: str, path: str, policy: str, batch: int, worlds: int = 64
) -> Callable[[int], None]:
    """A function of a seed that runs the loop once to its end (compiled on the first call)."""
    import jax

    import spoilfive_jax as sf

    env = sf.make(game)
    if path == "init":
        deal = jax.jit(lambda key: jax.vmap(env.init)(jax.random.split(key, batch)))
        return lambda seed: jax.block_until_ready(deal(jax.random.PRNGKey(seed)))
    if path == "step":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from policy_speed import step_loop

        builtin = env.builtin_policy(policy) if policy != "first_legal" else None

        def pick(key: jax.Array, state: Any) -> jax.Array:
            if builtin is None:
                return sf.first_legal(state)
            return builtin(key, state, jax.numpy.maximum(state.current_player, 0))

        loop = step_loop(env, pick, batch)
        return lambda seed: loop(jax.random.PRNGKey(seed)).block_until_ready()
    if path == "pimc":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from solve_speed import at_the_play

        bot = jax.jit(jax.vmap(sf.pimc(env, worlds, solve_tricks="all")))
        states = at_the_play(env, batch, 0, seed=11)
        keys = jax.random.split(jax.random.PRNGKey(1), batch)
        return lambda seed: jax.block_until_ready(bot(keys, states, states.current_player))
    spec: Any = policy if policy != "first_legal" else (lambda k, s, p: sf.first_legal(s))

    def roll(seed: int) -> None:
        sf.rollout(seed, env, spec, num_hands=batch, batch_size=batch, per_hand=False)

    return roll


def fusions(dump_dir: str) -> dict[str, list[str]]:
    """{fusion name: the operations of its computation} of the largest optimized module."""
    files = glob.glob(os.path.join(dump_dir, "*after_optimizations.txt"))
    if not files:
        raise RuntimeError(f"XLA dumped no optimized module in {dump_dir}")
    lines = max((Path(f).read_text().splitlines() for f in files), key=len)
    calls: dict[str, str] = {}
    bodies: dict[str, list[str]] = {}
    current = None
    for line in lines:
        call = re.search(r"%(\S+) = .* fusion\(.*calls=%([^,\s]+)", line)
        if call:
            calls[call.group(1)] = call.group(2)
        head = re.match(r"^(?:ENTRY )?%(\S+) .*\{$", line)
        if head:
            current = head.group(1)
            bodies[current] = []
        elif current:
            bodies[current].append(line)
    return {name: bodies.get(comp, []) for name, comp in calls.items()}


def owners(ops: list[str]) -> collections.Counter[str]:
    """How many of a fusion's operations each package function wrote (its innermost scope)."""
    out: collections.Counter[str] = collections.Counter()
    for op in ops:
        name = re.search(r'op_name="([^"]+)"', op)
        if name:
            scopes = re.findall(SCOPE + r"(\w+)", name.group(1))
            out[scopes[-1] if scopes else "-"] += 1
    return out


def event_times(trace_dir: str) -> collections.Counter[str]:
    """Microseconds of each XLA operation in the profile (Python and runtime events left out)."""
    files = glob.glob(os.path.join(trace_dir, "**", "*.trace.json.gz"), recursive=True)
    if not files:
        raise RuntimeError(f"the profiler wrote no trace in {trace_dir}")
    with gzip.open(files[0]) as f:
        events = json.load(f)["traceEvents"]
    out: collections.Counter[str] = collections.Counter()
    skip = ("$", "Thunk", "np.", "Pjit", "jit", "CommonPjRt", "Transpose")
    container = re.compile(r"^(while|cond|conditional|call)\b")  # (their bodies' events count)
    for e in events:
        name = e["name"] if e.get("ph") == "X" else ""
        if name and not name.startswith(skip) and not container.match(name):
            out[e["name"]] += e["dur"]
    return out


def attribute(
    times: collections.Counter[str], ops: dict[str, list[str]]
) -> tuple[list[tuple[str, float, list[tuple[str, int]]]], collections.Counter[str]]:
    """(the fusions by time with their main writers, every function's share of the time)."""
    rows, share = [], collections.Counter[str]()
    for name, us in times.most_common():
        counts = owners(ops.get(name, []))
        total = sum(counts.values())
        if total:
            for fn, k in counts.items():
                share[fn] += us * k / total
        else:
            share[f"({name.split('.')[0]})"] += us
        rows.append((name, us, counts.most_common(5)))
    return rows, share


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="spoil_five")
    ap.add_argument("--path", choices=("step", "rollout", "init", "pimc"), default="step")
    ap.add_argument("--policy", default="first_legal", help="first_legal, or a built-in name")
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--top", type=int, default=12, help="fusions and functions printed")
    ap.add_argument("--worlds", type=int, default=64, help="the pimc path's worlds a decision")
    args = ap.parse_args(argv)
    work = tempfile.mkdtemp(prefix="fusion_profile_")
    dump, trace = os.path.join(work, "dump"), os.path.join(work, "trace")
    # (read when XLA's backend starts: run this script in a process of its own)
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "") + f" --xla_dump_to={dump} --xla_dump_hlo_as_text"
    )
    import jax

    jax.config.update("jax_enable_compilation_cache", False)  # (a cached program dumps nothing)

    import spoilfive_jax as sf

    home = type(sf.make(args.game)).__module__.split(".")[0]  # (a plugin's package: scoped too)
    wrapped = scope_package(None if home == "spoilfive_jax" else home)
    once = run_once(args.game, args.path, args.policy, args.batch, args.worlds)
    once(0)
    with jax.profiler.trace(trace):
        once(1)
    rows, share = attribute(event_times(trace), fusions(dump))
    total = sum(us for _, us, _ in rows)
    print(
        f"{args.game}, {args.path}, {args.policy}, {args.batch} hands: {total / 1e3:.1f} ms "
        f"of operations ({wrapped} functions scoped)"
    )
    print("slowest operations (ms, the functions that wrote most of them):")
    for name, us, top in rows[: args.top]:
        print(f"  {us / 1e3:8.2f}  {name:36s} {', '.join(f'{f} {k}' for f, k in top)}")
    print("by function (each operation's time split by the share of it a function wrote):")
    for fn, us in share.most_common(args.top):
        print(f"  {us / 1e3:8.2f}  {100 * us / total:5.1f}%  {fn}")
    return {"total_us": total, "rows": rows, "by_function": dict(share)}


if __name__ == "__main__":
    main()
