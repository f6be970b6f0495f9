"""The best bot (``sf.best_policy``) and each of its levers alone, against plain
``sf.pimc(env, 64)``, in the seat-rotated tournaments of ``pimc_strength.py``.

Spoil Five (5 players, seed rules): one seat of the bot against four pimc-64 seats, rotated
through the five seats over the same fresh deals.  Forty-Five, Twenty-Five and Auction
Forty-Fives (4 players): a partnership of the bot against a pimc-64 partnership, swapped over
the same deals.  Each row is the bot's chips (points) a hand minus the other seats', with a 95%
interval over deals; the bot's own result a hand is printed too (a lever can win the
difference by costing the others, not by gaining).

Rows (``--rows``):
- ``tie``: ties of the means go to the heuristic's choice (``tie_break="heuristic"``);
- ``carry``: a spoil is worth one seat's share of the carried pot (``carry_share=1``;
  Spoil Five only);
- ``worlds``: 256 worlds a decision instead of 64;
- ``solve``: each world's last two tricks solved exactly (``solve_tricks=2``: minimax for the
  bot's partnership, every other seat against it in Spoil Five);
- ``solve-all``: each world's whole play solved exactly (``solve_tricks="all"``, ``sf.solve``'s
  search);
- ``solve3``: each world's last three tricks solved exactly (``solve_tricks=3``: Spoil Five's
  whole hands, four seats against one, are some 30 times the family's to search);
- ``solve-all-vs-best``: the ``solve-all`` bot against ``best`` instead of pimc 64;
- ``solve-all16-vs-best``: the same with 16 worlds a decision, against ``best``: about best's
  time a decision in the family's tournaments (the equal-time comparison);
- ``infer``: 256 worlds drawn, 64 kept by how likely they make the other seats' plays under
  the softened heuristic (``infer_worlds=256``; the family only);
- ``infer-ppo``: 128 worlds drawn, 64 kept by the likelihood of the plays under the game's
  shipped PPO agent (``agent_path``: trained to imitate pimc) mixed with 10% of random play
  (``infer_model=agent, softness=0.1``);
- ``best``: ``sf.best_policy(env)`` (in Forty-Five and Twenty-Five the ``infer-ppo`` bot
  itself, weighing by the agent the package ships; Forty-Five's table row is on other deals,
  ``--seed 10``);
- ``sees-all``: ``sf.best_policy(env, see_all=True)``, the same bot seeing every hand, against
  ``best`` itself (the cheating bound: what the hidden cards cost it);
- ``solver-sees-all``: the true upper bound, against ``best``: every decision is the exact
  solve of the real deal, every hand in view (``sf.pimc(env, 1, see_all=True,
  solve_tricks="all")``).

    python benchmarks/best_bot.py --game spoil_five --deals 2000
    python benchmarks/best_bot.py --game forty_five --deals 1000 --rows tie sees-all
    python benchmarks/best_bot.py --table --json benchmarks/results/best_bot.json
    python benchmarks/best_bot.py --game forty_five --rows tie --deals 1000 \
        --json benchmarks/results/best_bot.json --merge   # replaces those rows only
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax as sf
from spoilfive_jax.games.forty_five.agent import AGENTS_DIR
from spoilfive_jax.games.forty_five.state import PHASE_PLAY
from spoilfive_jax.rl.agent import load_policy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from pimc_strength import tournament
from provenance import merged, provenance

MAX_DECISIONS = 200  # more than any hand takes
ROWS = (
    "tie",
    "carry",
    "worlds",
    "solve",
    "solve-all",
    "solve3",
    "solve-all-vs-best",
    "solve-all16-vs-best",
    "infer",
    "infer-ppo",
    "best",
    "sees-all",
    "solver-sees-all",
)
AGENT = Path(AGENTS_DIR) / "forty_five_ppo.npz"  # (the package's; examples/agents links to it)
GAMES = ("spoil_five", "forty_five", "twenty_five", "auction_forty_fives")


def env_for(game: str) -> Any:
    """The table of ``game`` the rows play: Spoil Five at 5 players, the family at 4."""
    return sf.spoil_five.SpoilFive(5) if game == "spoil_five" else sf.make(game, 4)


def agent_path(game: str) -> Path:
    """The family ``game``'s shipped PPO agent: the package's copy, else ``examples/agents``'."""
    packaged = Path(AGENTS_DIR) / f"{game}_ppo.npz"
    if packaged.is_file():
        return packaged
    return Path(__file__).resolve().parents[1] / "examples" / "agents" / f"{game}_ppo.npz"


# The docs' table (``--table``): (game, row, deals, seed; None: ``--seed``).
TABLE = [
    *(("spoil_five", row, 2000, None) for row in ("carry", "tie", "best", "sees-all")),
    ("forty_five", "tie", 1000, None),
    ("forty_five", "sees-all", 1000, None),
    ("forty_five", "worlds", 500, None),  # (four times the cost of a decision)
    ("forty_five", "solve", 2000, None),
    ("forty_five", "infer", 2000, None),
    ("forty_five", "infer-ppo", 2000, None),
    ("forty_five", "best", 2000, 10),  # (the infer-ppo bot: other deals than its row's)
    ("twenty_five", "infer-ppo", 2000, 11),  # (its own agent: the bot best is there)
]


def players(env: Any, row: str) -> tuple[Any, Any]:
    """(the bot of ``row``, the policy it plays against)."""
    base = sf.pimc(env, 64)
    if row == "tie":
        return sf.pimc(env, 64, tie_break="heuristic", name="pimc64+tie"), base
    if row == "carry":
        return sf.pimc(env, 64, carry_share=1.0, name="pimc64+carry"), base
    if row == "worlds":
        return sf.pimc(env, 256), base
    if row == "solve":
        return sf.pimc(env, 64, solve_tricks=2, name="pimc64+solve2"), base
    if row == "solve-all":
        return sf.pimc(env, 64, solve_tricks="all", name="pimc64+solve-all"), base
    if row == "solve3":
        return sf.pimc(env, 64, solve_tricks=3, name="pimc64+solve3"), base
    if row == "solve-all-vs-best":
        return sf.pimc(env, 64, solve_tricks="all", name="pimc64+solve-all"), sf.best_policy(env)
    if row == "solve-all16-vs-best":
        return sf.pimc(env, 16, solve_tricks="all", name="pimc16+solve-all"), sf.best_policy(env)
    if row == "solver-sees-all":  # the true upper bound: each decision the real deal's solve
        bound = sf.pimc(env, 1, see_all=True, solve_tricks="all", name="solver")
        return bound, sf.best_policy(env)
    if row == "infer":
        return sf.pimc(env, 64, infer_worlds=256, name="pimc64+infer"), base
    if row == "infer-ppo":
        agent = load_policy(agent_path(env.id))
        return sf.pimc(
            env, 64, infer_worlds=128, infer_model=agent, softness=0.1, name="pimc64+infer-ppo"
        ), base
    if row == "best":
        return sf.best_policy(env), base
    if row == "sees-all":
        return sf.best_policy(env, see_all=True), sf.best_policy(env)
    raise ValueError(f"unknown row {row!r}; use {', '.join(ROWS)}")


def run_row(game: str, row: str, deals: int, seed: int) -> dict[str, Any]:
    env = env_for(game)
    bot, other = players(env, row)
    r = tournament(env, bot, other, deals, seed=seed)
    return {
        "game": game,
        "players": env.num_players,
        "row": row,
        "bot_name": bot.__name__,
        "against": other.__name__,
        "deals": deals,
        **r,
    }


def agreement(deals: int, seed: int) -> dict[str, float]:
    """How well each model of ``infer_worlds`` predicts ``sf.pimc(env, 64)`` (at every seat of
    fresh Forty-Five deals), over the plays with two or more legal cards: how often pimc plays
    the heuristic's card, the ``softness`` s that the softened heuristic needs to agree as
    often (E[1 - s + s / L] = agreement), and the mean log-probability of pimc's card under a
    uniform choice, that softened heuristic and the shipped PPO agent (``AGENT``)."""
    env = env_for("forty_five")
    bot, heuristic, agent = sf.pimc(env, 64), env.builtin_policy("heuristic"), load_policy(AGENT)

    @jax.jit
    def decide(keys: jax.Array, state: Any) -> tuple[Any, ...]:
        seat = jnp.maximum(state.current_player, 0)
        action = jax.vmap(bot)(keys, state, seat)
        same = action == jax.vmap(heuristic)(keys, state, seat)
        legal = state.legal_action_mask.sum(-1)
        probs = jax.vmap(agent.action_probs)(state, seat)
        ppo = jnp.log(jnp.take_along_axis(probs, action[:, None], axis=1)[:, 0])
        counted = ~state.terminated & (state.phase == PHASE_PLAY) & (legal > 1)
        return jax.vmap(env.step)(state, action), same, legal, ppo, counted

    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(seed), deals))
    same, legal, ppo = [], [], []
    for t in range(MAX_DECISIONS):
        keys = jax.random.split(jax.random.PRNGKey(1000 + t), deals)
        state, s, n, p, counted = jax.device_get(decide(keys, state))
        same.append(s[counted])
        legal.append(n[counted])
        ppo.append(p[counted])
        if state.terminated.all():
            break
    hit, cards = np.concatenate(same), np.concatenate(legal)
    agree = float(hit.mean())
    softness = (1 - agree) / (1 - float((1 / cards).mean()))
    softened = np.where(hit, np.log(1 - softness + softness / cards), np.log(softness / cards))
    return {
        "plays": int(cards.size),
        "agreement": agree,
        "mean_legal": float(cards.mean()),
        "softness": softness,
        "loglik_uniform": float(-np.log(cards).mean()),
        "loglik_heuristic": float(softened.mean()),
        "loglik_ppo": float(np.concatenate(ppo).mean()),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", choices=GAMES, default="spoil_five")
    ap.add_argument(
        "--rows",
        nargs="+",
        choices=ROWS,
        help="default: Spoil Five tie carry best; Forty-Five tie worlds best",
    )
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=7, help="the deals' seed (not pimc_strength's)")
    ap.add_argument("--table", action="store_true", help="the docs' rows (ignores --game etc.)")
    ap.add_argument(
        "--agreement",
        action="store_true",
        help="only how well the models of infer_worlds predict pimc 64's plays in Forty-Five "
        "(--deals deals): the heuristic's agreement, the softness that matches it (pimc's "
        "DEFAULT_SOFTNESS), and each model's mean log-probability of pimc's card",
    )
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    ap.add_argument(
        "--merge",
        action="store_true",
        help="keep the other rows of --json FILE (and its commands) and replace these",
    )
    args = ap.parse_args(argv)
    if args.merge and not args.json:  # (without a file the run's figures would be kept nowhere)
        ap.error("--merge keeps the other rows of --json FILE: give --json FILE")
    if args.agreement:
        a = agreement(args.deals, args.seed)
        print(
            f"pimc 64 plays the heuristic's card in {a['agreement']:.1%} of {a['plays']:,} plays "
            f"(of 2+ legal cards, {a['mean_legal']:.2f} on average): softness {a['softness']:.2f}\n"
            f"mean log-probability of pimc's card: uniform {a['loglik_uniform']:.3f}, the "
            f"heuristic softened so {a['loglik_heuristic']:.3f}, "
            f"the PPO agent {a['loglik_ppo']:.3f}"
        )
        return a
    if args.table:
        specs = list(TABLE)
    else:
        if args.rows is None:
            spoil = args.game == "spoil_five"
            args.rows = ["tie", "carry", "best"] if spoil else ["tie", "worlds", "best"]
        if "carry" in args.rows and args.game != "spoil_five":
            ap.error("--rows carry: only Spoil Five's hands are spoiled and carried")
        if {"infer", "infer-ppo"} & set(args.rows) and args.game == "spoil_five":
            ap.error("--rows infer, infer-ppo: Spoil Five has no inference yet (the family has)")
        specs = [(args.game, r, args.deals, None) for r in args.rows]
    print(
        f"{'game':>10} {'row':>8} {'bot':>16} {'against':>10} {'bot/hand':>9} {'diff':>8} "
        f"{'95% CI':>8} {'hands':>6} {'ms/decision':>11}"
    )
    rows = []
    for game, row, deals, seed in specs:
        r = run_row(game, row, deals, args.seed if seed is None else seed)
        rows.append(r)
        print(
            f"{game:>10} {row:>8} {r['bot_name']:>16} {r['against']:>10} {r['bot']:>+9.3f} "
            f"{r['diff']:>+8.3f} ±{r['diff_ci']:>7.3f} {r['hands']:>6} "
            f"{r['ms_per_decision']:>11.2f}",
            flush=True,
        )
    result: dict[str, Any] = provenance(__file__, sys.argv[1:] if argv is None else argv)
    result["rows"] = rows
    if args.merge and args.json and Path(args.json).is_file():
        old = json.loads(Path(args.json).read_text())
        result = merged(old, result, "rows", lambda r: (r["game"], r["row"]))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
