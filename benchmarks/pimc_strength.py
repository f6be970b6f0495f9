"""Strength and cost of the PIMC bot (``sf.pimc``) in seat-rotated tournaments.

Spoil Five (5 players, seed rules): one pimc seat against four copies of the opponent
(``heuristic``, ``random`` or the shipped PPO agent), the pimc seat rotated through all five
seats over the same deals.  Forty-Five (4 players): a pimc partnership against a heuristic (or
greedy, or random) one, partnerships swapped over the same deals.  Only the decisions of the
bot's seats run the bot (a host loop gathers them), so the cost per decision is the bot's own.
Prints, per num_samples, the bot's mean chips (points) per hand, the opponents' mean per seat,
the difference with its 95% CI (deals as the unit), the time and the cost per bot decision.

    python benchmarks/pimc_strength.py --game spoil_five --samples 8 32 --deals 200
    python benchmarks/pimc_strength.py --game forty_five --samples 16 --deals 200
    python benchmarks/pimc_strength.py --game forty_five --opponent greedy --samples 64
    python benchmarks/pimc_strength.py --opponent ppo --samples 32 --deals 200
    python benchmarks/pimc_strength.py --table --deals 1000 \
        --json benchmarks/results/pimc_strength.json

``--table`` runs the rows of the docs' table (``scripts/docs.py figures`` writes it from the
JSON, with the date and machine).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax as sf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance

CHUNK = 64  # bot decisions per compiled call (one compile)


def tournament(env: Any, bot: Any, other: Any, deals: int, seed: int = 0) -> dict[str, Any]:
    """Mean result per hand of ``bot`` (its seats) and ``other`` over seat rotations."""
    n = env.num_players
    family = isinstance(env, sf.forty_five.FortyFive)
    rotations = 2 if family else n
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))
    act_other = jax.jit(jax.vmap(other))
    act_bot = jax.jit(jax.vmap(bot))
    keys = jax.random.split(jax.random.PRNGKey(seed), deals)
    bot_per_deal = np.zeros(deals)
    other_per_deal = np.zeros(deals)
    bot_decisions = 0
    bot_seconds = 0.0
    warm = jax.tree.map(lambda x: x[:CHUNK], init(jnp.tile(keys[:1], (CHUNK, 1))))
    t0 = time.perf_counter()
    jax.block_until_ready(act_bot(keys[:1].repeat(CHUNK, 0), warm, warm.current_player))
    compile_s = time.perf_counter() - t0
    start = time.perf_counter()
    for r in range(rotations):
        seats = np.array([(s % 2) == r for s in range(n)]) if family else np.arange(n) == r
        state = init(keys)
        total = np.zeros((deals, n))
        for t in range(200):
            host = jax.device_get((state.current_player, state.terminated))
            cur, done = np.asarray(host[0]), np.asarray(host[1])
            if done.all():
                break
            dkeys = jax.vmap(lambda k, i=1000 * r + t: jax.random.fold_in(k, i))(keys)
            actions = np.array(act_other(dkeys, state, jnp.maximum(state.current_player, 0)))
            mine = np.flatnonzero(~done & seats[np.maximum(cur, 0)])
            for lo in range(0, mine.size, CHUNK):
                part = mine[lo : lo + CHUNK]
                idx = np.concatenate([part, np.full(CHUNK - part.size, part[0])])
                sub = jax.tree.map(lambda x, idx=idx: x[idx], state)
                t0 = time.perf_counter()
                chosen = np.asarray(act_bot(dkeys[idx], sub, sub.current_player))
                bot_seconds += time.perf_counter() - t0
                actions[part] = chosen[: part.size]
                bot_decisions += part.size
            state = step(state, jnp.asarray(actions, jnp.int32))
            total += np.asarray(state.rewards)
        bot_per_deal += total[:, seats].mean(1) / rotations
        other_per_deal += total[:, ~seats].mean(1) / rotations
    diff = bot_per_deal - other_per_deal
    return {
        "bot": float(bot_per_deal.mean()),
        "bot_ci": float(1.96 * bot_per_deal.std(ddof=1) / np.sqrt(deals)),
        "other": float(other_per_deal.mean()),
        "diff": float(diff.mean()),
        "diff_ci": float(1.96 * diff.std(ddof=1) / np.sqrt(deals)),
        "hands": deals * rotations,
        "seconds": time.perf_counter() - start,
        "bot_decisions": bot_decisions,
        "ms_per_decision": 1000 * bot_seconds / max(bot_decisions, 1),
        "compile_s": compile_s,
    }


# The docs' table (``--table``): (game, opponent, samples, rollout policy).
TABLE = [
    *(("spoil_five", "ppo", k, "heuristic") for k in (8, 32, 64, 128)),
    ("spoil_five", "heuristic", 64, "heuristic"),
    ("forty_five", "heuristic", 64, "heuristic"),
    ("forty_five", "greedy", 64, "greedy"),
]


def env_for(game: str) -> Any:
    return sf.spoil_five.SpoilFive(5) if game == "spoil_five" else sf.forty_five.FortyFive(4)


def opponent_policy(env: Any, opponent: str) -> Any:
    if opponent == "ppo":
        from spoilfive_jax.rl.agent import load_policy

        return load_policy(
            str(Path(__file__).resolve().parents[1] / "examples/agents/ppo_seat.npz")
        )
    return env.builtin_policy(opponent)


def row(game: str, opponent: str, samples: int, rollout: str, deals: int) -> dict[str, Any]:
    """One tournament of ``sf.pimc(env, samples, rollout)`` against ``opponent``."""
    env = env_for(game)
    bot = sf.pimc(env, num_samples=samples, rollout_policy=rollout)
    r = tournament(env, bot, opponent_policy(env, opponent), deals)
    return {
        "game": game,
        "players": env.num_players,
        "opponent": opponent,
        "samples": samples,
        "rollout": rollout,
        "deals": deals,
        **r,
    }


def time_rollout(hands: int) -> dict[str, Any]:
    """Seconds of ``sf.rollout`` with one pimc seat among four heuristic ones: its first call
    (compiles included) and a second call on other deals."""
    env = sf.spoil_five.SpoilFive(5)
    seats = [sf.pimc(), "heuristic", "heuristic", "heuristic", "heuristic"]
    times = []
    for seed in (0, 1):
        t0 = time.perf_counter()
        jax.block_until_ready(sf.rollout(seed, env, seats, num_hands=hands).rewards)
        times.append(time.perf_counter() - t0)
    return {"hands": hands, "first_s": times[0], "again_s": times[1]}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", choices=["spoil_five", "forty_five"], default="spoil_five")
    ap.add_argument(
        "--opponent",
        choices=["heuristic", "ppo", "greedy", "random"],
        default="heuristic",
        help="the other seats' policy (ppo: Spoil Five only; greedy: the family only)",
    )
    ap.add_argument("--samples", type=int, nargs="+", default=[8, 32])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--rollout", default="heuristic", help="rollout policy (default: heuristic)")
    ap.add_argument("--table", action="store_true", help="the docs' rows (ignores --game etc.)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    if args.table:
        specs = TABLE
    else:
        if args.opponent not in ("ppo", *env_for(args.game).policy_names):
            ap.error(f"--opponent {args.opponent} is not a policy of {args.game}")
        if args.opponent == "ppo" and args.game != "spoil_five":
            ap.error("--opponent ppo: the shipped agent plays Spoil Five")
        specs = [(args.game, args.opponent, k, args.rollout) for k in args.samples]
    if args.table:  # first, while nothing is compiled in this process
        timed = time_rollout(args.deals)
        print(
            f"sf.rollout, one pimc seat and 4 heuristic, {args.deals:,} hands: first call "
            f"{timed['first_s']:.1f} s (compile included), then {timed['again_s']:.1f} s"
        )
    print(
        f"{'game':>10} {'against':>9} {'samples':>7} {'pimc':>9} {'other':>9} {'diff':>8} "
        f"{'95% CI':>8} {'hands':>6} {'s':>6} {'ms/decision':>11} {'compile s':>9}"
    )
    rows = []
    for game, opponent, k, rollout in specs:
        r = row(game, opponent, k, rollout, args.deals)
        rows.append(r)
        print(
            f"{game:>10} {opponent:>9} {k:>7} {r['bot']:>+9.4f} {r['other']:>+9.4f} "
            f"{r['diff']:>+8.4f} ±{r['diff_ci']:>7.4f} {r['hands']:>6} {r['seconds']:>6.1f} "
            f"{r['ms_per_decision']:>11.2f} {r['compile_s']:>9.1f}",
            flush=True,
        )
    result: dict[str, Any] = provenance(__file__, sys.argv[1:] if argv is None else argv)
    result["rows"] = rows
    if args.table:
        result["rollout"] = timed
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
