"""Every policy's speed, side by side in one process: what a user's own policy costs against the
built-in ones, through the public API only.

For each game at its default table (Spoil Five at 5 players), and the Oh Hell plugin written
outside the package (at pyspiel's table, 5 players and 5 tricks, where it is installed; it has
no rollout kernel, so its built-in policies play through the public step too):

- ``sf.rollout(..., per_hand=False)`` hands/s and decisions/s with the built-in ``"random"`` and
  ``"heuristic"`` and the policies a JAX user writes (``USER_POLICIES``): from the action mask,
  the first legal action, a uniform legal choice from one ``jax.random.uniform``, and the pgx
  idiom ``jax.random.categorical(key, where(mask, 0, -inf))``; from the legal bitset, the same
  two choices with the package's idioms ``sf.first_legal`` and ``sf.random_legal``; and the
  evaluation users run most (``LINEUPS``): ``sf.first_legal`` at seat 0 against the built-in
  heuristic at every other seat;
- the public step in a loop, ``jit(vmap(env.step))`` scanned over ``max_decisions`` steps from
  ``jit(vmap(env.init))``, with the first legal action and the pgx categorical idiom as the
  picker, and the first legal action from the bitset (``sf.first_legal``: what the step
  itself costs, without the mask's reduction) (``STEP_PICKERS``; keys from ``fold_in`` of each
  hand's key and the step).

Rollouts of ``--hands`` hands, ``--batch`` at once (16,384: the CPU default); the step loop
is one batch.  Each figure is the best of ``--reps`` timed runs after a compile run of the same
program; the ratios are to the built-in random of the same game (``x random``) and to
pyspiel's ``oh_hell`` (5 players, 5 tricks, random play) decisions/s measured in the same
process (``x pyspiel``, n/a without ``open_spiel``).  Nothing is asserted.

    python benchmarks/policy_speed.py --json benchmarks/results/policy_speed.json
    python benchmarks/policy_speed.py --hands 20000 --games spoil_five  # one game, quicker
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance
from tables import peer_rate

import spoilfive_jax as sf

GAMES = ("spoil_five", "forty_five", "twenty_five", "auction_forty_fives", "oh_hell")
# (the rest at their default table; Oh Hell at the table of the pyspiel game the ratios use)
TABLES: dict[str, dict[str, int]] = {
    "spoil_five": {"num_players": 5},
    "oh_hell": {"num_players": 5, "num_tricks": 5},
}


def first_legal(key: jax.Array, state: Any, player: jax.Array) -> jax.Array:
    """The lowest legal action id."""
    return jnp.argmax(state.legal_action_mask)


def one_uniform(key: jax.Array, state: Any, player: jax.Array) -> jax.Array:
    """A uniform legal choice from one ``jax.random.uniform``: the k-th legal action."""
    mask = state.legal_action_mask
    k = jnp.floor(jax.random.uniform(key) * mask.sum()).astype(jnp.int32)
    return jnp.argmax(jnp.cumsum(mask) > k)


def pgx_categorical(key: jax.Array, state: Any, player: jax.Array) -> jax.Array:
    """The pgx idiom: a categorical draw over the legal mask's logits (one Gumbel an action)."""
    return jax.random.categorical(key, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))


def bitset_first(key: jax.Array, state: Any, player: jax.Array) -> jax.Array:
    """The lowest legal action from the bitset: ``sf.first_legal``."""
    return sf.first_legal(state)


def bitset_random(key: jax.Array, state: Any, player: jax.Array) -> jax.Array:
    """A uniform legal choice from 32 random bits and the bitset: ``sf.random_legal``."""
    return sf.random_legal(key, state)


USER_POLICIES: dict[str, Callable[..., jax.Array]] = {
    "user first-legal": first_legal,
    "user one-uniform": one_uniform,
    "user pgx categorical": pgx_categorical,
    "user sf.first_legal": bitset_first,
    "user sf.random_legal": bitset_random,
}
LINEUPS: dict[str, Callable[[int], list[Any]]] = {  # a lineup by the number of players
    # (the evaluation users run most: their policy at one seat, the heuristic at the others)
    "user sf.first_legal vs heuristic": lambda n: [bitset_first] + ["heuristic"] * (n - 1),
}
STEP_PICKERS: dict[str, Callable[[jax.Array, Any], jax.Array]] = {
    "step loop, first legal": lambda key, state: first_legal(key, state, 0),
    "step loop, pgx categorical": lambda key, state: pgx_categorical(key, state, 0),
    # (the step's own cost: the same choice as the first row, from the bitset)
    "step loop, sf.first_legal": lambda key, state: bitset_first(key, state, 0),
}


def time_rollout(env: Any, policy: Any, hands: int, batch: int, reps: int) -> dict[str, float]:
    """``sf.rollout`` streamed: a compile run of one batch, then the best of ``reps`` runs."""
    sf.rollout(0, env, policy, num_hands=batch, batch_size=batch, per_hand=False)
    best, decisions = float("inf"), 0
    for i in range(reps):
        t0 = time.perf_counter()
        out = sf.rollout(i + 1, env, policy, num_hands=hands, batch_size=batch, per_hand=False)
        dt = time.perf_counter() - t0
        if dt < best:
            best, decisions = dt, int(out.summary()["decisions"])
    return {"hands_per_s": hands / best, "decisions_per_s": decisions / best}


def step_loop(env: Any, pick: Callable[[jax.Array, Any], jax.Array], batch: int) -> Any:
    """Jitted ``key -> live decisions``: ``batch`` hands dealt by ``init``, stepped to the end."""
    init, step = jax.vmap(env.init), jax.vmap(env.step)

    def run(key: jax.Array) -> jax.Array:
        deal_key, play_key = jax.random.split(key)
        hand_keys = jax.random.split(play_key, batch)
        state = init(jax.random.split(deal_key, batch))

        def body(state: Any, t: jax.Array) -> tuple[Any, jax.Array]:
            keys = jax.vmap(lambda k: jax.random.fold_in(k, t))(hand_keys)
            live = (~state.terminated).sum(dtype=jnp.int32)
            return step(state, jax.vmap(pick)(keys, state).astype(jnp.int32)), live

        steps = jnp.arange(env.max_decisions, dtype=jnp.int32)
        return jax.lax.scan(body, state, steps)[1].sum()

    return jax.jit(run)


def time_step_loop(env: Any, pick: Any, batch: int, reps: int) -> dict[str, float]:
    run = step_loop(env, pick, batch)
    int(run(jax.random.PRNGKey(0)))
    best, decisions = float("inf"), 0
    for i in range(reps):
        t0 = time.perf_counter()
        n = int(run(jax.random.PRNGKey(i + 1)))
        dt = time.perf_counter() - t0
        if dt < best:
            best, decisions = dt, n
    return {"hands_per_s": batch / best, "decisions_per_s": decisions / best}


def measure_game(game: str, hands: int, batch: int, reps: int) -> list[dict[str, Any]]:
    env = sf.make(game, **TABLES.get(game, {}))
    rows = []
    policies: dict[str, Any] = {name: name for name in ("random", "heuristic")}
    lineups = {name: lineup(env.num_players) for name, lineup in LINEUPS.items()}
    for name, policy in {**policies, **USER_POLICIES, **lineups}.items():
        rows.append({"path": f"rollout, {name}", **time_rollout(env, policy, hands, batch, reps)})
        print(
            f"  {game}: {rows[-1]['path']} {rows[-1]['hands_per_s']:,.0f} hands/s", file=sys.stderr
        )
    for name, pick in STEP_PICKERS.items():
        rows.append({"path": name, **time_step_loop(env, pick, batch, reps)})
        print(f"  {game}: {name} {rows[-1]['hands_per_s']:,.0f} hands/s", file=sys.stderr)
    base = rows[0]["hands_per_s"]
    for row in rows:
        row.update(game=game, players=env.num_players, x_random=row["hands_per_s"] / base)
    return rows


def table(rows: list[dict[str, Any]], peer: float | None) -> str:
    lines = [
        "| game | players | path | hands/s | decisions/s | x random | x pyspiel oh_hell |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        rate = r.get("pyspiel_oh_hell_decisions_per_s", peer)  # (a merged row: its run's)
        ratio = "n/a" if rate is None else f"{r['decisions_per_s'] / rate:,.1f}"
        lines.append(
            f"| {r['game']} | {r['players']} | {r['path']} | {r['hands_per_s']:,.0f} "
            f"| {r['decisions_per_s']:,.0f} | {r['x_random']:.3f} | {ratio} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--games", nargs="+", default=None, choices=GAMES, help="default: those installed"
    )
    ap.add_argument("--hands", type=int, default=200_000, help="hands a timed rollout run")
    ap.add_argument(
        "--batch",
        type=int,
        default=16384,
        help="hands at once (at most --hands; the step loop: one batch)",
    )
    ap.add_argument("--reps", type=int, default=3, help="timed runs a row (the best is kept)")
    ap.add_argument("--peer-seconds", type=float, default=4.0, help="pyspiel's measuring time")
    ap.add_argument("--json", default=None, help="write the rows here")
    ap.add_argument(
        "--merge", action="store_true", help="keep the other games' rows of --json FILE"
    )
    argv = sys.argv[1:] if argv is None else list(argv)
    args = ap.parse_args(argv)
    if args.merge and not args.json:  # (without a file the run's figures would be kept nowhere)
        ap.error("--merge keeps the other rows of --json FILE: give --json FILE")
    if min(args.hands, args.batch, args.reps) < 1 or args.peer_seconds <= 0:
        ap.error("--hands, --batch and --reps must be at least 1 and --peer-seconds positive")
    known = sf.available_games()
    if args.games is None:
        args.games = [g for g in GAMES if g in known]
        if missing := [g for g in GAMES if g not in known]:
            print(f"not installed, left out: {', '.join(missing)}", file=sys.stderr)
    elif bad := [g for g in args.games if g not in known]:
        ap.error(f"--games: {', '.join(bad)} not installed")
    peer, batch = peer_rate(args.peer_seconds), min(args.batch, args.hands)
    result: dict[str, Any] = {"rows": [], "pyspiel_oh_hell_decisions_per_s": peer}
    result.update(provenance(__file__, argv))
    kept: list[dict[str, Any]] = []
    if args.merge and args.json and os.path.exists(args.json):
        with open(args.json) as f:
            old = json.load(f)
        kept = [r for r in old["rows"] if r["game"] not in args.games]
        for r in kept:  # (each row keeps the command and the pyspiel rate it was measured with)
            r.setdefault("command", old["command"])
            r.setdefault("pyspiel_oh_hell_decisions_per_s", old["pyspiel_oh_hell_decisions_per_s"])
    for game in args.games:  # (the JSON is written after each game: a later failure keeps it)
        rows = measure_game(game, args.hands, batch, args.reps)
        for r in rows:
            r.update(command=result["command"], pyspiel_oh_hell_decisions_per_s=peer)
        result["rows"] += rows
        if args.json:
            with open(args.json, "w") as f:
                json.dump({**result, "rows": [*kept, *result["rows"]]}, f, indent=1)
    result["rows"] = [*kept, *result["rows"]]
    print(table(result["rows"], peer))
    print(f"\npyspiel oh_hell: {'n/a' if peer is None else f'{peer:,.0f} decisions/s'}")
    print(f"{result['command']} ({result['date']}, {result['machine']})")
    return result


if __name__ == "__main__":
    main()
