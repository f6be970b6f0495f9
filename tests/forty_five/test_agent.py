"""The family's agent without flax (``forty_five.agent``): the shipped agent plays as the
trained network does, tables it was not trained for get none, and the best bot's hint draws
its worlds as the bot does (``analyze(..., infer_worlds=...)``)."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.games.forty_five import agent as family_agent
from spoilfive_jax.games.forty_five.agent import shipped_agent
from spoilfive_jax.games.forty_five.state import PHASE_PLAY
from spoilfive_jax.tools.best import hint_text

FF4 = sf.forty_five.FortyFive(4)


def _states(env: sf.Env, hands: int, steps: int) -> object:
    """Every state of ``hands`` heuristic-played hands for ``steps`` steps, stacked [T * B]."""
    heuristic = env.builtin_policy("heuristic")
    act = jax.jit(jax.vmap(lambda k, s: heuristic(k, s, s.current_player)))
    step = jax.jit(jax.vmap(env.step))
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(4), hands))
    seen = []
    for t in range(steps):
        seen.append(state)
        state = step(state, act(jax.random.split(jax.random.PRNGKey(t), hands), state))
    return jax.tree.map(lambda *x: jnp.concatenate(x), *seen)


@pytest.mark.parametrize(
    "game", ["forty_five", pytest.param("twenty_five", marks=pytest.mark.slow)]
)
def test_the_shipped_agent_plays_as_its_trained_network(game: str) -> None:
    pytest.importorskip("flax")
    from spoilfive_jax.rl.agent import load_policy

    env = sf.make(game, 4)
    mine = shipped_agent(env)
    assert mine is not None and mine.advice == "heuristic"
    trained = load_policy(os.path.join(family_agent.AGENTS_DIR, f"{game}_ppo.npz"))
    states = _states(env, 16, 24)
    live = ~np.asarray(states.terminated)

    def both(s: object) -> tuple[jax.Array, jax.Array]:
        seat = jnp.maximum(s.current_player, 0)
        return mine.action_probs(s, seat), trained.action_probs(s, seat)

    ours, theirs = jax.jit(jax.vmap(both))(states)
    np.testing.assert_allclose(np.asarray(ours)[live], np.asarray(theirs)[live], atol=1e-6)
    keys = jax.random.split(jax.random.PRNGKey(0), live.size)
    seats = jnp.maximum(states.current_player, 0)
    greedy = jax.jit(jax.vmap(mine))(keys, states, seats)
    assert (np.asarray(greedy) == np.asarray(theirs).argmax(-1))[live].all()
    assert "params" not in repr(mine)  # (two megabytes of weights are not its repr)


def test_tables_the_agent_was_not_trained_for_get_none() -> None:
    assert shipped_agent(FF4) is shipped_agent(sf.forty_five.FortyFive(4))  # one a table
    assert shipped_agent(sf.forty_five.FortyFive(6)) is None
    assert shipped_agent(sf.make("forty_five", joker=True)) is None
    assert shipped_agent(sf.make("twenty_five")) is not None  # (its own agent)
    assert shipped_agent(sf.make("twenty_five", 6)) is None
    assert shipped_agent(sf.make("auction_forty_fives")) is None  # (not measured as a model)
    with pytest.raises(ValueError, match="this agent plays"):
        shipped_agent(FF4).bind(sf.forty_five.FortyFive(6))
    assert shipped_agent(FF4).bind(sf.forty_five.FortyFive(4)) is shipped_agent(FF4)


def test_analyze_checks_its_inference_as_pimc_does() -> None:
    state = FF4.init(jax.random.PRNGKey(0))
    for kwargs, why in (
        ({"infer_worlds": -1}, "infer_worlds must be an integer >= 0"),
        ({"infer_worlds": 64}, "more than the 64 worlds it keeps"),  # (a block: none weighed)
        ({"infer_worlds": 128, "softness": 2}, r"softness must be a number in \[0, 1\]"),
        ({"infer_worlds": 128, "infer_model": "random"}, "^analyze: infer_model 'random' weighs"),
        ({"infer_worlds": 128, "infer_model": "nobody"}, "^analyze: bad infer_model"),
    ):
        with pytest.raises(ValueError, match=why):
            sf.analyze(0, FF4, state, 64, **kwargs)
    spoil = sf.make("spoil_five")
    with pytest.raises(ValueError, match=r"Inference capability \(analyze.s infer_worlds"):
        sf.analyze(0, spoil, spoil.init(jax.random.PRNGKey(0)), 64, infer_worlds=128)


@pytest.mark.slow  # (compiles the inferring search twice)
def test_the_hint_weighs_its_worlds_as_the_best_bot_plays() -> None:
    best = sf.best_policy(FF4)
    state = jax.tree.map(lambda x: x[0], _states(FF4, 1, 12))  # mid-play: plays to weigh
    assert int(state.phase) == PHASE_PLAY and int(state.legal_action_mask.sum()) > 1
    key = jax.random.PRNGKey(3)
    inferred = {"infer_worlds": 128, "infer_model": best.infer_model, "softness": 0.1}
    res = sf.analyze(key, FF4, state, 64, **inferred)  # one block: the bot's own worlds
    plain = sf.analyze(key, FF4, state, 64)
    assert not np.allclose(res.expected_points[res.legal], plain.expected_points[plain.legal])
    played = int(best(jax.random.fold_in(key, 0), state, state.current_player))  # (block 0)
    assert played == int(res.best)
    how = f"the best bot's choice from these samples: {best.describe(worlds=False)}"
    assert "(the ppo agent, softness 0.1)" in how
    text = hint_text(FF4, state, key, 64)
    assert text == f"{res.table()}\nbest: {res.action_names[played]} ({how})"
