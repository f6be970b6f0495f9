"""Training and measuring a PPO agent (extra ``rl``): ``train`` runs ``ppo.update`` under a
CPU budget and logs the greedy agent's results against the built-in bots as it goes;
``seat_evaluation`` is that measurement (the agent in one seat and its partners', paired deal by
deal with the bots' own play in those seats)."""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.rl.network import agent_input, apply, choose
from spoilfive_jax.rl.ppo import PPOConfig, State, init_runner, update
from spoilfive_jax.tools.checkpoint import write_atomic
from spoilfive_jax.tools.distributed import any_process, is_main_process, same_everywhere
from spoilfive_jax.tools.policies import play_out
from spoilfive_jax.tools.sharding import host_arrays

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
    stopped: bool = False  # ``should_stop`` ended the training before ``num_updates``


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
    should_stop: Callable[[], bool] | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    save_every: int = 0,
) -> TrainResult:
    """``warmup_updates`` imitation iterations (``update(..., imitate=True)``: learn the
    heuristic's choices in the learner's seat), then ``num_updates`` PPO updates; stop early
    once the process has used ``max_cpu_seconds`` of CPU time (all threads, compiles and
    evaluations included).

    Every ``eval_every`` updates (0: only at the end) the greedy agent is measured in one seat
    against random and heuristic bots (``seat_evaluation``) and a row is logged.

    ``should_stop()`` True after an update (in any process) ends the training there.
    ``checkpoint``, a ``.npz``: the whole state, saved atomically every ``save_every`` updates
    and at the end; the same call resumes from it bit for bit (process 0 writes it)."""
    total = warmup_updates + num_updates
    key, k_init = jax.random.split(jax.random.PRNGKey(seed))
    runner = init_runner(cfg, k_init, total, params)
    run = {"config": repr(cfg), "seed": seed, "updates": num_updates, "warmup": warmup_updates}
    p = _Progress(key=np.asarray(key).tolist())
    saved = load_training(checkpoint, run, runner) if checkpoint is not None else None
    if saved is not None:
        runner, p = saved[0], _Progress(**saved[1])
        if log is not None:
            log(f"resuming at update {p.done} of {total} from {checkpoint}")
    if checkpoint is not None:
        same_everywhere("the updates a checkpoint holds", p.done, f"{checkpoint} must be shared")
    cpu0, wall0 = time.process_time() - p.cpu_s, time.perf_counter() - p.wall_s
    stopped = False
    for u in range(p.done, total):
        imitate = u < warmup_updates
        runner, metrics = update(cfg, total, runner, imitate)
        m = jax.device_get(metrics)
        p.hands += int(m["hands"])
        p.window += int(m["hands"])
        p.chips_sum += float(m["chips"])
        p.done = u + 1
        p.cpu_s, p.wall_s = time.process_time() - cpu0, time.perf_counter() - wall0
        # (decided together: every process of a multi-process run stops at the same update)
        out_of_time = any_process(max_cpu_seconds is not None and p.cpu_s > max_cpu_seconds)
        stopped = any_process(should_stop is not None and bool(should_stop())) and p.done < total
        ending = out_of_time or stopped or p.done == total
        if (eval_every and p.done % eval_every == 0) or ending or p.done == warmup_updates:
            row = _row(cfg, p, m, "imitate" if imitate else "ppo")
            # (over several devices the parameters are laid out on all of them, and in a run of
            # several processes on devices this process cannot address: measured from the host)
            params = runner.params if cfg.num_devices == 1 else jax.device_get(runner.params)
            key, k_eval = jax.random.split(jnp.asarray(p.key, jnp.uint32))
            p.key = np.asarray(key).tolist()
            row.update(_evaluation_row(cfg, params, k_eval, eval_hands))
            p.history.append(row)
            p.chips_sum, p.window = 0.0, 0
            if log is not None:
                log(_log_line(row))
        if checkpoint is not None and (ending or (save_every and p.done % save_every == 0)):
            save_training(checkpoint, run, runner, dataclasses.asdict(p))
        if out_of_time or stopped:
            break
    return TrainResult(
        params=jax.device_get(runner.params),
        config=cfg,
        history=p.history,
        updates=p.done,
        hands=p.hands,
        decisions=p.done * cfg.num_envs * cfg.num_steps,
        cpu_seconds=time.process_time() - cpu0,
        wall_seconds=time.perf_counter() - wall0,
        stopped=stopped,
    )


@dataclasses.dataclass
class _Progress:
    """Where a training run is (what a checkpoint keeps besides the runner's arrays)."""

    key: list[int]  # the evaluations' key (uint32[2] as a list)
    done: int = 0  # updates done
    hands: int = 0  # training hands finished
    window: int = 0  # hands since the last logged row
    chips_sum: float = 0.0  # their rewards' sum
    history: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    cpu_s: float = 0.0  # CPU and wall seconds so far, every earlier session included
    wall_s: float = 0.0


def _row(cfg: PPOConfig, p: _Progress, m: dict[str, Any], phase: str) -> dict[str, Any]:
    """A logged row's training columns."""
    return {
        "update": p.done,
        "phase": phase,
        "hands": p.hands,
        "decisions": p.done * cfg.num_envs * cfg.num_steps,
        "cpu_s": p.cpu_s,
        "wall_s": p.wall_s,
        "train_chips": p.chips_sum / max(p.window, 1),
        "entropy": float(m["entropy"]),
        "approx_kl": float(m["approx_kl"]),
    }


# --------------------------------------------------------------------------- checkpoints


def save_training(
    path: str | os.PathLike[str], run: dict[str, Any], runner: Any, counters: dict[str, Any]
) -> None:
    """The training state in ``path`` (one ``.npz``, written atomically by process 0): every
    array of ``runner`` (gathered to the host from every device and process), and ``run`` and
    ``counters`` as JSON."""
    leaves = host_arrays(jax.tree.leaves(runner))  # (every process: a collective when spread)
    if not is_main_process():
        return
    buf = io.BytesIO()
    meta = json.dumps({"run": run, "counters": counters}, default=float)
    np.savez(buf, meta=np.array(meta), **{f"leaf_{i}": x for i, x in enumerate(leaves)})
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, buf.getvalue())


def load_training(
    path: str | os.PathLike[str], run: dict[str, Any], template: Any
) -> tuple[Any, dict[str, Any]] | None:
    """(the runner, the counters) saved in ``path``, laid out as ``template`` (a fresh runner of
    the same run: each array on the template's devices), or None when there is no file yet;
    ``ValueError`` for a checkpoint of another run."""
    target = Path(path)
    if not target.exists():
        return None
    with np.load(target) as data:
        meta = json.loads(str(data["meta"]))
        leaves = [data[f"leaf_{i}"] for i in range(len(data.files) - 1)]
    if meta["run"] != run:
        differs = sorted(k for k in run if meta["run"].get(k) != run[k])
        raise ValueError(
            f"checkpoint {target} is of another training run (its {', '.join(differs)} "
            "differ): give a new checkpoint file, or the run's own arguments"
        )
    flat, tree = jax.tree.flatten(template)
    if len(flat) != len(leaves):
        raise ValueError(f"checkpoint {target} does not hold this run's training state")

    def placed(like: jax.Array, host: np.ndarray) -> jax.Array:
        if host.shape != like.shape or host.dtype != like.dtype:
            raise ValueError(f"checkpoint {target} does not hold this run's training state")
        return jax.make_array_from_callback(host.shape, like.sharding, lambda index: host[index])

    runner = jax.tree.unflatten(tree, [placed(x, h) for x, h in zip(flat, leaves, strict=True)])
    return runner, meta["counters"]


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
