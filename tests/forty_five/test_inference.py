"""Inference over the play (``forty_five.likelihood``, ``Inference``, ``pimc(infer_worlds=)``).

The public record of who played what (``State.trick_plays``) wound back to the first lead and
replayed must give the state itself, every field, in positions of every phase and rule set
(half of them resampled worlds); the likelihood of the heuristic's own plays is what the
softened heuristic gives them; a world that makes a recorded play illegal is impossible; and
the bot keeps the worlds that make the plays likely.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core import bits
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.games.forty_five import game, likelihood
from spoilfive_jax.games.forty_five.agent import AGENTS_DIR
from spoilfive_jax.games.forty_five.rules import FortyFiveRules
from spoilfive_jax.rl.agent import load_policy
from spoilfive_jax.tools.analysis import play_model, sample_worlds
from tests.forty_five.test_fast_playout import _after

AGENT = Path(AGENTS_DIR) / "forty_five_ppo.npz"  # (examples/agents links to it)

R = FortyFiveRules


def _row(tree, i):
    return jax.tree.map(lambda x: x[i], tree)


def _replayed(state: game.State, rules: FortyFiveRules) -> game.State:
    """``state``'s record replayed from the first lead by ``game.apply_action``."""
    record = state.trick_plays.astype(jnp.int32)

    def one(_: jax.Array, s: game.State) -> game.State:
        card = record[jnp.minimum(s.trick_num, 4), s.current_player]
        return game.with_legal(game.apply_action(s, card, rules), rules)

    start = likelihood.play_start(state, rules)
    return jax.lax.fori_loop(0, likelihood.plays_made(state), one, start)


@pytest.mark.parametrize(
    ("n", "rules"),
    [
        pytest.param(4, R(), id="forty_five4", marks=pytest.mark.slow),  # (auction4 covers it)
        pytest.param(4, R(variant="auction"), id="auction4"),
        pytest.param(
            2, R(joker=True, jink="announced"), id="forty_five2-joker-jink", marks=pytest.mark.slow
        ),
        pytest.param(
            6, R(variant="twenty_five", renege="trick"), id="twenty_five6", marks=pytest.mark.slow
        ),
        pytest.param(
            3,
            R(rob="forced", renege="deal", follow="seed"),
            id="forty_five3-seed",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_the_record_wound_back_and_replayed_is_the_state(n, rules) -> None:
    env = sf.forty_five.FortyFive(n, rules)
    states = jax.jit(lambda: _after(env, 48, seed=n)[0])()
    # the record holds exactly the cards played to tricks
    record = np.asarray(states.trick_plays).astype(int)  # [48, 5, N]
    played = np.asarray(bits.to_bool(states.played, 64))  # [48, 64]
    for row, cards in zip(record, played, strict=True):
        assert np.array_equal(
            np.flatnonzero(np.isin(np.arange(64), row[row >= 0])), np.flatnonzero(cards)
        )
    live = np.asarray(~states.terminated & (states.phase == game.PHASE_PLAY))
    assert live.sum() >= 8
    again = jax.vmap(lambda s: _replayed(s, rules))(states)
    for f in states.__dataclass_fields__.keys() - {"rules"}:  # (static: not an array)
        for a, b in zip(
            jax.tree.leaves(getattr(again, f)), jax.tree.leaves(getattr(states, f)), strict=True
        ):
            same = np.asarray(a == b).reshape(48, -1).all(1)
            assert same[live].all(), f


def _heuristic_hand(env: sf.Env, plays: int, seed: int) -> tuple[game.State, list[int], list[int]]:
    """A hand played by the heuristic at every seat until ``plays`` cards are down: the state,
    and the seat and the number of legal cards of each play."""
    heuristic = jax.jit(env.builtin_policy("heuristic"))
    step = jax.jit(env.step)
    s = env.init(jax.random.PRNGKey(seed))
    seats, legal = [], []
    while int(likelihood.plays_made(s)) < plays:
        if int(s.phase) == game.PHASE_PLAY:
            seats.append(int(s.current_player))
            legal.append(int(np.asarray(s.legal_action_mask).sum()))
        s = step(s, heuristic(jax.random.PRNGKey(0), s, s.current_player))
    return s, seats, legal


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_the_heuristics_own_plays_have_the_softened_heuristics_likelihood() -> None:
    env = sf.make("forty_five")
    loglik = jax.jit(likelihood.play_log_likelihood, static_argnums=(0, 3))
    resample = jax.jit(env.capability(caps.Analysis).resample_hidden_many, static_argnums=(0, 4))
    models = {s: play_model(env, "heuristic", s) for s in (0.25, 0.6, 1.0)}  # (one compile each)
    for seed in range(2):
        s, seats, legal = _heuristic_hand(env, 11, seed)
        me = int(s.current_player)
        one = jax.tree.map(lambda x: x[None], s)
        for softness in (0.25, 0.6, 1.0):  # (1: random play, -sum(log L))
            want = sum(
                np.log(1 - softness + softness / k)
                for q, k in zip(seats, legal, strict=True)
                if q != me
            )
            got = float(loglik(env, one, me, models[softness])[0])
            assert got == pytest.approx(want, abs=1e-4)
        # every world the resampler draws replays legally, and the plays tell them apart
        worlds = resample(env, jax.random.PRNGKey(seed), s, me, 64)
        sharp = np.asarray(loglik(env, worlds, me, models[0.25]))
        assert (sharp > likelihood.IMPOSSIBLE / 2).all() and sharp.std() > 0
    # before the first lead nothing is weighed
    fresh = jax.tree.map(lambda x: x[None], env.init(jax.random.PRNGKey(0)))
    assert float(loglik(env, fresh, 0, models[0.25])[0]) == 0.0


def test_a_world_that_makes_a_recorded_play_illegal_is_impossible() -> None:
    # a seat that has shown it cannot hold a card (it did not follow) is given one
    env = sf.make("forty_five")
    for seed in range(40):
        s, _, _ = _heuristic_hand(env, 12, seed)
        held = np.asarray(bits.to_bool(s.hands, 64))  # [N, 64]
        unseen = ~held.any(0) & ~np.asarray(bits.to_bool(s.played, 64))
        unseen[int(s.turnup)] = False
        shown = np.asarray(bits.to_bool(s.cannot_hold, 64)) & unseen
        me = int(s.current_player)
        seat = next((q for q in range(4) if q != me and shown[q].any() and held[q].any()), None)
        if seat is not None:
            break
    else:
        pytest.fail("no hand with a seat that showed a void")
    give, take = int(np.flatnonzero(shown[seat])[0]), int(np.flatnonzero(held[seat])[0])
    hand = held[seat].copy()
    hand[take], hand[give] = False, True
    lo = np.uint32(sum(1 << c for c in np.flatnonzero(hand) if c < 32))
    hi = np.uint32(sum(1 << (c - 32) for c in np.flatnonzero(hand) if c >= 32))
    world = s.replace(hands=bits.Bits(s.hands.lo.at[seat].set(lo), s.hands.hi.at[seat].set(hi)))
    both = jax.tree.map(lambda a, b: jnp.stack([a, b]), s, world)
    model = play_model(env, "heuristic", 0.25)
    ll = np.asarray(likelihood.play_log_likelihood(env, both, me, model))
    assert ll[0] > likelihood.IMPOSSIBLE / 2 and ll[1] <= likelihood.IMPOSSIBLE / 2


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_the_bot_keeps_the_worlds_the_plays_point_to() -> None:
    env = sf.make("forty_five")
    s, _, _ = _heuristic_hand(env, 10, 1)
    me = s.current_player
    key = jax.random.PRNGKey(4)
    sample = jax.jit(sample_worlds, static_argnums=(0, 4, 5, 6, 7))
    resample = jax.jit(env.capability(caps.Analysis).resample_hidden_many, static_argnums=(0, 4))
    candidates = resample(env, jax.random.fold_in(key, 0), s, me, 128)
    plain = sample(env, key, s, me, 16, False, 0, None)  # without inference: the resampler's
    first = resample(env, jax.random.fold_in(key, 0), s, me, 16)
    assert all(jax.tree.leaves(jax.tree.map(lambda a, b: bool(jnp.all(a == b)), plain, first)))
    # nearly hard inference: every kept world is one of the likeliest of the 128 drawn
    model = play_model(env, "heuristic", 1e-6)
    kept = sample(env, key, s, me, 16, False, 128, model)
    loglik = jax.jit(likelihood.play_log_likelihood, static_argnums=(0, 3))
    every = np.asarray(loglik(env, candidates, me, model))
    mine = np.asarray(loglik(env, kept, me, model))
    assert every.max() - every.min() > 10  # (the plays tell the worlds apart)
    # each mismatch costs log(1e-6 / L), about -14: the kept worlds are the likeliest 16 (up to
    # the draw's Gumbel noise within a tier), and no world is kept twice
    assert mine.min() >= np.sort(every)[-16] - 5
    hands = np.stack([np.asarray(kept.hands.lo), np.asarray(kept.hands.hi)], -1).reshape(16, -1)
    assert len({tuple(h) for h in hands}) == 16


def test_pimc_takes_infer_worlds_and_refuses_what_it_cannot_infer() -> None:
    ff = sf.make("forty_five")
    bot = sf.pimc(ff, 4, infer_worlds=8, softness=0.5)
    assert "kept from 8 by how likely they make the other seats' plays" in bot.describe()
    assert "softness 0.5" in bot.describe()
    s, _, _ = _heuristic_hand(ff, 6, 0)
    action = int(jax.jit(bot)(jax.random.PRNGKey(0), s, s.current_player))
    assert bool(s.legal_action_mask[action])
    for bad in (-1, True, 2.0):
        with pytest.raises(ValueError, match="infer_worlds must be an integer"):
            sf.pimc(ff, 4, infer_worlds=bad)
    with pytest.raises(ValueError, match="or more than the 4 worlds it keeps, got 3"):
        sf.pimc(ff, 4, infer_worlds=3)  # (it could not keep 4 of 3)
    for bad in (-0.1, 1.5, True, "0.5"):
        with pytest.raises(ValueError, match="softness must be a number in"):
            sf.pimc(ff, 4, infer_worlds=8, softness=bad)
    with pytest.raises(ValueError, match="Inference"):
        sf.pimc(sf.make("spoil_five"), 4, infer_worlds=8)
    with pytest.raises(ValueError, match="Inference"):
        sf.pimc(num_samples=4, infer_worlds=8).bind(sf.make("spoil_five"))
    with pytest.raises(ValueError, match="softness=1 instead"):
        sf.pimc(ff, 4, infer_worlds=8, infer_model="random")
    with pytest.raises(ValueError, match="infer_model"):
        sf.pimc(ff, 4, infer_worlds=8, infer_model="nope")
    with pytest.raises(ValueError, match="infer_model must be"):
        sf.pimc(num_samples=4, infer_worlds=8, infer_model=3)


def test_an_agent_models_the_plays_by_its_distribution() -> None:
    ff = sf.make("forty_five")
    agent = load_policy(AGENT)
    s, _, _ = _heuristic_hand(ff, 6, 2)
    probs = np.asarray(jax.jit(agent.action_probs)(s, s.current_player))
    legal = np.asarray(s.legal_action_mask)
    assert probs.sum() == pytest.approx(1, abs=1e-5) and (probs[~legal] == 0).all()
    model = play_model(ff, agent, 0.2)
    mixed = np.asarray(model(s, s.current_player))
    np.testing.assert_allclose(mixed, 0.8 * probs + 0.2 * legal / legal.sum(), atol=1e-6)
    with pytest.raises(ValueError, match="this agent plays forty_five, not twenty_five"):
        sf.pimc(sf.make("twenty_five"), 4, infer_worlds=8, infer_model=agent)
    bot = sf.pimc(ff, 4, infer_worlds=8, infer_model=agent)
    assert "(the ppo agent, softness 0.6)" in bot.describe()


@pytest.mark.slow  # (the heuristic's model plays by default above; this compiles the network in)
def test_a_bot_that_infers_with_an_agent_plays_legal_moves() -> None:
    ff = sf.make("forty_five")
    bot = sf.pimc(ff, 4, infer_worlds=8, infer_model=load_policy(AGENT))
    s, _, _ = _heuristic_hand(ff, 6, 2)
    action = int(jax.jit(bot)(jax.random.PRNGKey(1), s, s.current_player))
    assert bool(s.legal_action_mask[action])
