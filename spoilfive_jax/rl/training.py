"""Training and measuring a PPO agent (extra ``rl``): ``train`` runs ``ppo.update`` under a
CPU budget and logs the greedy agent's results against the built-in bots as it goes;
``seat_evaluation`` is that measurement (the agent in one seat and its partners', paired deal by
deal with the bots' own play in those seats)."""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.rl.network import agent_input, apply, choose
from spoilfive_jax.rl.ppo import PPOConfig, State, init_runner, update
from spoilfive_jax.tools.policies import play_out

# --------------------------------------------------------------------------- evaluation


@functools.partial(jax.jit, static_argnums=(0, 1))
def _seat_chips(
    cfg: PPOConfig,
    num_hands: int,
    params: Any,
    key: jax.Array,
    heuristic: jax.Array,
    use_agent: jax.Array,
) -> jax.Array:
    """float32[H]: the reward of the measured seat in ``num_hands`` hands (dealer 0, the
    measured seat ``h % N`` for hand ``h``) against heuristic (``heuristic``) or random bots.
    The measured seat and its partners are played by the greedy network when ``use_agent``,
    else by the bot policy itself (the baseline on the same deals).  One compile serves all
    four cases."""
    n = cfg.num_players
    env = cfg.env
    net = cfg.network
    keys = jax.random.split(key, num_hands)
    seats = jnp.arange(num_hands, dtype=jnp.int32) % n
    state = jax.vmap(lambda k: env.init(k))(keys)
    smart, plain = env.builtin_policy("heuristic"), env.builtin_policy("random")
    team = jnp.asarray(env.capability(caps.Teams, "PPO").team_of(env))

    def bot(k: jax.Array, s: State, player: jax.Array) -> jax.Array:
        return jnp.where(heuristic, smart(k, s, player), plain(k, s, player))

    def agent(k: jax.Array, s: State, player: jax.Array) -> jax.Array:
        logits, _ = apply(net, params, agent_input(env, cfg.advice, s, player), s.legal_action_mask)
        return choose(logits, None, greedy=True)[0]

    def one(k: jax.Array, s: State, seat: jax.Array) -> jax.Array:
        # the measured team plays the agent (policy 1) when ``use_agent``, every other the bot
        seat_policy = ((team == team[seat]) & use_agent).astype(jnp.int32)
        _, total = play_out(env, (bot, agent), seat_policy, k, s)
        return total[seat]

    return jax.vmap(one)(keys, state, seats)  # type: ignore[no-any-return]


def seat_evaluation(
    cfg: PPOConfig, params: Any, key: jax.Array, opponent: str, num_hands: int = 4096
) -> dict[str, float]:
    """Mean reward per hand (chips, points) of the greedy agent in one seat (and its partners')
    against ``opponent`` bots (seats rotated), the bots' own mean in the same seats on the same
    deals, and 95% CIs (the gain is paired deal by deal)."""
    if opponent not in ("random", "heuristic"):
        raise ValueError(f"opponent must be 'random' or 'heuristic', got {opponent!r}")
    smart = jnp.bool_(opponent == "heuristic")
    chips = [
        np.asarray(_seat_chips(cfg, num_hands, params, key, smart, jnp.bool_(a)), np.float64)
        for a in (True, False)
    ]
    agent, base = chips

    def ci(x: np.ndarray) -> float:
        return float(1.96 * x.std(ddof=1) / np.sqrt(x.size))

    diff = agent - base
    return {
        "agent": float(agent.mean()),
        "agent_ci": ci(agent),
        "baseline": float(base.mean()),
        "baseline_ci": ci(base),
        "gain": float(diff.mean()),
        "gain_ci": ci(diff),
        "hands": num_hands,
    }


# --------------------------------------------------------------------------- training


@dataclasses.dataclass
class TrainResult:
    params: Any
    config: PPOConfig
    history: list[dict[str, Any]]  # one row per logged update
    updates: int
    hands: int  # training hands finished
    decisions: int  # learner decisions collected
    cpu_seconds: float  # process CPU time (all threads)
    wall_seconds: float


def train(
    cfg: PPOConfig,
    num_updates: int,
    seed: int = 0,
    *,
    warmup_updates: int = 0,
    max_cpu_seconds: float | None = None,
    eval_every: int = 0,
    eval_hands: int = 2048,
    log: Callable[[str], Any] | None = print,
    params: Any = None,
) -> TrainResult:
    """``warmup_updates`` imitation iterations (``update(..., imitate=True)``: learn the
    heuristic's choices in the learner's seat), then ``num_updates`` PPO updates; stop early
    once the process has used ``max_cpu_seconds`` of CPU time (all threads, compiles and
    evaluations included).

    Every ``eval_every`` updates (0: only at the end) the greedy agent is measured in one seat
    against random and heuristic bots (``seat_evaluation``) and a row is logged.
    """
    cpu0, wall0 = time.process_time(), time.perf_counter()
    total = warmup_updates + num_updates
    key = jax.random.PRNGKey(seed)
    key, k_init = jax.random.split(key)
    runner = init_runner(cfg, k_init, total, params)
    history: list[dict[str, float]] = []
    hands = 0
    chips_sum = 0.0
    hands_window = 0
    done_updates = 0
    for u in range(total):
        imitate = u < warmup_updates
        runner, metrics = update(cfg, total, runner, imitate)
        m = jax.device_get(metrics)
        hands += int(m["hands"])
        hands_window += int(m["hands"])
        chips_sum += float(m["chips"])
        done_updates = u + 1
        cpu = time.process_time() - cpu0
        out_of_time = max_cpu_seconds is not None and cpu > max_cpu_seconds
        last = done_updates in (total, warmup_updates) or out_of_time
        if (eval_every and done_updates % eval_every == 0) or last:
            key, k_eval = jax.random.split(key)
            row: dict[str, Any] = {
                "update": done_updates,
                "phase": "imitate" if imitate else "ppo",
                "hands": hands,
                "decisions": done_updates * cfg.num_envs * cfg.num_steps,
                "cpu_s": cpu,
                "wall_s": time.perf_counter() - wall0,
                "train_chips": chips_sum / max(hands_window, 1),
                "entropy": float(m["entropy"]),
                "approx_kl": float(m["approx_kl"]),
            }
            # (over several devices the parameters are laid out on all of them, and in a run of
            # several processes on devices this process cannot address: measured from the host)
            params = runner.params if cfg.num_devices == 1 else jax.device_get(runner.params)
            row.update(_evaluation_row(cfg, params, k_eval, eval_hands))
            history.append(row)
            chips_sum, hands_window = 0.0, 0
            if log is not None:
                log(_log_line(row))
        if out_of_time:
            break
    return TrainResult(
        params=jax.device_get(runner.params),
        config=cfg,
        history=history,
        updates=done_updates,
        hands=hands,
        decisions=done_updates * cfg.num_envs * cfg.num_steps,
        cpu_seconds=time.process_time() - cpu0,
        wall_seconds=time.perf_counter() - wall0,
    )


def _evaluation_row(
    cfg: PPOConfig, params: Any, key: jax.Array, eval_hands: int
) -> dict[str, float]:
    """A logged row's evaluation columns: the greedy agent against random, then heuristic bots
    (``seat_evaluation``, the same key for both), and the gain over the bots' own play."""
    row: dict[str, float] = {}
    for opp in ("random", "heuristic"):
        ev = seat_evaluation(cfg, params, key, opp, eval_hands)
        row[f"vs_{opp}"] = ev["agent"]
        row[f"vs_{opp}_ci"] = ev["agent_ci"]
        row[f"{opp}_baseline"] = ev["baseline"]
        row[f"gain_vs_{opp}"] = ev["gain"]
        row[f"gain_vs_{opp}_ci"] = ev["gain_ci"]
    return row


def _log_line(row: dict[str, Any]) -> str:
    """One logged row as a line of text (``train``'s ``log``)."""
    return (
        f"{row['phase']:7s} {row['update']:5d}  hands {row['hands']:9d}  cpu {row['cpu_s']:6.0f}s  "
        f"train {row['train_chips']:+.3f}  "
        f"vs random {row['vs_random']:+.3f}±{row['vs_random_ci']:.3f} "
        f"(random {row['random_baseline']:+.3f})  "
        f"vs heuristic {row['vs_heuristic']:+.3f}±{row['vs_heuristic_ci']:.3f} "
        f"(heuristic {row['heuristic_baseline']:+.3f}, "
        f"gain {row['gain_vs_heuristic']:+.3f}±{row['gain_vs_heuristic_ci']:.3f})  "
        f"entropy {row['entropy']:.3f}"
    )
