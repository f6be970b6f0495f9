"""The RL surface of the Forty-Five family (``FortyFive``, ``TwentyFive``, ``AuctionFortyFives``).

pgx conformance as ``tests/test_pgx_api.py`` for Spoil Five: ``init(key)``, ``step(state,
action, key=None)``, ``observe``, ``num_actions``, ``observation_shape``, ``State.observation``
== ``observe(state, current_player)``, pinned dtypes and shapes, random legal play to the end of
a hand (one at a time and jit + vmap batched), a terminated state steps to itself with zero
rewards.  No leakage: re-dealing the cards a seat cannot see never changes its observation.
``observe_full`` accounts for every card.  The PettingZoo wrapper on a family table passes
PettingZoo's ``api_test``.
"""

from __future__ import annotations

import dataclasses
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
AUCTION3 = sf.AuctionFortyFives(3)
JOKER4 = sf.FortyFive(4, sf.FortyFiveRules(joker=True, jink="announced"))


@functools.cache
def compiled(env: sf.FortyFive):
    return (
        jax.jit(env.init),
        jax.jit(env.step),
        jax.jit(env.observe),
        jax.jit(jax.vmap(env.init)),
        jax.jit(jax.vmap(env.step)),
    )


@jax.jit
def act_randomly(key: jax.Array, mask: jax.Array) -> jax.Array:
    logits = jnp.where(mask, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)


@jax.jit
def _observation(state: game.State) -> jax.Array:
    return state.observation


def validate_state(state: game.State, env: sf.FortyFive, batch: tuple[int, ...] = ()) -> None:
    n = env.num_players
    checks = {
        "current_player": (jnp.int32, batch),
        "terminated": (jnp.bool_, batch),
        "truncated": (jnp.bool_, batch),
        "rewards": (jnp.float32, (*batch, n)),
        "game_rewards": (jnp.float32, (*batch, n)),
        "legal_action_mask": (jnp.bool_, (*batch, env.num_actions)),
        "observation": (jnp.float32, (*batch, *env.observation_shape)),
        "_step_count": (jnp.int32, batch),
    }
    for name, (dtype, shape) in checks.items():
        value = _observation(state) if name == "observation" else getattr(state, name)
        assert value.dtype == dtype, (name, value.dtype)
        assert value.shape == shape, (name, value.shape)
    live = ~np.asarray(state.terminated)
    cur = np.asarray(state.current_player)
    assert (cur[live] >= 0).all() and (cur[live] < n).all()
    assert (cur[~live] == -1).all()
    assert not np.asarray(state.truncated).any()
    mask = np.asarray(state.legal_action_mask)
    assert mask[live].any(axis=-1).all(), "a live hand must have a legal action"
    assert mask[~live].all(), "every action is 'legal' once terminated (pgx)"
    assert (np.asarray(state.rewards)[live] == 0).all(), "rewards only on the final step"


def validate_terminal_step(state: game.State, step) -> None:
    again = step(state, jnp.zeros_like(state.current_player))
    assert (np.asarray(again.rewards) == 0).all()
    assert (np.asarray(again.game_rewards) == 0).all()
    assert again.rules == state.rules
    for f in dataclasses.fields(game.State):
        if f.name in ("rewards", "game_rewards", "rules"):
            continue
        for x, y in zip(
            jax.tree.leaves(getattr(again, f.name)),
            jax.tree.leaves(getattr(state, f.name)),
            strict=True,
        ):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=f.name)


def test_env_attributes():
    for env in (AUCTION3, JOKER4, sf.TwentyFive(6)):
        n = env.num_players
        assert env.num_actions == game.NUM_ACTIONS == 64
        assert env.observation_shape == (242 + 116 * n,)
        assert env.full_observation_shape == (242 + 116 * n + 106 * n + 106,)
        state = jax.eval_shape(env.init, jax.random.PRNGKey(0))
        assert state.rules == env.rules
        # the rules are static metadata: no extra leaf, and a vmapped state keeps them
        assert len(jax.tree.leaves(state)) == len(dataclasses.fields(game.State)) - 1 + 4


# ---------------------------------------------------------------------------- pgx conformance


@functools.cache
def single_play(env: sf.FortyFive, num_hands: int = 2, seed: int = 4545):
    """(states, actions) of ``num_hands`` random hands played one at a time with jit."""
    init, step, _, _, _ = compiled(env)
    rng = jax.random.PRNGKey(seed)
    states, actions = [], []
    for _ in range(num_hands):
        rng, sub = jax.random.split(rng)
        state = init(sub)
        states.append(state)
        while not state.terminated:
            rng, sub = jax.random.split(rng)
            action = act_randomly(sub, state.legal_action_mask)
            state = step(state, action)
            actions.append(action)
            states.append(state)
        actions.append(None)  # a hand ends
    return states, actions


def test_api_single():
    env = AUCTION3
    n = env.num_players
    _, step, observe, _, _ = compiled(env)
    states, actions = single_play(env)
    assert int(states[0]._step_count) == 0 and (np.asarray(states[0].rewards) == 0).all()
    total = np.zeros(n)
    for state, action, after in zip(states, actions, [*states[1:], None], strict=True):
        validate_state(state, env)
        total += np.asarray(state.rewards)
        if action is None:  # the end of a hand
            assert state.terminated and not state.illegal
            assert not (total == 0).all()  # somebody scored (or a bid failed)
            total[:] = 0
            validate_terminal_step(state, step)
            continue
        assert not state.terminated
        cur = int(state.current_player)
        np.testing.assert_array_equal(_observation(state), observe(state, cur))
        views = np.stack([np.asarray(observe(state, p)) for p in range(n)])
        assert len({v.tobytes() for v in views}) == n
        assert int(after._step_count) == int(state._step_count) + 1 <= env.max_decisions
    # step(state, action, key): the key is accepted (pgx) and ignored -- same computation
    state, action = states[0], actions[0]
    key = jax.random.PRNGKey(1)
    with_key = jax.make_jaxpr(env.step)(state, action, key)
    without = jax.make_jaxpr(env.step)(state, action)
    assert str(with_key.jaxpr.eqns) == str(without.jaxpr.eqns)
    assert len(with_key.jaxpr.invars) == len(without.jaxpr.invars) + 1


@functools.cache
def batch_play(env: sf.FortyFive, batch: int = 8, seed: int = 45) -> list[game.State]:
    """Every state of ``batch`` random hands played to the end with jit(vmap(...))."""
    _, _, _, init, step = compiled(env)
    rng = jax.random.PRNGKey(seed)
    rng, sub = jax.random.split(rng)
    states = [init(jax.random.split(sub, batch))]
    while not states[-1].terminated.all():
        rng, sub = jax.random.split(rng)
        states.append(step(states[-1], act_randomly(sub, states[-1].legal_action_mask)))
        assert len(states) <= env.max_decisions + 1
    return states


def test_api_batch():
    env = JOKER4
    batch = 8
    observe = compiled(env)[2]  # one hand's observe (shared with the leakage test)
    states = batch_play(env, batch)
    for state in states:
        validate_state(state, env, (batch,))
        cur = np.maximum(np.asarray(state.current_player), 0)
        obs = np.asarray(_observation(state))
        for b in (0, 5):
            np.testing.assert_array_equal(obs[b], observe(pick(state, b), cur[b]))
    total = sum(np.abs(s.rewards) + np.abs(s.game_rewards) for s in states)
    # every hand paid someone: points, or the game lost on a failed announced jink
    assert (total != 0).any(axis=1).all()
    assert not np.asarray(states[-1].illegal).any()
    validate_terminal_step(states[-1], compiled(env)[4])


# ---------------------------------------------------------------------------- no leakage


def pick(state: game.State, i) -> game.State:
    return jax.tree.map(lambda x: np.asarray(x)[i], state)


def some_states(env: sf.FortyFive) -> list[game.State]:
    """Single-hand states along the hands played by the API tests (one compile per table)."""
    if env is AUCTION3:
        return single_play(env)[0]
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
    observe, full = compiled(env)[2], jax.jit(env.observe_full)
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
    full = jax.jit(env.observe_full)
    observe = compiled(env)[2]
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
        total = hands.sum(0) + discards.sum(0) + stock + played + (up & (hands.sum(0) == 0))
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
    assert r.table == sf.FortyFive(4) and r.metadata["name"] == "forty_five_v0"
    assert r.action_space("player_0").n == 64
    assert raw_env(table=JOKER4).table is JOKER4
    with pytest.raises(ValueError):
        raw_env(game="forty_four")
