"""The RL surface of the Forty-Five family (``FortyFive``, ``TwentyFive``, ``AuctionFortyFives``)
beyond the pgx conformance every game passes (``testing.api_test``,
``tests/tools/test_conformance.py``).

No leakage: re-dealing the cards a seat cannot see never changes its observation.
``observe_full`` accounts for every card.  The PettingZoo wrapper on a family table passes
PettingZoo's ``api_test``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core import bits
from spoilfive_jax.games.forty_five import game
from spoilfive_jax.games.forty_five import observe as ob

# Two tables: Auction (bidding, naming trump, discard and draw from the stock) and a turn-up
# game with the joker and announced jinks (joker exchange, rob, announce phases).
AUCTION3 = sf.forty_five.AuctionFortyFives(3)
JOKER4 = sf.forty_five.FortyFive(4, sf.forty_five.FortyFiveRules(joker=True, jink="announced"))


@functools.cache
def compiled(env: sf.forty_five.FortyFive):
    """jit(observe) and jit(observe_full) of one hand, shared by the tests of a table."""
    return jax.jit(env.observe), jax.jit(env.observe_full)


@functools.cache
def batch_play(env: sf.forty_five.FortyFive, batch: int = 8, seed: int = 45) -> list[game.State]:
    """Every state of ``batch`` random hands played to the end with jit(vmap(...)) (that play's
    conformance is ``testing.api_test``'s, in ``tests/tools/test_conformance.py``)."""
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    rng = jax.random.PRNGKey(seed)
    rng, sub = jax.random.split(rng)
    states = [init(jax.random.split(sub, batch))]
    while not states[-1].terminated.all():
        rng, sub = jax.random.split(rng)
        logits = jnp.where(states[-1].legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(sub, logits, axis=-1).astype(jnp.int32)
        states.append(step(states[-1], action))
    return states


# ---------------------------------------------------------------------------- no leakage


def pick(state: game.State, i) -> game.State:
    return jax.tree.map(lambda x: np.asarray(x)[i], state)


def some_states(env: sf.forty_five.FortyFive) -> list[game.State]:
    """Single-hand states along random hands of ``env`` (one compile per table)."""
    states = batch_play(env)
    return [pick(states[t], b) for t in range(0, len(states), 2) for b in range(0, 8, 3)]


def reshuffle_hidden(state: game.State, seat: int, rng: np.random.Generator) -> game.State:
    """``state`` (one hand) with the cards ``seat`` cannot see dealt again at random: the other
    hands, the other seats' discards and the stock still to be drawn (same sizes)."""
    n = state.tricks_won.shape[0]
    hands = np.asarray(bits.to_bool(state.hands, game.NUM_CARD_IDS)).copy()
    discards = np.asarray(bits.to_bool(state.discards, game.NUM_CARD_IDS)).copy()
    stock = np.asarray(state.stock).copy()
    top = int(state.stock_top)
    others = [q for q in range(n) if q != seat]
    hidden = [c for q in others for c in np.flatnonzero(hands[q])]
    hidden += [c for q in others for c in np.flatnonzero(discards[q])]
    hidden += stock[top:].tolist()
    hidden = list(rng.permutation(np.asarray(hidden, np.int64)))
    for plane in (hands, discards):
        for q in others:
            k = int(plane[q].sum())
            plane[q] = False
            plane[q, hidden[:k]] = True
            hidden = hidden[k:]
    stock[top:] = hidden
    return state.replace(
        hands=jax.tree.map(np.asarray, bits.from_bool(hands)),
        discards=jax.tree.map(np.asarray, bits.from_bool(discards)),
        stock=stock.astype(np.int32),
    )


@pytest.mark.parametrize("env", [AUCTION3, JOKER4], ids=["auction3", "joker4"])
def test_hidden_cards_never_change_the_observation(env):
    rng = np.random.default_rng(7)
    observe, full = compiled(env)
    n = env.num_players
    changed = 0
    checked = 0
    for state in some_states(env):
        for seat in range(n):
            other = reshuffle_hidden(state, seat, rng)
            np.testing.assert_array_equal(observe(state, seat), observe(other, seat))
            checked += 1
            changed += not np.array_equal(full(state), full(other))
    assert checked > 20
    assert changed > checked // 3  # the perfect-information view does see the re-deal


@pytest.mark.parametrize("env", [AUCTION3, JOKER4], ids=["auction3", "joker4"])
def test_full_observation_accounts_for_every_card(env):
    n, size = env.num_players, ob.observation_size(env.num_players)
    observe, full = compiled(env)
    for state in some_states(env):
        f = np.asarray(full(state))
        assert f.shape == env.full_observation_shape and f.dtype == np.float32
        np.testing.assert_array_equal(f[:size], observe(state, 0))
        c = game.NUM_CARD_IDS
        hands = f[size : size + n * c].reshape(n, c)
        discards = f[size + n * c : size + 2 * n * c].reshape(n, c)
        stock = f[size + 2 * n * c : size + 2 * n * c + c]
        order = f[size + 2 * n * c + c :]
        played = np.asarray(bits.to_bool(state.played, c))
        up = np.zeros(c, bool)
        if int(state.turnup) >= 0:
            up[int(state.turnup)] = True
        if bool(state.joker_up):
            up[game.JOKER] = True
        # (the turn-up counts where no hand holds it and it is not played: a robbed one is
        # taken into the robber's hand, and may be played from there)
        total = (
            hands.sum(0) + discards.sum(0) + stock + played + (up & (hands.sum(0) == 0) & ~played)
        )
        deck = env.rules.deck_size
        np.testing.assert_array_equal(total[:deck], 1)
        assert total[deck:].sum() == 0
        if env.rules.auction:
            left = np.asarray(state.stock)[int(state.stock_top) :]
            np.testing.assert_array_equal(np.flatnonzero(stock), np.sort(left))
            np.testing.assert_allclose(order[left], (np.arange(left.size) + 1) / state.stock.size)
        else:
            assert not order.any()


# ---------------------------------------------------------------------------- PettingZoo


def test_pettingzoo_family():
    pytest.importorskip("pettingzoo")
    pytest.importorskip("gymnasium")
    from pettingzoo.test import api_test

    from spoilfive_jax.rl.pettingzoo import env, raw_env

    # one compile: the wrapper's jitted functions are cached per (equal) table
    api_test(env(game="auction_forty_fives", num_players=3), num_cycles=100)
    e = raw_env(table=AUCTION3, render_mode="ansi")
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    e.reset(seed=3)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        totals[agent] += reward
        assert obs["observation"].shape == AUCTION3.observation_shape
        assert obs["action_mask"].shape == (64,)
        if terminated or truncated:
            assert info["illegal"] is False and "hand_points" in info
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert any(v != 0 for v in totals.values())
    assert "hand over: rewards" in e.render()
    e.reset(seed=4)
    assert "to act: player_" in e.render()
    assert e.metadata["name"] == "auction_forty_fives_v0"
    r = raw_env(game="forty_five", num_players=4)  # not reset: nothing compiled
    assert r.table == sf.forty_five.FortyFive(4) and r.metadata["name"] == "forty_five_v0"
    assert r.action_space("player_0").n == 64
    assert raw_env(table=JOKER4).table is JOKER4
    with pytest.raises(ValueError):
        raw_env(game="forty_four")


@pytest.mark.parametrize("env", [AUCTION3, JOKER4], ids=["auction3", "joker4"])
def test_information_record_is_public_and_resampling_leaks_nothing(env):
    """The information-state record ``cannot_hold`` is public: a world re-dealt consistently
    with a seat's knowledge keeps it and the seat's observation; every card is still dealt
    exactly once, and no seat holds a card its record excludes."""
    observe = compiled(env)[0]
    resample = jax.jit(
        functools.partial(env.capability(sf.capabilities.Analysis).resample_hidden, env)
    )
    n = env.num_players
    size = game.NUM_CARD_IDS
    checked = 0
    for i, state in enumerate(some_states(env)):
        if bool(state.terminated):
            continue
        seat = int(state.current_player)
        world = jax.device_get(resample(jax.random.PRNGKey(i), state, seat))
        np.testing.assert_array_equal(world.cannot_hold.lo, state.cannot_hold.lo)
        np.testing.assert_array_equal(world.cannot_hold.hi, state.cannot_hold.hi)
        np.testing.assert_array_equal(observe(state, seat), observe(world, seat))
        hands = np.asarray(bits.to_bool(world.hands, size))
        discards = np.asarray(bits.to_bool(world.discards, size))
        ch = np.asarray(bits.to_bool(world.cannot_hold, size))
        assert not (hands & ch).any()
        count = hands.sum(0) + discards.sum(0) + np.asarray(bits.to_bool(world.played, size))
        stock = np.asarray(world.stock)
        for c in stock[stock >= 0]:
            count[c] += 1
        if not env.rules.auction and not bool(world.robbed):
            count[int(world.turnup)] += 1
        assert count.max() == 1, np.flatnonzero(count > 1)
        for s in range(n):
            assert hands[s].sum() == np.asarray(bits.to_bool(state.hands, size))[s].sum()
        checked += 1
    assert checked > 5
