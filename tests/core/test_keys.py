"""``core.keys``: counter keys behave as JAX keys, reproduce the kernels' draws, and their numbers
look uniform and independent."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from spoilfive_jax.core import keys
from spoilfive_jax.core.kernel import mix

U32 = jnp.uint32


def test_a_decision_key_draws_the_kernels_number_first():
    ids = jnp.arange(1000, dtype=U32)
    hand = keys.hand_keys(U32(12345), ids)
    for t in (0, 7, 26):
        decision = jax.vmap(jax.random.fold_in, in_axes=(0, None))(hand, t)
        np.testing.assert_array_equal(
            np.asarray(jax.random.key_data(decision)),
            np.stack([np.full(1000, 12345), np.arange(1000), np.full(1000, t)], -1),
        )
        drawn = jax.vmap(lambda k: jax.random.bits(k, (), U32))(decision)
        np.testing.assert_array_equal(np.asarray(drawn), np.asarray(mix(U32(12345), ids, U32(t))))


def test_every_jax_random_function_takes_them():
    key = jax.random.fold_in(keys.hand_keys(U32(3), jnp.arange(1, dtype=U32))[0], 4)
    a, b = jax.random.split(key)
    assert not np.array_equal(jax.random.key_data(a), jax.random.key_data(b))
    assert jax.random.uniform(key, (5,)).shape == (5,)
    assert jax.random.normal(key, (2, 3)).shape == (2, 3)
    assert 0 <= int(jax.random.randint(key, (), 0, 10)) < 10
    assert int(jax.random.categorical(key, jnp.array([0.0, -jnp.inf, 0.0]))) in (0, 2)
    assert sorted(np.asarray(jax.random.permutation(key, 6)).tolist()) == list(range(6))
    assert int(jax.random.choice(key, jnp.arange(4))) in range(4)
    assert jax.random.gumbel(key, (55,)).shape == (55,)
    assert jax.random.bits(key, (3,), jnp.uint8).dtype == jnp.uint8
    k = jax.random.key(7, impl=keys.COUNTER)  # seeded as any key
    assert jax.random.uniform(k).shape == ()
    same = jax.random.uniform(jax.random.fold_in(key, 1), (8,))
    np.testing.assert_array_equal(same, jax.random.uniform(jax.random.fold_in(key, 1), (8,)))


def _chi2_uniform(u: np.ndarray, bins: int = 16) -> float:
    counts = np.bincount(np.minimum((u * bins).astype(int), bins - 1), minlength=bins)
    expected = u.size / bins
    return float(((counts - expected) ** 2 / expected).sum())


@pytest.mark.parametrize(
    "stream",
    ["decision keys", "words of one key", "split children", "folded twice"],
)
def test_numbers_look_uniform_and_distinct(stream):
    """40,000 numbers of each way of deriving keys: uniform over 16 bins (chi-square at the
    0.1% level, 15 degrees of freedom: 37.7) and, as 32-bit words, all distinct but a few."""
    hand = keys.hand_keys(U32(99), jnp.arange(200, dtype=U32))
    if stream == "decision keys":
        ks = jax.vmap(lambda k: jax.vmap(lambda t: jax.random.fold_in(k, t))(jnp.arange(200)))(hand)
        words = jax.vmap(jax.vmap(lambda k: jax.random.bits(k, (), U32)))(ks)
    elif stream == "words of one key":
        words = jax.vmap(lambda k: jax.random.bits(k, (200,), U32))(hand)
    elif stream == "split children":
        words = jax.vmap(
            lambda k: jax.vmap(lambda c: jax.random.bits(c, (), U32))(jax.random.split(k, 200))
        )(hand)
    else:
        ks = jax.vmap(
            lambda k: jax.vmap(lambda t: jax.random.fold_in(jax.random.fold_in(k, 5), t))(
                jnp.arange(200)
            )
        )(hand)
        words = jax.vmap(jax.vmap(lambda k: jax.random.bits(k, (), U32)))(ks)
    w = np.asarray(words).ravel()
    assert _chi2_uniform(w / 2.0**32) < 37.7
    assert len(np.unique(w)) > w.size - 5  # (birthday collisions of 40,000 32-bit numbers: ~0.2)


def test_a_game_without_a_kernel_deals_and_plays_on_counter_keys():
    """``core.generic``'s rollouts (every game that does not deal its own: the Oh Hell plugin,
    a new user's game): hand ``id`` is dealt by ``init`` from the counter key ``(seed, id,
    DEAL)`` and its decision ``t`` gets ``(seed, id, t)``, so a policy's ``jax.random`` call
    costs a hash; the deal key is never a decision's."""
    from spoilfive_jax.core import generic
    from tests.tiny_game import HighCard

    env = HighCard(3)
    seed = generic.rollout_keys(env, jax.random.PRNGKey(4))
    ids = jnp.arange(6, dtype=U32)
    hand = generic.hand_keys(env, seed, ids)
    assert jax.random.key_impl(hand) == keys.COUNTER
    words = np.asarray(jax.random.key_data(hand))
    np.testing.assert_array_equal(words[:, 1], np.arange(6))
    assert (words[:, 2] == keys.UNSET).all()
    dealt = jax.random.key_data(keys.deal_keys(seed, ids))
    assert (np.asarray(dealt)[:, 2] == keys.DEAL).all()
    want = jax.vmap(lambda k: env.init(k, 0))(keys.deal_keys(seed, ids))
    got = generic.rollout_deal(env, seed, ids, {"dealer": 0})
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_as_counter_draws_distinct_counter_keys_from_any_keys():
    """``as_counter``: each key of any implementation becomes a counter key of two of its own
    words (the decision unset); the same key the same counter key, distinct keys distinct."""
    base = jax.random.split(jax.random.PRNGKey(9), 64)
    got = keys.as_counter(base)
    assert jax.random.key_impl(got) == keys.COUNTER
    words = np.asarray(jax.random.key_data(got))
    assert (words[:, 2] == keys.UNSET).all()
    assert len({tuple(w) for w in words[:, :2].tolist()}) == 64
    np.testing.assert_array_equal(np.asarray(jax.random.key_data(keys.as_counter(base))), words)
