"""A state given to an env of another game or table size is refused with one ``ValueError``
naming both, by every entry point, under ``jax.jit`` too: the check reads the state's class and
static shapes when the function is called or traced."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import spoilfive_jax as sf

KEY = jax.random.PRNGKey(0)
SPOIL5, SPOIL4, FORTY = sf.make("spoil_five", 5), sf.make("spoil_five", 4), sf.make("forty_five")


def _entry_points(env: sf.Env, state):
    return {
        "step": lambda: env.step(state, 1),
        "jit step": lambda: jax.jit(env.step)(state, jnp.int32(1)),
        "observe": lambda: env.observe(state, 0),
        "jit observe": lambda: jax.jit(env.observe)(state, jnp.int32(0)),
        "observe_full": lambda: env.observe_full(state),
        "legal_actions": lambda: env.legal_actions(state),
        "checked_step": lambda: env.checked_step(state, 1),
        "analyze": lambda: sf.analyze(0, env, state, num_samples=2),
    }


@pytest.mark.parametrize("entry", list(_entry_points(SPOIL5, None)))
@pytest.mark.parametrize(
    ("env", "state", "words"),
    [
        (SPOIL5, FORTY.init(KEY), ("FortyFive", "SpoilFive", "spoil_five")),
        (FORTY, SPOIL5.init(KEY), ("SpoilFive", "FortyFive", "forty_five")),
    ],
    ids=["family-state-to-spoil-five", "spoil-five-state-to-family"],
)
def test_a_state_of_another_game(env, state, words, entry):
    with pytest.raises(ValueError) as e:
        _entry_points(env, state)[entry]()
    assert all(w in str(e.value) for w in words), str(e.value)


@pytest.mark.parametrize("entry", ["step", "jit step", "observe", "legal_actions", "analyze"])
@pytest.mark.parametrize(
    ("env", "state", "words"),
    [
        (SPOIL4, SPOIL5.init(KEY), ("5-player state", "4-player")),
        (SPOIL5, SPOIL4.init(KEY), ("4-player state", "5-player")),
    ],
)
def test_a_state_of_another_table_size(env, state, words, entry):
    with pytest.raises(ValueError) as e:
        _entry_points(env, state)[entry]()
    assert all(w in str(e.value) for w in words), str(e.value)


def test_batched_states_of_the_right_table_pass():
    states = jax.vmap(SPOIL4.init)(jax.random.split(KEY, 3))
    out = jax.vmap(SPOIL4.step)(states, jnp.zeros(3, jnp.int32))
    assert out.tricks_won.shape == (3, 4)
    with pytest.raises(ValueError, match="4-player state given to a 5-player"):
        jax.vmap(SPOIL5.step)(states, jnp.zeros(3, jnp.int32))
