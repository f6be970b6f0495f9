"""Train an agent of any registered game with PPO and evaluate it.

    pip install -e ".[rl,plot]"
    python examples/train_ppo.py --game forty_five --opponent heuristic --warmup 100 \
        --updates 2000 --cpu-minutes 25 --out runs/forty_five

Training is fully jitted (``spoilfive_jax.rl.ppo``): tables are vmapped, the learner holds one
seat and its partners' (the Forty-Five family at 4 players: seats 0 and 2, sharing their team's
points), the other seats are the game's built-in heuristic or random bots, or past selves with
``--opponent self`` (a pool of ``--pool-size`` snapshots, one taken every ``--pool-every``
updates).  Each update collects ``--num-steps`` learner decisions per table with ``lax.scan``
and learns with GAE and clipped PPO.  ``--warmup K`` first spends K iterations imitating a
teacher in the learning seats (cross-entropy: the heuristic, or ``--teacher pimc``, the search
bot), then PPO takes over.  ``--advice heuristic`` gives the network the heuristic's choice for
each decision as an input (and a learned bonus on that action's logit), so that imitation
reaches the heuristic's own play and training learns where to deviate from it.  The tables are
split over every local device (``sf.use_all_cores()``: one per CPU core; ``--devices N`` for
fewer), and with ``--coordinator HOST:PORT --num-processes N --process-id I`` (the same
command in every process, ``sf.distributed``) over every device of every process; process 0
prints and writes.
Every ``--eval-every`` updates the greedy agent plays ``--eval-hands`` hands in one seat (and
its partners') against random and against heuristic bots.

At the end the agent is saved (``OUT/<name>.npz`` + ``.json``; the name defaults to
``<game>_ppo``, ``ppo_seat`` for Spoil Five), reloaded with
``spoilfive_jax.rl.agent.load_policy`` and measured through the public API (``sf.rollout`` with
the agent in each seat in turn against bots, paired with the bots' own result on the same deals,
an ``sf.evaluate`` tournament against the heuristic and, with ``--pimc-hands``, one against
``sf.pimc(env, 64)``); ``OUT/history.json``, ``OUT/eval.json`` and the learning curve
``OUT/learning_curve.png`` are written.

A run keeps its progress: the whole training state is saved to ``--checkpoint`` (default
``OUT/<name>.ckpt.npz``) every ``--save-every`` updates (default: every ``--eval-every``), and
the same command resumes from it after the last update saved, as if never stopped (bit for
bit).  Ctrl-C stops the training after the update in progress: the agent and the history so
far are written, the checkpoint is saved, and the script exits with status 130 without the
final evaluation; a second Ctrl-C quits at once.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import jax
import numpy as np

import spoilfive_jax as sf
from spoilfive_jax.cli.runs import Stop
from spoilfive_jax.rl.agent import (
    Agent,
    PPOConfig,
    load_policy,
    make_policy,
    metadata_for,
    save_agent,
    train,
)
from spoilfive_jax.rl.network import ADVISORS
from spoilfive_jax.rl.ppo import TEACHERS

REWARD_SCALE = {"spoil_five": 0.25}  # a hand's reward -> training reward (chips: about 1-10)
POINTS_SCALE = 0.1  # the family's points: 0-30 a hand


def seat_rotation(
    key: int, env: sf.Env[Any, Any], policy: Any, bots: str, num_hands: int
) -> dict[str, float]:
    """The agent in seat s and its partners' (s = 0..N-1, ``num_hands`` deals each) against
    ``bots``, paired deal by deal with ``bots`` in those seats on the same deals
    (``sf.rollout``: same key, same deals)."""
    n = env.num_players
    team = env.capability(sf.capabilities.Teams).team_of(env)
    base = sf.rollout(key, env, bots, num_hands).rewards.astype(np.float64)
    agent_chips, diffs = [], []
    for s in range(n):
        seats = [policy if team[i] == team[s] else bots for i in range(n)]
        out = sf.rollout(key, env, seats, num_hands).rewards.astype(np.float64)
        agent_chips.append(out[:, s])
        diffs.append(out[:, s] - base[:, s])
    a, d = np.concatenate(agent_chips), np.concatenate(diffs)
    b = base.reshape(-1)

    def ci(x: np.ndarray) -> float:
        return float(1.96 * x.std(ddof=1) / np.sqrt(x.size))

    return {
        "agent": float(a.mean()),
        "agent_ci": ci(a),
        "baseline": float(b.mean()),
        "gain": float(d.mean()),
        "gain_ci": ci(d),
        "hands": int(a.size),
    }


def plot(history: list[dict[str, float]], path: str, unit: str = "chips") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.array([h["cpu_s"] for h in history]) / 60
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for opp, color in (("random", "tab:green"), ("heuristic", "tab:red")):
        y = np.array([h[f"vs_{opp}"] for h in history])
        e = np.array([h[f"vs_{opp}_ci"] for h in history])
        ax.plot(x, y, color=color, marker="o", ms=3, label=f"agent vs {opp} bots")
        ax.fill_between(x, y - e, y + e, color=color, alpha=0.2)
        base = np.mean([h[f"{opp}_baseline"] for h in history])
        ax.axhline(base, color=color, ls="--", lw=1, label=f"{opp} in the same seat")
    warm = [h["cpu_s"] / 60 for h in history if h.get("phase") == "imitate"]
    if warm:
        ax.axvline(max(warm), color="gray", lw=1, ls=":", label="end of imitation warm-up")
    ax.set_xlabel("CPU minutes (training + evaluation)")
    ax.set_ylabel(f"mean {unit} per hand (one seat, 95% CI)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_run(out: str, path: str, cfg: PPOConfig, result: Any, meta: dict[str, Any]) -> None:
    """The agent (``path``: ``.npz`` and ``.json``), ``history.json`` and the learning curve."""
    os.makedirs(out, exist_ok=True)
    save_agent(path, result.params, meta)
    with open(os.path.join(out, "history.json"), "w") as f:
        json.dump(result.history, f, indent=1)
    if result.history:
        try:
            unit = cfg.env.capability(sf.capabilities.Rollouts).score_unit(cfg.env)
            plot(result.history, os.path.join(out, "learning_curve.png"), unit)
        except ImportError:
            print("matplotlib is not installed: no learning-curve plot (pip install matplotlib)")


def _quiet(*_: Any, **__: Any) -> None:
    """``print`` for the processes other than process 0."""


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--game", choices=sf.available_games(), default="spoil_five")
    ap.add_argument("--opponent", choices=("heuristic", "random", "self"), default="heuristic")
    ap.add_argument("--pool-size", type=int, default=8, help="--opponent self: past selves kept")
    ap.add_argument(
        "--pool-every", type=int, default=10, help="--opponent self: updates between snapshots"
    )
    ap.add_argument(
        "--devices",
        type=int,
        default=None,
        help="local devices to split the tables over (default: every CPU core, sf.use_all_cores())",
    )
    ap.add_argument("--updates", type=int, default=1000)
    ap.add_argument(
        "--warmup", type=int, default=0, help="imitation updates (learn the heuristic) first"
    )
    ap.add_argument(
        "--cpu-minutes", type=float, default=None, help="stop training after this CPU time"
    )
    ap.add_argument("--num-envs", type=int, default=256)
    ap.add_argument("--num-steps", type=int, default=16)
    ap.add_argument(
        "--num-players", type=int, default=None, help="default: the game's (Spoil Five 5, else 4)"
    )
    ap.add_argument(
        "--rules",
        choices=("seed", "traditional"),
        default=None,
        help="Spoil Five's preset (default seed); other games play their registry rules",
    )
    ap.add_argument(
        "--reward-scale",
        type=float,
        default=None,
        help=f"reward -> training reward (default {REWARD_SCALE['spoil_five']} for Spoil Five's "
        f"chips, {POINTS_SCALE} for points)",
    )
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--minibatches", type=int, default=4)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--eval-hands", type=int, default=2048)
    ap.add_argument("--final-hands", type=int, default=4000, help="deals per seat at the end")
    ap.add_argument("--tournament-hands", type=int, default=4000)
    ap.add_argument(
        "--pimc-hands", type=int, default=0, help="deals of a tournament against sf.pimc(env, 64)"
    )
    ap.add_argument(
        "--advice",
        choices=("", *ADVISORS),
        default="",
        help="the network also reads this built-in policy's choice (e.g. heuristic) and learns "
        "where to play otherwise",
    )
    ap.add_argument(
        "--teacher",
        choices=TEACHERS,
        default="heuristic",
        help="whose play the --warmup iterations imitate (pimc: sf.pimc, --teacher-worlds)",
    )
    ap.add_argument("--teacher-worlds", type=int, default=64)
    ap.add_argument("--init", default=None, help="start from this saved agent's parameters")
    ap.add_argument("--name", default=None, help="default: <game>_ppo (Spoil Five: ppo_seat)")
    ap.add_argument("--out", default="runs/ppo")
    ap.add_argument(
        "--checkpoint",
        default=None,
        metavar="FILE",
        help="the training state, saved as it goes and resumed by the same command "
        "(default OUT/<name>.ckpt.npz)",
    )
    ap.add_argument(
        "--save-every", type=int, default=None, help="updates between saves (default --eval-every)"
    )
    g = ap.add_argument_group("many processes (sf.distributed: all three, in every process)")
    g.add_argument("--coordinator", metavar="HOST:PORT", help="process 0's address and a free port")
    g.add_argument("--num-processes", type=int, metavar="N", help="processes in all")
    g.add_argument("--process-id", type=int, metavar="I", help="this one's, 0..N-1")
    args = ap.parse_args(argv)
    devices = sf.use_all_cores(args.devices)  # first thing: before any JAX computation
    processes = (args.coordinator, args.num_processes, args.process_id)
    if any(x is not None for x in processes):  # every device of every process trains
        sf.distributed.initialize(*processes)
        devices = len(jax.devices())
    main_process = sf.distributed.is_main_process()  # the one that prints and writes
    say = print if main_process else _quiet
    if args.rules is not None and args.game != "spoil_five":
        ap.error("--rules names a Spoil Five preset; other games play their registry rules")
    spoil_five = args.game == "spoil_five"
    name = args.name or ("ppo_seat" if spoil_five else f"{args.game}_ppo")
    num_envs = args.num_envs - args.num_envs % devices
    if num_envs != args.num_envs:
        say(f"{args.num_envs} tables do not split over {devices} devices: {num_envs} instead")

    cfg = PPOConfig(
        game=args.game,
        num_players=args.num_players or sf.make(args.game).num_players,
        rules=sf.spoil_five.Rules.preset(args.rules or "seed") if spoil_five else None,
        reward_scale=args.reward_scale or REWARD_SCALE.get(args.game, POINTS_SCALE),
        pool_size=args.pool_size,
        pool_every=args.pool_every,
        num_devices=devices,
        opponent=args.opponent,
        num_envs=num_envs,
        num_steps=args.num_steps,
        lr=args.lr,
        epochs=args.epochs,
        minibatches=args.minibatches,
        ent_coef=args.ent_coef,
        hidden=tuple(args.hidden),
        advice=args.advice,
        teacher=args.teacher,
        teacher_worlds=args.teacher_worlds,
    )
    params = None
    if args.init:
        from spoilfive_jax.rl.agent import load_agent

        params = load_agent(args.init).params
    say(f"training {cfg}")
    checkpoint = args.checkpoint or os.path.join(args.out, name + ".ckpt.npz")
    try:
        with Stop(unit="update") as stop:  # (the command line's Ctrl-C)
            result = train(
                cfg,
                args.updates,
                seed=args.seed,
                warmup_updates=args.warmup,
                max_cpu_seconds=None if args.cpu_minutes is None else 60 * args.cpu_minutes,
                eval_every=args.eval_every,
                eval_hands=args.eval_hands,
                params=params,
                log=say,
                should_stop=stop,
                checkpoint=checkpoint,
                save_every=args.eval_every if args.save_every is None else args.save_every,
            )
    except KeyboardInterrupt:
        print(f"interrupted: the last checkpoint ({checkpoint}) stands", file=sys.stderr)
        raise SystemExit(130) from None
    say(
        f"trained {result.updates} updates, {result.hands} hands, {result.decisions} decisions "
        f"in {result.cpu_seconds:.0f} s CPU ({result.wall_seconds:.0f} s wall)"
    )
    meta = metadata_for(
        cfg,
        name="ppo",
        seed=args.seed,
        updates=result.updates,
        warmup_updates=args.warmup,
        training_hands=result.hands,
        training_decisions=result.decisions,
        training_cpu_seconds=round(result.cpu_seconds, 1),
        processes=jax.process_count(),
        command="python examples/train_ppo.py " + " ".join(argv or []),
    )
    path = os.path.join(args.out, name + ".npz")
    if main_process:
        write_run(args.out, path, cfg, result, meta)
    if result.stopped or stop():  # (a Ctrl-C during the last update: no evaluation either)
        say(
            f"stopped after {result.updates} updates: saved {path} and the history so far; the "
            f"same command resumes from {checkpoint}"
        )
        raise SystemExit(130)

    # Final evaluation through the public API, with the agent reloaded from disk (in a run of
    # several processes, where the others may not see process 0's disk: the same parameters,
    # from memory); every process plays its share of each call.
    env = cfg.env
    unit = env.capability(sf.capabilities.Rollouts).score_unit(env)
    policy = load_policy(path) if main_process else make_policy(Agent(result.params, meta))
    t0 = time.perf_counter()
    report: dict[str, Any] = {"agent": path, "cpu_seconds_training": result.cpu_seconds}
    for bots in ("random", "heuristic"):
        r = seat_rotation(12345, env, policy, bots, args.final_hands)
        report[f"one_seat_vs_{bots}"] = r
        say(
            f"agent in one seat (and its partners') vs {bots} bots: {r['agent']:+.4f} "
            f"± {r['agent_ci']:.4f} {unit}/hand ({bots} in those seats: {r['baseline']:+.4f}; "
            f"gain {r['gain']:+.4f} ± {r['gain_ci']:.4f}, {r['hands']} hands)"
        )
    rivals = {"heuristic": ("heuristic", args.tournament_hands)}
    if args.pimc_hands:
        rivals["pimc"] = (sf.pimc(env, 64), args.pimc_hands)
    for rival, (spec, hands) in rivals.items():
        if not hands:
            continue
        t = sf.evaluate(54321, env, {"ppo": policy, rival: spec}, hands)
        report[f"tournament_vs_{rival}"] = {
            "names": list(t.names),
            "mean_chips": t.mean_reward.tolist(),
            "ci95": t.ci95.tolist(),
            "win_rate": t.win_rate.tolist(),
            "unit": unit,
            "deals": t.hands,
            "seatings": t.rotations,
        }
        say(f"tournament, ppo vs {rival}:")
        say(t.table())
    report["eval_seconds"] = time.perf_counter() - t0
    if main_process:
        with open(os.path.join(args.out, "eval.json"), "w") as f:
            json.dump(report, f, indent=1)
    say(f"saved {path}; evaluation took {report['eval_seconds']:.0f} s")
    return report


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
