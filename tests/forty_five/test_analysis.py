"""Position analysis for the Forty-Five family: results independent of hidden cards
and of the batch size, the family's fields (``expected_points``, ``make_prob`` in Auction) and
the ``pimc`` bot's legality."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.games.forty_five import policies

FF4 = sf.forty_five.FortyFive(4, sf.forty_five.FortyFiveRules(follow="seed"))
AUCTION4 = sf.forty_five.AuctionFortyFives(4)


@functools.cache
def positions(env: sf.forty_five.FortyFive, decisions: int, count: int = 3, seed: int = 0):
    """A batch of live states after ``decisions`` greedy decisions of random deals."""
    greedy = jax.vmap(policies.greedy_policy(env.rules))
    step = jax.jit(jax.vmap(env.step))
    keys = jax.random.split(jax.random.PRNGKey(seed), count)
    s = jax.jit(jax.vmap(env.init))(keys)
    act = jax.jit(greedy)
    for _ in range(decisions):
        s = step(s, act(keys, s, s.current_player))
    return jax.device_get(s)


def pick(batch, i):
    return jax.tree.map(lambda x: np.asarray(x)[i], batch)


@pytest.mark.parametrize(
    "env,decisions",
    [(FF4, 9), pytest.param(AUCTION4, 13, marks=pytest.mark.slow)],
    ids=["ff4", "auction4"],
)
def test_family_analysis_ignores_hidden_information(env, decisions):
    batch = positions(env, decisions)
    assert not np.asarray(batch.terminated).any()
    resample = functools.partial(env.capability(sf.capabilities.Analysis).resample_hidden, env)
    other = jax.device_get(  # (jitted: op by op, the vmapped resampling took tens of seconds)
        jax.jit(jax.vmap(resample))(
            jax.random.split(jax.random.PRNGKey(1), 3), batch, batch.current_player
        )
    )
    assert (np.asarray(other.hands.lo) != np.asarray(batch.hands.lo)).any()
    # (random playouts: what the analysis sees of the deal, not the playout policy, is checked)
    a = sf.analyze(0, env, batch, num_samples=32, policy="random")
    b = sf.analyze(0, env, other, num_samples=32, policy="random")
    for f in a.fields:
        np.testing.assert_array_equal(a.values[f], b.values[f])
    assert a.expected_points.shape == (3, env.num_actions)
    assert np.isfinite(a.expected_points[a.legal]).all()
    assert np.isnan(a.expected_points[~a.legal]).all()
    if env.rules.auction:
        assert np.isfinite(a.make_prob[a.legal]).all()
    else:
        assert np.isnan(a.make_prob).all()
    one = sf.analyze(0, env, pick(batch, 1), num_samples=32, policy="random")
    np.testing.assert_array_equal(one.expected_points, a.expected_points[1])
    assert "points" in one.table()


@pytest.mark.slow
def test_family_pimc_plays_a_legal_action():
    bot = sf.pimc(FF4, num_samples=4, rollout_policy="greedy")
    batch = positions(FF4, 9)
    state = pick(batch, 0)
    action = jax.jit(bot)(jax.random.PRNGKey(0), state, state.current_player)
    assert bool(np.asarray(state.legal_action_mask)[int(action)])


@pytest.mark.slow  # (the kernel's heuristic playouts equal the public step's: test_fast_playout)
def test_family_analysis_heuristic_is_the_familys_own():
    """``policy="heuristic"`` plays the family's own heuristic in the playouts (not greedy)."""
    batch = positions(FF4, 9)
    named = sf.analyze(0, FF4, batch, num_samples=32)  # (the program of the test above)
    same = sf.analyze(0, FF4, batch, num_samples=32, policy=policies.heuristic_policy(FF4.rules))
    greedy = sf.analyze(0, FF4, batch, num_samples=32, policy="greedy")
    np.testing.assert_array_equal(named.expected_points, same.expected_points)
    legal = named.legal
    assert not np.array_equal(named.expected_points[legal], greedy.expected_points[legal])


def test_the_legal_transition_is_the_steps_for_legal_actions_and_finished_hands():
    """``core.transition.transition_legal`` (the analysis's apply) gives ``step``'s state for every
    legal action of live hands and leaves finished ones as ``step`` does."""
    from spoilfive_jax.core.transition import transition, transition_legal

    batch = positions(FF4, 9)
    last = jax.vmap(lambda m: jnp.argmax(m[::-1]))(batch.legal_action_mask)
    action = FF4.num_actions - 1 - last  # each hand's highest legal action
    done = batch.replace(terminated=jnp.asarray(batch.terminated).at[0].set(True))
    for states in (batch, done):
        a = jax.jit(jax.vmap(lambda s, x: transition(FF4, s, x)))(states, action)
        b = jax.jit(jax.vmap(lambda s, x: transition_legal(FF4, s, x)))(states, action)
        for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
