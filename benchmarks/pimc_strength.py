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
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax as sf

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


def main() -> None:
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
    args = ap.parse_args()
    opponent, rollout = args.opponent, args.rollout
    env = sf.spoil_five.SpoilFive(5) if args.game == "spoil_five" else sf.forty_five.FortyFive(4)
    if opponent not in ("ppo", *env.policy_names):
        ap.error(f"--opponent {opponent} is not a policy of {args.game}")
    if opponent == "ppo":
        from spoilfive_jax.rl.agent import load_policy

        other = load_policy("examples/agents/ppo_seat.npz")
    else:
        other = env.builtin_policy(opponent)
    unit = "points" if args.game == "forty_five" else "chips"
    print(f"{args.game}, {env.num_players} players: pimc vs {opponent} ({unit} per hand)")
    print(
        f"{'samples':>7} {'pimc':>9} {opponent:>10} {'diff':>8} {'95% CI':>8} "
        f"{'hands':>6} {'s':>6} {'ms/decision':>11} {'compile s':>9}"
    )
    for k in args.samples:
        bot = sf.pimc(env, num_samples=k, rollout_policy=rollout)
        r = tournament(env, bot, other, args.deals)
        print(
            f"{k:>7} {r['bot']:>+9.4f} {r['other']:>+10.4f} {r['diff']:>+8.4f} "
            f"±{r['diff_ci']:>7.4f} {r['hands']:>6} {r['seconds']:>6.1f} "
            f"{r['ms_per_decision']:>11.2f} {r['compile_s']:>9.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
