"""``jax.vmap(env.step)`` runs the batch's step as a computation of its own (a ``lax.cond`` on
whether any hand is live: ``core.transition.isolated_step``), and gives exactly the states of the
plain vmapped ``core.transition.transition``: live hands, illegal actions, finished hands, a batch
that has all finished, an action shared by the batch, nested ``vmap``."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core.transition import transition
from tests.tiny_game import BareHighCard
from tests.tools.test_cores import _run

GAMES = {
    "spoil_five": lambda: sf.make("spoil_five", num_players=4),
    "auction_forty_fives": lambda: sf.make("auction_forty_fives"),
    "bare_high_card": lambda: BareHighCard(),
}


def same(a, b) -> None:
    assert jax.tree.structure(a) == jax.tree.structure(b)
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize(
    "game",  # (-m slow: the auction game; the rule is the core's, whatever the game)
    [pytest.param(g, marks=pytest.mark.slow) if g == "auction_forty_fives" else g for g in GAMES],
)
def test_the_batched_step_is_the_plain_vmapped_transition(game):
    env = GAMES[game]()
    b = 48
    plain = jax.jit(jax.vmap(functools.partial(transition, env)))
    step = jax.jit(jax.vmap(env.step))
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(7), b))
    # a legal action mostly; an illegal one (the next action id) in every fifth hand at its
    # decisions 1 and 2, so some hands end early and the batch holds live and finished hands
    lane = jnp.arange(b)
    for t in range(env.max_decisions + 1):
        first = jnp.argmax(states.legal_action_mask, axis=-1).astype(jnp.int32)
        foul = (lane % 5 == 0) & (t >= 1) & (t < 3)
        actions = jnp.where(foul, (first + 1) % env.num_actions, first)
        want = plain(states, actions)
        same(step(states, actions), want)
        states = want
    assert bool(states.terminated.all()) and bool(states.illegal.any())
    # every hand over: the cond's other branch, the finished outcome of each
    same(step(states, jnp.zeros(b, jnp.int32)), plain(states, jnp.zeros(b, jnp.int32)))


def test_an_unbatched_argument_and_nested_vmaps_step_as_the_transition():
    env = sf.make("spoil_five")
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(1), 12))
    plain = jax.vmap(functools.partial(transition, env), in_axes=(0, None))
    for a in (52, 3):  # PASS (legal for most), a card (mostly illegal)
        same(jax.vmap(env.step, in_axes=(0, None))(states, a), plain(states, jnp.int32(a)))
    one = jax.tree.map(lambda x: x[0], states)
    acts = jnp.arange(50, 55, dtype=jnp.int32)
    same(
        jax.vmap(env.step, in_axes=(None, 0))(one, acts),
        jax.vmap(functools.partial(transition, env), in_axes=(None, 0))(one, acts),
    )
    grid = jax.tree.map(lambda x: x.reshape(3, 4, *x.shape[1:]), states)
    acts = jnp.full((3, 4), 52, jnp.int32)
    nested = jax.vmap(jax.vmap(env.step))(grid, acts)
    same(nested, jax.vmap(jax.vmap(functools.partial(transition, env)))(grid, acts))
    same(env.step(one, 52), transition(env, one, jnp.int32(52)))


def test_the_batched_step_is_a_computation_of_its_own():
    """The reason for the rule: under ``vmap`` the step sits in a ``cond`` (XLA compiles it
    apart from the caller's choice of action); unbatched, there is no ``cond``."""
    env = sf.make("spoil_five")
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(2), 4))
    batched = jax.make_jaxpr(jax.vmap(env.step))(states, jnp.zeros(4, jnp.int32))
    assert "cond[" in str(batched)
    one = jax.tree.map(lambda x: x[0], states)
    assert "cond[" not in str(jax.make_jaxpr(env.step)(one, 52))


def test_where_the_branches_types_differ_the_batch_steps_plainly():
    """A state whose leaves have other dtypes than the step's (int32 rewards): the finished
    branch would keep them, the live one promotes them, so the batch steps through the plain
    vmapped transition, with its values."""
    env = sf.make("spoil_five")
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(4), 6))
    odd = states.replace(rewards=jnp.zeros_like(states.rewards, jnp.int32))
    acts = jnp.full(6, 52, jnp.int32)
    same(jax.vmap(env.step)(odd, acts), jax.vmap(functools.partial(transition, env))(odd, acts))


def test_inside_shard_map_a_state_shared_by_the_devices_steps_with_their_own_actions():
    """The same hands on each of two devices, each stepping them with its own actions: the
    finished branch would not vary over the mesh axis as the live one does (the cond cannot
    be built), so the step is the plain one there, with its values."""
    out = _run(
        """
        import jax, jax.numpy as jnp, numpy as np
        import spoilfive_jax as sf
        from jax.sharding import Mesh, PartitionSpec as P
        from spoilfive_jax.core.transition import transition
        sf.use_all_cores(2)
        env = sf.make("spoil_five")
        mesh = Mesh(np.array(jax.devices()), ("hands",))
        s = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(3), 2))
        def on_mesh(step):
            return jax.jit(jax.shard_map(lambda s, a: jax.vmap(step)(s, a), mesh=mesh,
                           in_specs=(P(), P("hands")), out_specs=P("hands")))
        a = jnp.array([52, 52, 0, 1], jnp.int32)
        got = on_mesh(env.step)(s, a)
        want = on_mesh(lambda s1, a1: transition(env, s1, a1))(s, a)
        print(len(jax.devices()), all(bool((x == y).all()) for x, y in
              zip(jax.tree.leaves(got), jax.tree.leaves(want))))
        """
    )
    assert out.split() == ["2", "True"]
