"""pgx API conformance, modelled on pgx's ``api_test``: ``init(key)``, ``step(state, action,
key=None)``, ``observe(state, player_id)``, ``num_players``, ``num_actions``,
``observation_shape``; State fields ``current_player``, ``observation``, ``rewards``,
``terminated``, ``truncated``, ``legal_action_mask``, ``_step_count`` with pinned dtypes and
shapes; random legal play to the end, one hand at a time and jit + vmap batched.

Differences from pgx, on purpose: ``current_player`` is int32 (pgx: int8) and is -1 once the
hand is over; ``State`` has more public fields (the rules' bookkeeping) than pgx's minimal set.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf


@functools.cache
def compiled(env: sf.SpoilFive):
    """jit(init), jit(step), jit(observe), and their jit(vmap) forms (one compile each)."""
    return (
        jax.jit(env.init),
        jax.jit(env.step),
        jax.jit(env.observe),
        jax.jit(jax.vmap(env.init)),
        jax.jit(jax.vmap(env.step)),
    )


@jax.jit
def act_randomly(key: jax.Array, mask: jax.Array) -> jax.Array:
    """A uniformly random legal action for each row of ``mask`` (pgx's ``act_randomly``)."""
    logits = jnp.where(mask, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)


def validate_state(state: sf.State, env: sf.SpoilFive, batch: tuple[int, ...] = ()) -> None:
    n = env.num_players
    checks = {
        "current_player": (jnp.int32, batch),
        "terminated": (jnp.bool_, batch),
        "truncated": (jnp.bool_, batch),
        "rewards": (jnp.float32, (*batch, n)),
        "legal_action_mask": (jnp.bool_, (*batch, env.num_actions)),
        "observation": (jnp.float32, (*batch, *env.observation_shape)),
        "_step_count": (jnp.int32, batch),
    }
    for name, (dtype, shape) in checks.items():
        value = getattr(state, name)
        assert value.dtype == dtype, (name, value.dtype)
        assert value.shape == shape, (name, value.shape)
    live = ~np.asarray(state.terminated)
    cur = np.asarray(state.current_player)
    assert (cur[live] >= 0).all() and (cur[live] < n).all()
    assert (cur[~live] == -1).all()
    assert not np.asarray(state.truncated).any()
    mask = np.asarray(state.legal_action_mask)
    assert mask[live].any(axis=-1).all(), "a live hand must have a legal action"
    assert mask[~live].all(), "every action is 'legal' once terminated (pgx)"
    assert (np.asarray(state.rewards)[live] == 0).all(), "rewards only on the final step"


def validate_terminal_step(state: sf.State, step) -> None:
    """Stepping a terminated state returns it unchanged, with zero rewards."""
    again = step(state, jnp.zeros_like(state.current_player))
    assert (np.asarray(again.rewards) == 0).all()
    for f in dataclasses.fields(sf.State):
        if f.name == "rewards":
            continue
        for x, y in zip(
            jax.tree.leaves(getattr(again, f.name)),
            jax.tree.leaves(getattr(state, f.name)),
            strict=True,
        ):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=f.name)


@pytest.mark.parametrize("n", [2, 5])
def test_env_attributes(n):
    env = sf.SpoilFive(n)
    assert env.num_players == n
    assert env.num_actions == sf.NUM_ACTIONS == 55
    assert env.observation_shape == (179 + 116 * n,)
    assert env.id == "spoil_five"


@pytest.mark.parametrize("n", [5])
def test_api_single(n, num_games=6):
    env = sf.SpoilFive(n)
    init, step, observe, _, _ = compiled(env)
    rng = jax.random.PRNGKey(849020 + n)
    for _ in range(num_games):
        rng, sub = jax.random.split(rng)
        state = init(sub)
        assert state._step_count == 0
        assert (np.asarray(state.rewards) == 0).all()
        validate_state(state, env)
        total = np.zeros(n)
        while not state.terminated:
            # the observation of the player to act, and every seat sees something different
            cur = int(state.current_player)
            np.testing.assert_array_equal(state.observation, observe(state, cur))
            views = np.stack([np.asarray(observe(state, p)) for p in range(n)])
            assert len({v.tobytes() for v in views}) == n
            rng, sub = jax.random.split(rng)
            before = int(state._step_count)
            action = act_randomly(sub, state.legal_action_mask)
            # key is accepted (pgx) and ignored: stepping is deterministic
            state, with_key = step(state, action), step(state, action, sub)
            for x, y in zip(jax.tree.leaves(state), jax.tree.leaves(with_key), strict=True):
                np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
            assert int(state._step_count) == before + 1
            total += np.asarray(state.rewards)
            validate_state(state, env)
        assert not (total == 0).all()  # somebody paid an ante
        assert not state.illegal
        validate_terminal_step(state, step)


@pytest.mark.parametrize("n", [3])
def test_api_batch(n, batch=16, num_rounds=3):
    env = sf.SpoilFive(n)
    _, _, _, init, step = compiled(env)
    observe = jax.jit(jax.vmap(env.observe))
    rng = jax.random.PRNGKey(9999)
    for _ in range(num_rounds):
        rng, sub = jax.random.split(rng)
        state = init(jax.random.split(sub, batch))
        validate_state(state, env, (batch,))
        decisions = 0
        while not state.terminated.all():
            cur = jnp.maximum(state.current_player, 0)
            np.testing.assert_array_equal(state.observation, observe(state, cur))
            rng, sub = jax.random.split(rng)
            state = step(state, act_randomly(sub, state.legal_action_mask))
            validate_state(state, env, (batch,))
            decisions += 1
            assert decisions <= 5 * n + 2
        validate_terminal_step(state, step)
