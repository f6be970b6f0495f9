"""Advice and teachers: a network can read a built-in policy's choice for the decision it makes
(and learns how much to follow it), and the warm-up can imitate pimc's search instead of the
heuristic."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf

pytest.importorskip("flax")
pytest.importorskip("optax")

from spoilfive_jax.rl import agent, network, ppo
from spoilfive_jax.tools.pimc import PimcPolicy


def advised(game: str = "forty_five", **changes: object) -> ppo.PPOConfig:
    options = dict(
        game=game,
        num_players=4,
        num_envs=16,
        num_steps=2,
        minibatches=2,
        hidden=(8,),
        advice="heuristic",
    )
    return ppo.PPOConfig(**(options | changes))  # type: ignore[arg-type]


def _follow_the_advice(params: dict, weight: float) -> dict:
    """``params`` with every kernel and bias zeroed and the advice weight set: the logits are
    ``weight`` on the advised action and 0 elsewhere."""
    zeroed = jax.tree.map(jnp.zeros_like, params)
    zeroed["params"]["advice_weight"] = jnp.float32(weight)
    return zeroed


@pytest.mark.parametrize("game", [pytest.param("forty_five", marks=pytest.mark.slow), "spoil_five"])
def test_an_advised_network_reads_the_advisors_choice_and_can_follow_it(game, tmp_path):
    cfg = advised(game, num_players=4 if game == "forty_five" else 3)
    env = cfg.env
    keys = jax.random.split(jax.random.PRNGKey(3), 16)
    state = jax.vmap(env.init)(keys)
    heuristic = env.builtin_policy("heuristic")
    choice = jax.vmap(heuristic)(keys, state, state.current_player)

    seen = ppo._observe(cfg, state)
    (size,) = env.observation_shape
    assert (
        seen.shape == (16, size + env.num_actions) == (16, *network.input_shape(env, "heuristic"))
    )
    np.testing.assert_array_equal(
        seen[:, :size], jax.vmap(env.observe)(state, state.current_player)
    )
    np.testing.assert_array_equal(np.argmax(seen[:, size:], -1), choice)
    assert (seen[:, size:].sum(-1) == 1).all()

    runner = ppo.init_runner(cfg, jax.random.PRNGKey(0), 1)
    assert float(runner.params["params"]["advice_weight"]) == 0.0  # learned, from nothing
    params = _follow_the_advice(runner.params, 5.0)
    logits, _ = network.apply(cfg.network, params, seen, state.legal_action_mask)
    np.testing.assert_array_equal(np.argmax(logits, -1), choice)

    # saved and loaded, the agent reads the same input and plays the advisor's card
    meta = agent.metadata_for(cfg, name="advised")
    assert meta["advice"] == "heuristic"
    policy = agent.load_policy(agent.save_agent(tmp_path / "advised", params, meta))
    played = jax.vmap(policy)(keys, state, state.current_player)
    np.testing.assert_array_equal(played, choice)


def test_an_unadvised_network_is_unchanged():
    """No advice: the input is the observation and the parameters have no advice weight (the
    agents trained before advice existed load and play as they did)."""
    cfg = advised(advice="")
    assert network.input_shape(cfg.env, "") == cfg.env.observation_shape
    runner = ppo.init_runner(cfg, jax.random.PRNGKey(0), 1)
    assert "advice_weight" not in runner.params["params"]
    assert agent.load_agent("examples/agents/ppo_seat.npz").advice == ""


def test_bad_advice_and_teachers_are_refused_by_name():
    with pytest.raises(ValueError, match="unknown advisor 'random' for forty_five"):
        advised(advice="random")
    with pytest.raises(ValueError, match="unknown advisor 'greedy' for spoil_five"):
        advised("spoil_five", num_players=3, advice="greedy")
    with pytest.raises(ValueError, match="teacher must be one of"):
        advised(teacher="oracle")
    with pytest.raises(ValueError, match="teacher_worlds must be a positive integer"):
        advised(teacher="pimc", teacher_worlds=0)
    teacher = advised(teacher="pimc", teacher_worlds=7).teacher_policy
    assert isinstance(teacher, PimcPolicy) and teacher.num_samples == 7
    assert agent.metadata_for(advised(teacher="pimc", teacher_worlds=7))["teacher"] == "pimc7"
    assert agent.metadata_for(advised())["teacher"] == "heuristic"
    assert advised().teacher_policy is sf.make("forty_five", 4).builtin_policy("heuristic")


@pytest.mark.slow
def test_the_warm_up_plays_and_learns_the_teachers_choices():
    """In an imitation iteration the learner's seats play pimc's choices (``teacher="pimc"``),
    key for key as the bot itself chooses them."""
    cfg = advised(teacher="pimc", teacher_worlds=4, num_envs=8, num_steps=1)
    runner = ppo.init_runner(cfg, jax.random.PRNGKey(0), 1)
    bot = ppo._bot_policy(cfg, cfg.network, runner.params)
    start, _, _ = ppo._play_on(cfg, bot, jax.random.PRNGKey(1), runner.state, None)
    key = jax.random.PRNGKey(2)
    _, _, traj = ppo._collect(cfg, cfg.network, runner.params, bot, True, start, key)
    _, k_act, _ = jax.random.split(key, 3)
    keys = jax.random.split(ppo._counter(k_act), 8)  # (the collection's counter keys)
    expected = jax.vmap(cfg.teacher_policy)(keys, start, start.current_player)
    np.testing.assert_array_equal(traj.action[0], expected)
