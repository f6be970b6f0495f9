"""The RL layer: a tiny PPO run learns to beat random play, and the saved agent reloads as a
policy that plugs into ``sf.rollout``.  Needs the ``rl`` extra (flax, optax); the core package
must import without it."""

from __future__ import annotations

import json
import subprocess
import sys

import jax
import numpy as np
import pytest

import spoilfive_jax as sf


def test_core_package_imports_without_flax_and_optax():
    code = "import sys; sys.modules['flax'] = sys.modules['optax'] = None\nimport spoilfive_jax\n"
    subprocess.run([sys.executable, "-c", code], check=True)


pytest.importorskip("flax")
pytest.importorskip("optax")

from spoilfive_jax.rl import agent  # noqa: E402

# Three players against random bots: small tables learn fast (about 6,500 training hands).
TINY = agent.PPOConfig(
    num_players=3,
    opponent="random",
    num_envs=64,
    num_steps=16,
    minibatches=2,
    lr=1e-3,
    hidden=(64, 64),
)


@pytest.fixture(scope="module")
def trained():
    return agent.train(TINY, 30, seed=0, eval_hands=3000, log=None)


def test_tiny_training_clearly_beats_random_play(trained):
    final = trained.history[-1]
    # The greedy agent in one seat (seats rotated) against two random bots, paired deal by deal
    # with a random player in the same seat on the same 3000 deals: the 95% CI of the gain in
    # chips per hand lies above zero.
    assert final["vs_random"] > final["random_baseline"]
    assert final["gain_vs_random"] - final["gain_vs_random_ci"] > 0, final
    assert trained.hands > 5000 and trained.decisions == 30 * 64 * 16


def test_saved_agent_reloads_as_a_policy(trained, tmp_path):
    meta = agent.metadata_for(TINY, name="tiny")
    path = agent.save_agent(tmp_path / "tiny", trained.params, meta)
    assert path.endswith(".npz")
    with open(tmp_path / "tiny.json") as f:
        assert json.load(f)["num_players"] == 3
    loaded = agent.load_agent(path)
    assert loaded.metadata == meta and loaded.rules == TINY.rules
    for a, b in zip(jax.tree.leaves(loaded.params), jax.tree.leaves(trained.params), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))

    policy = agent.load_policy(path)
    assert policy.__name__ == "tiny"
    env = sf.spoil_five.SpoilFive(3)
    out = sf.rollout(1, env, [policy, "random", "random"], num_hands=128, batch_size=128)
    assert out.rewards.shape == (128, 3) and (out.decisions >= 9).all()

    # one hand, the public State: the policy picks a legal action of the player to act
    state = env.init(jax.random.PRNGKey(3))
    action = jax.jit(policy)(jax.random.PRNGKey(0), state, state.current_player)
    assert action.dtype == np.int32 and bool(state.legal_action_mask[action])

    with pytest.raises(ValueError, match="3-player"):
        policy(jax.random.PRNGKey(0), sf.spoil_five.SpoilFive(4).init(jax.random.PRNGKey(0)), 0)
    with pytest.raises(ValueError, match="is not an agent saved by this project"):
        np.savez(tmp_path / "other.npz", x=np.zeros(3))
        agent.load_agent(tmp_path / "other.npz")


def test_shipped_agent_loads_and_plays():
    # examples/agents/ppo_seat.npz was saved as format "spoilfive_jax.agent/1" before the
    # modules moved; it must keep loading (the game comes from the metadata, Spoil Five if none)
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "agents" / "ppo_seat.npz"
    loaded = agent.load_agent(path)
    assert loaded.game == "spoil_five" and loaded.env == sf.spoil_five.SpoilFive(5, loaded.rules)
    out = sf.rollout(0, loaded.env, [loaded.policy(), *["heuristic"] * 4], 64, batch_size=64)
    assert out.rewards.shape == (64, 5)
    meta = agent.metadata_for(agent.PPOConfig(num_players=3))
    assert meta["game"] == "spoil_five" and meta["observation_shape"] == [
        *sf.spoil_five.SpoilFive(3).observation_shape
    ]


SMALL = agent.PPOConfig(
    num_players=3, num_envs=16, num_steps=4, minibatches=2, epochs=1, hidden=(16,)
)


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_training_stopped_and_resumed_from_its_checkpoint_is_the_training_never_stopped(
    tmp_path,
):
    whole = agent.train(SMALL, 4, seed=0, eval_hands=64, log=None)
    asked = []

    def stop() -> bool:  # (Ctrl-C's stop, asked after every update: the second says stop)
        asked.append(True)
        return len(asked) == 2

    ck = tmp_path / "run.ckpt.npz"
    part = agent.train(SMALL, 4, seed=0, eval_hands=64, log=None, should_stop=stop, checkpoint=ck)
    assert (part.updates, part.stopped) == (2, True) and ck.exists()
    said: list[str] = []
    rest = agent.train(SMALL, 4, seed=0, eval_hands=64, log=said.append, checkpoint=ck)
    assert said[0] == f"resuming at update 2 of 4 from {ck}"
    assert (rest.updates, rest.stopped, rest.hands) == (4, False, whole.hands)
    for a, b in zip(jax.tree.leaves(whole.params), jax.tree.leaves(rest.params), strict=True):
        assert np.array_equal(a, b)  # bit for bit
    assert [r["update"] for r in rest.history] == [2, 4]
    with pytest.raises(ValueError, match=r"another training run .*seed"):
        agent.train(SMALL, 4, seed=1, eval_hands=64, log=None, checkpoint=ck)


@pytest.mark.slow
def test_ctrl_c_during_train_ppo_writes_the_agent_and_the_history_and_resumes(tmp_path):
    import signal

    from conftest import ROOT

    out = tmp_path / "run"
    argv = [sys.executable, str(ROOT / "examples" / "train_ppo.py"), "--updates", "1000"]
    argv += ["--num-envs", "16", "--num-steps", "4", "--minibatches", "2", "--epochs", "1"]
    argv += ["--hidden", "16", "--eval-every", "2", "--eval-hands", "64", "--num-players", "3"]
    argv += ["--devices", "1", "--out", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:  # (the second logged row: two evaluations done)
        if line.startswith("ppo") and line.split()[1] == "4":
            proc.send_signal(signal.SIGINT)
            break
    rest, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "stopping after this update" in err
    assert "stopped after" in rest and "the same command resumes" in rest
    history = json.loads((out / "history.json").read_text())
    assert history and history[-1]["update"] >= 4
    assert agent.load_agent(out / "ppo_seat.npz").game == "spoil_five"
    again = subprocess.run(
        [*argv[:3], "6", *argv[4:], "--final-hands", "64", "--tournament-hands", "64"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "another training run" in again.stderr  # (other --updates: not this run)
    resumed = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert resumed.stdout is not None
    first = next(x for x in resumed.stdout if not x.startswith("training"))
    resumed.kill()
    resumed.communicate()
    assert first.startswith("resuming at update ")


def _random_ops(jaxpr, found: list) -> list:
    """(primitive, key dtype, output size) of every ``random_*`` equation in ``jaxpr`` and the
    jaxprs inside it (loops, branches)."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name in ("random_bits", "random_split", "random_fold_in"):
            size = int(np.prod(eqn.outvars[0].aval.shape))
            found.append((eqn.primitive.name, str(eqn.invars[0].aval.dtype), size))
        for param in eqn.params.values():
            for sub in param if isinstance(param, (list, tuple)) else [param]:
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    _random_ops(inner, found)
    return found


@pytest.mark.parametrize("opponent", ["random", "self"])
def test_the_collection_draws_per_table_from_counter_keys_not_threefry(opponent):
    """The run's threefry key is split once a learner step; the learner's choices, the
    opponents' and the new deals of every table draw from counter keys (``core.keys``)."""
    from spoilfive_jax.rl import ppo

    cfg = ppo.PPOConfig(num_players=3, opponent=opponent, num_envs=8, num_steps=2, hidden=(8,))
    runner = ppo.init_runner(cfg, jax.random.PRNGKey(0), 1)
    bot = ppo._bot_policy(cfg, cfg.network, runner.params)
    collect = lambda key, state: ppo._collect(  # noqa: E731
        cfg, cfg.network, runner.params, bot, False, state, key
    )
    ops = _random_ops(jax.make_jaxpr(collect)(runner.key, runner.state).jaxpr, [])
    per_table = [op for op in ops if op[2] >= cfg.num_envs]
    assert per_table and all(dtype != "key<fry>" for _, dtype, _ in per_table), per_table
    assert any(name == "random_bits" and size >= 8 * 55 for name, _, size in per_table)
