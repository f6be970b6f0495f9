"""The ``pimc`` search bot wherever a policy works: bound to an env
(``sf.pimc(env, ...)``) or unbound (``sf.pimc(num_samples=...)``, bound by each tool to its
env) in ``rollout``, ``evaluate``, ``score_hands`` and ``play_sessions``, at tiny sizes."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.tools.pimc import PimcPolicy

SF3 = sf.spoil_five.SpoilFive(3)
FF4 = sf.forty_five.FortyFive(4, sf.forty_five.FortyFiveRules(follow="seed"))


def test_unbound_pimc_refuses_to_play_and_bad_arguments() -> None:
    bot = sf.pimc(num_samples=4)
    assert isinstance(bot, PimcPolicy) and bot.env is None and bot.__name__ == "pimc4"
    state = SF3.init(jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match="no env"):
        bot(jax.random.PRNGKey(0), state, state.current_player)
    with pytest.raises(ValueError, match="num_samples"):
        sf.pimc(8)  # type: ignore[arg-type]  # the samples given where the env goes
    with pytest.raises(ValueError, match="num_samples"):
        sf.pimc(num_samples=0)
    with pytest.raises(ValueError, match="made for"):
        sf.rollout(
            0, sf.spoil_five.SpoilFive(4), [sf.pimc(SF3, 2)] + ["heuristic"] * 3, num_hands=2
        )


def test_a_bad_rollout_policy_is_refused_when_the_bot_is_built_or_bound() -> None:
    """Checked when the bot is built or bound, not when it first plays: a late error hides
    its cause."""
    with pytest.raises(ValueError, match="rollout_policy 'nope' is not a built-in policy of any"):
        sf.pimc(rollout_policy="nope")
    with pytest.raises(ValueError, match="rollout_policy must be a built-in policy name or a"):
        sf.pimc(rollout_policy=3)
    with pytest.raises(ValueError, match="bad rollout_policy for spoil_five: unknown policy 'g"):
        sf.pimc(SF3, rollout_policy="greedy")  # the family's, not Spoil Five's
    family_only = sf.pimc(num_samples=2, rollout_policy="greedy")  # some game knows it
    assert family_only.bind(FF4).rollout_policy == "greedy"
    with pytest.raises(ValueError, match="bad rollout_policy for spoil_five"):
        family_only.bind(SF3)
    with pytest.raises(ValueError, match="bad rollout_policy for spoil_five"):
        sf.rollout(0, SF3, [family_only, "random", "random"], num_hands=2)
    with pytest.raises(ValueError, match="pimc's env must be a game environment"):
        sf.pimc("spoil_five")  # type: ignore[arg-type]


def test_binding_takes_the_tools_env() -> None:
    bot = sf.pimc(num_samples=2, rollout_policy="random")
    bound = bot.bind(SF3)
    assert bound == sf.pimc(SF3, 2, "random") and bound.bind(SF3) is bound
    assert bot.bind(FF4).env == FF4


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_unbound_pimc_in_rollout_matches_the_bound_bot() -> None:
    lineup = ["heuristic", "random"]
    unbound = sf.rollout(0, SF3, [sf.pimc(num_samples=2), *lineup], num_hands=4)
    bound = sf.rollout(0, SF3, [sf.pimc(SF3, num_samples=2), *lineup], num_hands=4)
    np.testing.assert_array_equal(unbound.rewards, bound.rewards)
    assert unbound.rewards.shape == (4, 3)
    # chips are conserved: what the seats paid in and nobody took is carried to the next hand
    np.testing.assert_allclose(unbound.rewards.sum(1) + unbound.carried_out, 0, atol=1e-5)


@pytest.mark.slow
def test_unbound_pimc_in_evaluate() -> None:
    # (random playouts inside the bot here and below: the smallest program that binds the same)
    bot = sf.pimc(num_samples=2, rollout_policy="random")
    res = sf.evaluate(1, SF3, {"pimc": bot, "random": "random"}, num_hands=2)
    assert res.names == ("pimc", "random") and res.rotations == 6
    assert np.all(np.isfinite(res.mean_reward))


@pytest.mark.slow
def test_unbound_pimc_in_a_family_rollout() -> None:
    out = sf.rollout(
        0, FF4, [sf.pimc(num_samples=2, rollout_policy="random"), "random"] * 2, num_hands=2
    )
    assert out.rewards.shape == (2, 4)


def test_pimc_in_score_hands() -> None:
    hands = np.array([[51, 50, 49, 48, 47]])  # the five top cards of one suit, seat 1
    args = dict(hands=hands, turnup=0, seat=1, env=SF3, num_rollouts=2)
    bound = sf.score_hands(0, policy=[sf.pimc(SF3, 2), "heuristic", "heuristic"], **args)
    unbound = sf.score_hands(0, policy=[sf.pimc(num_samples=2), "heuristic", "heuristic"], **args)
    np.testing.assert_array_equal(bound.expected_chips, unbound.expected_chips)
    assert np.all((unbound.win_prob >= 0) & (unbound.win_prob <= 1))


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_pimc_in_sessions() -> None:
    res = sf.play_sessions(
        0,
        SF3,
        [sf.pimc(num_samples=2, rollout_policy="random"), "heuristic", "random"],
        num_sessions=2,
        max_hands=2,
    )
    assert res.stacks.shape == (2, 3) and np.all(res.hands_played >= 1)
    assert np.all(res.hands_played <= 2)


@pytest.mark.slow  # (the default run checks the bot's name and its refusal below)
def test_a_bot_that_sees_all_searches_the_true_deal_only() -> None:
    """``see_all=True`` (the cheating bound): every world of the search is the position itself,
    so each lane's values are the playouts of the true deal; the fair bot's worlds differ."""
    import jax.numpy as jnp

    from spoilfive_jax.core import capabilities as caps
    from spoilfive_jax.tools.analysis import block_values

    env = sf.spoil_five.SpoilFive(4)
    analysis = env.capability(caps.Analysis)
    step = jax.jit(env.step)
    state = env.init(jax.random.PRNGKey(7))
    for t in range(5):  # a few heuristic decisions into the hand
        action = sf.spoil_five.HEURISTIC(jax.random.PRNGKey(t), state, state.current_player)
        state = step(state, action)
    states = jax.tree.map(lambda x: jnp.asarray(x)[None], state)
    key = jax.random.PRNGKey(1)
    values = jax.jit(block_values, static_argnums=(0, 1, 2, 3, 6))  # (op by op: seconds more)
    seen, actions, _ = values(env, "heuristic", 8, 4, key[None], states, True)
    fair, _, _ = values(env, "heuristic", 8, 4, key[None], states, False)
    lanes = jnp.arange(4)
    keys = jax.vmap(lambda lane: jax.random.fold_in(jax.random.fold_in(key, 1), lane))(lanes)
    truth = jax.jit(analysis.playout, static_argnums=(0, 5))(
        env,
        keys,
        jax.tree.map(lambda x: jnp.broadcast_to(x, (4, *jnp.shape(x))), state),
        jnp.repeat(actions, 4, axis=0),
        jnp.repeat(jnp.maximum(states.current_player, 0), 4),
        "heuristic",
    )
    for field, values in truth.items():
        assert np.array_equal(np.asarray(seen[field][0]), np.asarray(values))
    assert any(not np.array_equal(np.asarray(fair[f]), np.asarray(seen[f])) for f in fair)
    bot = sf.pimc(env, 4, see_all=True)
    assert int(bot(key, state, state.current_player)) in (
        np.flatnonzero(np.asarray(state.legal_action_mask))
    )


def test_a_bot_that_sees_all_is_named_so_and_takes_only_a_flag() -> None:
    env = sf.spoil_five.SpoilFive(4)
    assert sf.pimc(env, 4, see_all=True).__name__ == "pimc4-sees-all"
    assert sf.pimc(env, 4).__name__ == "pimc4"
    with pytest.raises(ValueError, match="see_all must be True or False"):
        sf.pimc(env, 4, see_all="yes")  # type: ignore[arg-type]
