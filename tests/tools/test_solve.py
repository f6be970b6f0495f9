"""``sf.solve``: the exact value of every legal action with every hand in view (its values are
checked against a plain minimax over the reference engine in
``tests/forty_five/test_solve_reference.py``, and the search behind it against the full
enumeration in ``tests/forty_five/test_endgame.py``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf


def _late(env: sf.Env, count: int, decisions: int, seed: int = 0):
    """``count`` hands of ``env`` after ``decisions`` heuristic decisions (still live)."""
    act = jax.vmap(env.builtin_policy("heuristic"))
    keys = jax.random.split(jax.random.PRNGKey(seed), count)

    @jax.jit
    def run():
        def decide(s, _):  # (a loop: one step to compile, not one a decision)
            return jax.vmap(env.step)(s, act(keys, s, s.current_player)), None

        return jax.lax.scan(decide, jax.vmap(env.init)(keys), None, length=decisions)[0]

    return run()


@pytest.fixture(scope="module")
def two():
    env = sf.make("forty_five", num_players=2)
    return env, _late(env, 3, 6)


def test_values_on_the_legal_actions_only(two) -> None:
    env, states = two
    values = np.asarray(sf.solve(env, states))
    legal = np.asarray(states.legal_action_mask)
    assert values.shape == (3, env.num_actions) and values.dtype == np.float32
    assert (np.isnan(values) == ~legal).all()
    # two players: the hand's 30 points split between the seats (5 a trick, 5 for the best trump)
    assert ((values[legal] >= 0) & (values[legal] <= 30) & (values[legal] % 5 == 0)).all()
    one = np.asarray(sf.solve(env, jax.tree.map(lambda x: x[1], states)))
    np.testing.assert_array_equal(one, values[1])


def test_the_other_side_sees_the_rest_of_the_points(two) -> None:
    """At two seats each trick and the bonus goes to one side: seat p's value of an action and
    the opponent's add up to the hand's 30 points (less what was scored before the position:
    none, the values are the hand's points from its start)."""
    env, states = two
    mine = np.asarray(sf.solve(env, states))
    other = np.asarray(sf.solve(env, states, player=1 - np.asarray(states.current_player)))
    legal = np.asarray(states.legal_action_mask)
    np.testing.assert_array_equal(mine[legal] + other[legal], 30)


def test_bad_input_is_a_value_error(two) -> None:
    env, states = two
    with pytest.raises(ValueError, match=r"player must be a seat 0\.\.1"):
        sf.solve(env, states, player=2)
    with pytest.raises(ValueError, match="player must be a seat"):
        sf.solve(env, states, player=0.5)
    with pytest.raises(ValueError, match="one of"):
        sf.solve(env, states, policy="clever")
    with pytest.raises(ValueError, match="built-in rollout_policy"):
        sf.solve(env, states, policy=env.builtin_policy("random"))
    over = states.replace(terminated=jnp.ones_like(states.terminated))
    with pytest.raises(ValueError, match="already over"):
        sf.solve(env, over)
    with pytest.raises(ValueError, match="given to"):
        sf.solve(sf.make("forty_five", num_players=4), states)
    oh_hell = sf.make("oh_hell")  # (the plugin: a game without an exact solver)
    with pytest.raises(ValueError, match="EndgameSolve"):
        sf.solve(oh_hell, oh_hell.init(jax.random.PRNGKey(0)))


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_spoil_five_values_are_chips_of_the_paranoid_solve() -> None:
    """Spoil Five: each seat for itself (the paranoid value, checked against a minimax over the
    reference engine in ``tests/spoil_five/test_solve_reference.py``): whole chips, between a
    lost ante and another's jink paid and the pot and a jink's bonus."""
    env = sf.make("spoil_five", num_players=3)
    states = _late(env, 6, 9, seed=1)
    values = np.asarray(sf.solve(env, states))
    legal = np.asarray(states.legal_action_mask)
    assert values.shape == (6, env.num_actions)
    assert (np.isnan(values) == ~legal).all()
    ante, pot = env.rules.ante, 3 * env.rules.ante
    live = values[legal]
    assert (live == np.round(live)).all()
    assert ((live >= -ante - env.rules.bonus) & (live <= pot + 2 * env.rules.bonus)).all()


def test_a_solves_transposition_table_fits_its_depth() -> None:
    """``core.search.transpositions_for``: solves of at most 20 plays (a whole hand at four
    seats, or fewer tricks) share a table small enough for a core's cache, deeper ones (a whole
    hand at five seats) the large one; the games' solves pass it on (read from the traced
    programs: the table is the loop's one [entries, 6] int32 array)."""
    from spoilfive_jax.core import capabilities as caps
    from spoilfive_jax.core import search
    from spoilfive_jax.tools.analysis import legal_slots

    assert search.transpositions_for(20) == search.SMALL_TRANSPOSITIONS == 1 << 14
    assert search.transpositions_for(21) == search.TRANSPOSITIONS == 1 << 18

    def traced(game: str, n: int) -> str:
        env = sf.make(game, num_players=n)
        states = _late(env, 2, 0)
        solver = env.capability(caps.EndgameSolve, "the test")
        actions = jax.vmap(lambda m: legal_slots(m, 4)[0])(states.legal_action_mask)
        keys = jax.random.split(jax.random.PRNGKey(0), 2)

        def solve(s: sf.State, a: jax.Array) -> dict[str, jax.Array]:
            return solver.solved_playout(env, keys, s, a, s.current_player, "heuristic", "all")

        return str(jax.make_jaxpr(solve)(states, actions))

    four = traced("forty_five", 4)
    assert "i32[16384,6]" in four and "i32[262144,6]" not in four
    assert "i32[262144,6]" in traced("spoil_five", 5)
