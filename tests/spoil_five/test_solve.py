"""Spoil Five's exact solves (``spoil_five.solve``, ``EndgameSolve``): the search with its
pruning (alpha-beta, bounds, one card of each run of equivalent cards) against the search of
every line of every legal action, under every rule option that the play reads, and the
capability's entry (``solved_playout``) as pimc and ``sf.solve`` use it."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.games.spoil_five import solve, view
from spoilfive_jax.games.spoil_five.rules import Rules


def _at(cond: jax.Array, like: jax.Array) -> jax.Array:
    return cond.reshape(cond.shape + (1,) * (like.ndim - 1))


def _positions(env: sf.Env, count: int, decisions: int, seed: int):
    """``count`` hands after up to ``decisions`` random decisions (a hand that ends earlier
    stays at its last live decision), as the kernel's (table, hands) and each seat to act."""
    act = jax.vmap(env.builtin_policy("random"))
    keys = jax.random.split(jax.random.PRNGKey(seed), count)

    def decide(s, t):
        k = jax.vmap(lambda key: jax.random.fold_in(key, t))(keys)
        new = jax.vmap(env.step)(s, act(k, s, jnp.maximum(s.current_player, 0)))
        ended = new.terminated
        return jax.tree.map(lambda a, b: jnp.where(_at(ended, a), b, a), new, s), None

    s = jax.lax.scan(decide, jax.vmap(env.init)(keys), jnp.arange(decisions))[0]
    table, h = view.to_fast(s, env.num_players)
    return table, h, jnp.maximum(s.current_player, 0)


SLOW = pytest.mark.slow
CASES = [
    pytest.param(5, Rules(), 14, id="five"),
    pytest.param(
        3, Rules(jink=False, renege="deal"), 4, id="three-nojink-deal", marks=pytest.mark.slow
    ),
    pytest.param(4, Rules(follow="seed", rob="forced"), 7, id="four-seed", marks=SLOW),
    pytest.param(
        6, Rules(renege="trick", jink_bonus=3), 16, id="six-trick", marks=pytest.mark.slow
    ),
]


@pytest.mark.parametrize("n,rules,decisions", CASES)
def test_the_pruned_search_equals_the_full_one(n, rules, decisions) -> None:
    env = sf.spoil_five.SpoilFive(n, rules)

    @jax.jit
    def run():
        table, h, player = _positions(env, 48, decisions, seed=n)
        return [
            solve.search_solve(h, table, player, n, rules, prune, distinct=distinct)
            for prune, distinct in ((True, True), (False, False))
        ]

    (chips, _, nodes), *others = jax.device_get(run())
    assert len(set(chips.tolist())) > 1  # positions of different values
    for other_chips, _, _ in others:
        np.testing.assert_array_equal(other_chips, chips)
    assert nodes.sum() < others[0][2].sum()


def test_solve_tricks_and_its_bounds() -> None:
    env = sf.make("spoil_five")
    assert solve.max_solve_tricks(env) == 5
    assert solve.check_tricks("all") == 5 and solve.check_tricks(np.int64(2)) == 2
    for bad in (0, 6, True, "ALL", 2.0):
        with pytest.raises(ValueError, match="solve_tricks must be an integer from 1 to 5"):
            solve.check_tricks(bad)
    bot = sf.pimc(env, 4, solve_tricks=2)
    assert "the last 2 tricks solved exactly" in bot.describe()


@pytest.mark.slow
def test_pimc_with_the_last_tricks_solved_plays_legal_moves() -> None:
    env = sf.make("spoil_five", num_players=3)
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    state = jax.vmap(env.init)(keys)
    bot = sf.pimc(env, 4, solve_tricks=2)
    actions = jax.jit(jax.vmap(bot))(keys, state, state.current_player)
    assert np.asarray(jax.vmap(lambda m, a: m[a])(state.legal_action_mask, actions)).all()
