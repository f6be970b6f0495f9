"""``sf.first_legal`` and ``sf.random_legal``: the bitset idioms for a policy's legal choice, in
every game: the first legal action is ``argmax(legal_action_mask)``, a random one is always legal
and uniform over the legal set."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf

GAMES = ["spoil_five", "forty_five", "auction_forty_fives"]


def _states_along_play(env, hands: int, seed: int):
    """Live states of ``hands`` hands at every decision of random play, stacked [T * hands]."""
    step = jax.jit(jax.vmap(env.step))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(seed), hands))
    out = []
    for t in range(env.max_decisions):
        out.append(state)
        keys = jax.random.split(jax.random.PRNGKey(seed * 1000 + t), hands)
        state = step(state, jax.vmap(sf.random_legal)(keys, state))
    return jax.tree.map(lambda *x: jnp.concatenate(x), *out)


# (Forty-Five's masks are Auction's without the bids, same layout: it runs under -m slow)
@pytest.mark.parametrize(
    "game", [pytest.param(g, marks=pytest.mark.slow) if g == "forty_five" else g for g in GAMES]
)
def test_first_legal_is_the_masks_argmax_and_random_legal_is_legal(game):
    env = sf.make(game)
    states = _states_along_play(env, 64, seed=3)
    mask = np.asarray(states.legal_action_mask)
    first = np.asarray(jax.vmap(sf.first_legal)(states))
    np.testing.assert_array_equal(first, mask.argmax(-1))
    keys = jax.random.split(jax.random.PRNGKey(5), mask.shape[0])
    drawn = np.asarray(jax.vmap(sf.random_legal)(keys, states))
    assert mask[np.arange(mask.shape[0]), drawn].all()


def test_random_legal_is_uniform_over_the_legal_set():
    """20,000 draws on one position with several legal actions: each is drawn about equally
    often (a chi-square test at the 0.1% level, 1 - 3.4e-5 per degree of freedom)."""
    env = sf.make("spoil_five", num_players=4)
    state = env.init(jax.random.PRNGKey(2))
    while int(state.legal_action_mask.sum()) < 4:
        state = env.step(state, sf.first_legal(state))
    legal = np.flatnonzero(np.asarray(state.legal_action_mask))
    keys = jax.random.split(jax.random.PRNGKey(9), 20_000)
    drawn = np.asarray(jax.vmap(lambda k: sf.random_legal(k, state))(keys))
    counts = np.array([(drawn == a).sum() for a in legal])
    assert counts.sum() == drawn.size, "every draw is a legal action"
    expected = drawn.size / len(legal)
    chi2 = ((counts - expected) ** 2 / expected).sum()
    # 0.1% critical values of chi-square with 3..7 degrees of freedom
    critical = {3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46, 7: 24.32}[len(legal) - 1]
    assert chi2 < critical, (legal.tolist(), counts.tolist())
