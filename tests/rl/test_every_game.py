"""PPO on every game of the family: the learner holds a whole partnership, a tiny run clearly
beats random play, self-play keeps a pool of past selves, and the tables split over devices."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import numpy as np
import pytest

import spoilfive_jax as sf

pytest.importorskip("flax")
pytest.importorskip("optax")

from conftest import env_vars, finish, free_port, start_all

from spoilfive_jax.rl import agent, ppo

FAMILY = ("forty_five", "twenty_five", "auction_forty_fives")


def tiny(game: str, **changes: object) -> ppo.PPOConfig:
    options = dict(
        game=game,
        num_players=4,
        opponent="random",
        num_envs=128,
        num_steps=8,
        epochs=8,
        minibatches=4,
        lr=3e-3,
        hidden=(128, 128),
        reward_scale=0.1,
    )
    return ppo.PPOConfig(**(options | changes))  # type: ignore[arg-type]


@pytest.mark.slow  # (the learner's team mechanics and a shipped agent are checked by default)
@pytest.mark.parametrize("game", FAMILY)
def test_a_tiny_training_of_each_family_game_clearly_beats_random_play(game):
    """A few imitation iterations, then PPO; the greedy team (seats s and s + 2, rotated)
    against random bots, paired deal by deal with a random team on the same 1000 deals."""
    run = agent.train(tiny(game), 4, seed=0, warmup_updates=12, eval_hands=1000, log=None)
    final = run.history[-1]
    assert final["phase"] == "ppo" and run.updates == 16
    assert final["gain_vs_random"] - final["gain_vs_random_ci"] > 0, final


def test_the_learner_holds_its_partners_seats():
    cfg = tiny("forty_five", num_envs=32, num_steps=12, hidden=(8,))
    np.testing.assert_array_equal(cfg.learners, [True, False, True, False])
    assert sf.spoil_five.SpoilFive(5).capability(sf.capabilities.Teams).team_of(
        sf.spoil_five.SpoilFive(5)
    ).tolist() == [0, 1, 2, 3, 4]


@pytest.mark.slow  # (a compile of the family's PPO update; the shipped agent plays by default)
def test_the_learner_plays_its_partners_seats_and_shares_their_points():
    cfg = tiny("forty_five", num_envs=32, num_steps=12, hidden=(8,))
    runner = ppo.init_runner(cfg, jax.random.PRNGKey(0), 2)
    runner, metrics = ppo.update(cfg, 2, runner, True)
    state = jax.device_get(runner.state)
    live = ~state.terminated
    assert live.all()  # a finished hand is re-dealt and played up to the learner
    assert set(np.unique(state.current_player[live]).tolist()) == {0, 2}  # both partners act
    # the heuristic team's points per hand in the imitation iteration: well above random's 15
    assert float(metrics["chips"]) / float(metrics["hands"]) > 16


@pytest.mark.slow
def test_self_play_keeps_a_pool_of_past_selves():
    cfg = tiny("twenty_five", opponent="self", pool_size=2, pool_every=1, hidden=(8,))
    runner = ppo.init_runner(cfg, jax.random.PRNGKey(0), 3)
    first = runner.params
    seen = []
    for _ in range(3):
        runner, _ = ppo.update(cfg, 3, runner)
        seen.append(runner.params)
    pool = jax.device_get(runner.pool)

    def same(tree: object, slot: int) -> bool:
        return all(
            np.array_equal(np.asarray(a), np.asarray(b)[slot])
            for a, b in zip(jax.tree.leaves(tree), jax.tree.leaves(pool), strict=True)
        )

    # snapshots after updates 1, 2, 3 went to slots 1, 0, 1 (a ring of two)
    assert same(seen[2], 1) and same(seen[1], 0) and not same(first, 0)
    with pytest.raises(ValueError, match="pool_size"):
        tiny("forty_five", opponent="self", pool_size=0)


def test_bad_configurations_are_refused_by_name():
    with pytest.raises(ValueError, match="unknown game 'hearts'"):
        ppo.PPOConfig(game="hearts")
    with pytest.raises(ValueError, match="multiple of num_devices"):
        tiny("forty_five", num_envs=63, num_devices=2)
    with pytest.raises(ValueError, match="FamilyActorCritic"):
        ppo.PPOConfig(game="spoil_five", network_name="FamilyActorCritic")
    with pytest.raises(ValueError, match="unknown network 'CNN'"):
        ppo.PPOConfig(game="oh_hell", num_players=4, network_name="CNN")


@pytest.mark.slow
def test_training_splits_its_tables_over_two_devices_and_still_learns():
    """Two host devices in a fresh process: each plays half the tables, the gradients are
    averaged, and a tiny Spoil Five run still clearly beats random play."""
    code = """
        import jax, json
        import spoilfive_jax as sf
        sf.use_all_cores(2)
        from spoilfive_jax.rl import agent, ppo
        cfg = agent.PPOConfig(num_players=3, opponent="random", num_envs=64, num_steps=16,
                              minibatches=2, lr=1e-3, hidden=(64, 64), num_devices=2)
        runner = ppo.init_runner(cfg, jax.random.PRNGKey(0), 1)
        shards = {s.device.id: s.data.shape[0] for s in runner.state.terminated.addressable_shards}
        run = agent.train(cfg, 30, seed=0, eval_hands=3000, log=None)
        print(json.dumps({"shards": shards, "final": run.history[-1]}))
    """
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=600,
        env={"PATH": "/usr/bin:/bin", "JAX_PLATFORMS": "cpu"}
        | {k: v for k, v in os.environ.items() if k == "XLA_FLAGS" or k.startswith("JAX_")},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    import json

    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["shards"] == {"0": 32, "1": 32}
    final = result["final"]
    assert final["gain_vs_random"] - final["gain_vs_random_ci"] > 0, final


_TRAIN_AND_HASH = """
    import hashlib, json, sys
    import jax, numpy as np
    import spoilfive_jax as sf
    rank, count, port, local = (int(a) for a in sys.argv[1:5])
    sf.use_all_cores(local)
    if count > 1:
        sf.distributed.initialize(f"127.0.0.1:{port}", count, rank)
    from spoilfive_jax.rl import agent
    cfg = agent.PPOConfig(num_players=3, opponent="random", num_envs=32, num_steps=8,
                          minibatches=2, hidden=(16, 16), num_devices=2)
    run = agent.train(cfg, 3, seed=0, warmup_updates=1, eval_hands=64, log=None)
    digest = hashlib.sha256(b"".join(np.asarray(x).tobytes() for x in jax.tree.leaves(run.params)))
    print(json.dumps({"params": digest.hexdigest(), "hands": run.hands,
                      "vs_random": [r["vs_random"] for r in run.history]}))
"""


def _processes(argvs: list[list[str]]) -> list[str]:
    """Start every command, wait for all of them (each must exit 0), and each one's output."""
    return [out for out, _ in finish(start_all(argvs, env=env_vars()), timeout=600)]


@pytest.mark.slow
def test_two_processes_train_as_one_process_with_two_devices():
    """``sf.distributed``: two processes of one device each train bit for bit as one process
    with two devices (same key: the same parameters, hands and evaluations in both processes)."""
    import json

    code = textwrap.dedent(_TRAIN_AND_HASH)
    port = free_port()
    two = _processes([[sys.executable, "-c", code, str(r), "2", str(port), "1"] for r in (0, 1)])
    (one,) = _processes([[sys.executable, "-c", code, "0", "1", "0", "2"]])
    two_results = [json.loads(out.splitlines()[-1]) for out in two]
    assert two_results[0] == two_results[1] == json.loads(one.splitlines()[-1]), (two, one)


@pytest.mark.slow
def test_the_training_script_runs_over_two_processes(tmp_path):
    """``examples/train_ppo.py --coordinator --num-processes --process-id``: the same command in
    both processes; process 0 prints and writes the agent, which loads and plays."""
    script = str(Path(__file__).resolve().parents[2] / "examples" / "train_ppo.py")
    port = free_port()
    argv = [
        *("--game", "twenty_five", "--devices", "1", "--opponent", "random"),
        *("--warmup", "1", "--updates", "2", "--num-envs", "16", "--num-steps", "4"),
        *("--minibatches", "2", "--hidden", "16", "--eval-every", "0", "--eval-hands", "32"),
        *("--final-hands", "16", "--tournament-hands", "8", "--out", str(tmp_path)),
        *("--coordinator", f"127.0.0.1:{port}", "--num-processes", "2"),
    ]
    first, second = _processes(
        [[sys.executable, script, *argv, "--process-id", str(r)] for r in (0, 1)]
    )
    assert "tournament, ppo vs heuristic:" in first
    assert [line for line in second.splitlines() if not line.startswith("[Gloo]")] == []
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [
        "eval.json",
        "history.json",
        "learning_curve.png",
        "twenty_five_ppo.ckpt.npz",  # (the training state, saved at the end: a rerun resumes)
        "twenty_five_ppo.json",
        "twenty_five_ppo.npz",
    ], files
    meta = agent.load_agent(tmp_path / "twenty_five_ppo.npz").metadata
    assert meta["processes"] == 2 and meta["updates"] == 3


# ---------------------------------------------------------------------------- shipped agents

AGENTS = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "agents")


@pytest.mark.parametrize(
    "game", [pytest.param(g, marks=[] if g == "forty_five" else pytest.mark.slow) for g in FAMILY]
)
def test_each_family_game_ships_an_agent_that_every_tool_plays(game, capsys):
    """``examples/agents/<game>_ppo.npz``: it loads with ``load_policy``, plays a partnership
    through ``sf.rollout``, ``sf.evaluate``, the command line and PettingZoo, and its ``.json``
    says how it was made."""
    import json

    path = os.path.join(AGENTS, f"{game}_ppo.npz")
    policy = agent.load_policy(path)
    env = sf.make(game, 4)
    with open(path[: -len(".npz")] + ".json") as f:
        meta = json.load(f)
    assert meta["game"] == game and meta["network"] == "FamilyActorCritic"
    assert meta["observation_shape"] == list(env.observation_shape)
    assert meta["command"].startswith(f"python examples/train_ppo.py --game {game}")
    assert meta["training_cpu_seconds"] > 60 and "rules" in meta
    out = sf.rollout(0, env, [policy, "random", policy, "random"], 64, batch_size=64)
    assert out.rewards.shape == (64, 4) and (out.decisions >= 10).all()
    table = sf.evaluate(0, env, {"ppo": policy, "random": "random"}, 64)
    assert table.mean_reward[0] > table.mean_reward[1]  # a partnership well above random's

    from spoilfive_jax import cli

    argv = ["rollout", "--game", game, "--hands", "32", "--policy", f"agent:{path}", "--quiet"]
    assert cli.main([*argv, "--json", "-", "--devices", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["hands"] == 32

    pytest.importorskip("pettingzoo")
    from spoilfive_jax.rl.pettingzoo import raw_env

    aec = raw_env(game=game, num_players=4)
    aec.reset(seed=1)
    act = jax.jit(policy)
    for name in aec.agent_iter():
        _, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        seat = int(name.split("_")[1])
        aec.step(int(act(jax.random.PRNGKey(0), aec.state, np.int32(seat))))
    assert not bool(aec.state.illegal)
