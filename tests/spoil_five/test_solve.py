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
from spoilfive_jax.tools.analysis import legal_slots
from tests.twins import assert_twins_take_their_values


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
CASES = [  # (-m slow: the default run checks the search against test_solve_reference.py's minimax)
    pytest.param(5, Rules(), 14, id="five", marks=SLOW),
    pytest.param(3, Rules(jink=False, renege="deal"), 4, id="three-nojink-deal", marks=SLOW),
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


@pytest.mark.slow  # (the family's twins are checked by default: forty_five/test_endgame.py)
def test_equivalent_root_moves_take_their_twins_values(monkeypatch) -> None:
    """A decision's card equivalent to another of its world, and a padded repeat, is not
    searched but takes that move's solve (``solve.root_twins``): the same chips, pot taken and
    spoil as when every slot is searched (positions of every phase, the rob and the jink
    included; the last three tricks solved, so early positions play on first and keep every
    slot)."""
    env = sf.make("spoil_five", num_players=3)
    act = jax.vmap(env.builtin_policy("random"))
    keys = jax.random.split(jax.random.PRNGKey(7), 128)
    stop = jax.random.randint(jax.random.PRNGKey(8), (128,), 0, 17)

    def decide(s, t):
        k = jax.vmap(lambda key: jax.random.fold_in(key, t))(keys)
        new = jax.vmap(env.step)(s, act(k, s, jnp.maximum(s.current_player, 0)))
        keep = new.terminated | (t >= stop)
        return jax.tree.map(lambda a, b: jnp.where(_at(keep, a), b, a), new, s), None

    states = jax.jit(lambda: jax.lax.scan(decide, jax.vmap(env.init)(keys), jnp.arange(17))[0])()
    player = jnp.maximum(states.current_player, 0)
    width = 6
    actions = jax.vmap(lambda m: legal_slots(m, width)[0])(states.legal_action_mask)

    def solved() -> dict[str, np.ndarray]:
        run = jax.jit(lambda k, s, a, p: solve.solved_playout(env, k, s, a, p, "heuristic", 3))
        return {f: np.asarray(v) for f, v in run(keys, states, actions, player).items()}

    def twins_of(s, a):
        table, h = view.to_fast(s, 3)
        return solve.root_twins(h, table, a, solve._plays_left(h, 3) <= 10, env.rules)

    twins = np.asarray(jax.jit(twins_of)(states, actions))
    assert_twins_take_their_values(solved, twins, actions, solve, monkeypatch)
