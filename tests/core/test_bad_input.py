"""Bad input to the core (``init``, ``step``, ``legal_actions``) is refused with one ``ValueError``
naming what is wrong, in Python when the function is called or traced; where nothing can raise
(a traced dealer under jit) the documented outcome is checked."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf

KEY = jax.random.PRNGKey(3)
SPOIL3 = sf.make("spoil_five", 3)
FORTY4 = sf.make("forty_five", 4)
AUCTION3 = sf.make("auction_forty_fives", 3)
ENVS = pytest.mark.parametrize("env", [SPOIL3, FORTY4, AUCTION3], ids=lambda e: e.id)


def _same(a, b) -> bool:
    return all(
        np.array_equal(np.asarray(x), np.asarray(y))
        for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True)
    )


# ---------------------------------------------------------------------------- item 4: the dealer


@ENVS
def test_an_out_of_range_dealer_under_jit_ends_the_hand_at_once(env: sf.Env) -> None:
    init = jax.jit(env.init)
    for dealer in (7, -1, env.num_players):
        state = init(KEY, jnp.int32(dealer))
        assert bool(state.terminated) and bool(state.illegal), dealer
        assert int(state.current_player) == -1
        assert env.phase_names[int(state.phase)] == "done"
        assert np.asarray(state.rewards).tolist() == [0.0] * env.num_players  # nothing scored
        assert int(state._step_count) == 0
        assert np.asarray(state.legal_action_mask).all()  # as every finished hand
        assert env.legal_actions(state) == []
        after = env.step(state, 0)  # a finished hand stands
        assert bool(after.terminated) and not np.asarray(after.rewards).any()
    with pytest.raises(ValueError, match=f"^dealer must be 0..{env.num_players - 1}, got 7"):
        env.init(KEY, 7)  # a host dealer: an error, as before


@ENVS
def test_a_traced_valid_dealer_deals_exactly_the_host_deal(env: sf.Env) -> None:
    dealers = jnp.arange(env.num_players, dtype=jnp.int32)
    keys = jax.random.split(KEY, env.num_players)
    batch = jax.jit(jax.vmap(env.init))(keys, dealers)
    for d in (0, env.num_players - 1):
        one = jax.tree.map(lambda x, d=d: x[d], batch)
        assert _same(one, env.init(keys[d], d)), d
        assert not bool(one.terminated) and not bool(one.illegal)


def test_a_traced_bad_dealer_from_a_deck_or_a_deal_ends_the_hand_too() -> None:
    deck = jnp.arange(52, dtype=jnp.int32)
    state = jax.jit(SPOIL3.init_from_deck)(deck, jnp.int32(5))
    assert bool(state.terminated) and bool(state.illegal)
    hands = np.arange(15).reshape(3, 5)
    state = jax.jit(lambda d: SPOIL3.init_from_deal(hands, 20, d))(jnp.int32(-2))
    assert bool(state.terminated) and bool(state.illegal)
    good = jax.jit(lambda d: SPOIL3.init_from_deal(hands, 20, d))(jnp.int32(2))
    assert _same(good, SPOIL3.init_from_deal(hands, 20, 2))


def test_a_traced_float_dealer_is_refused_when_traced() -> None:
    with pytest.raises(ValueError, match="dealer must be an integer"):
        jax.jit(SPOIL3.init)(KEY, jnp.float32(1.0))


# ---------------------------------------------------------------------------- item 6: keys


@ENVS
def test_init_takes_an_int_seed_as_the_tools_do(env: sf.Env) -> None:
    assert _same(env.init(5), env.init(jax.random.PRNGKey(5)))
    assert _same(env.init(np.int64(5), 1), env.init(jax.random.PRNGKey(5), 1))


@pytest.mark.parametrize(
    "key",
    ["abc", 1.5, True, None, jax.random.split(KEY, 3), jnp.zeros(2, jnp.float32)],
    ids=["text", "float", "bool", "none", "batch", "float-array"],
)
def test_anything_else_is_refused_naming_key(key) -> None:
    with pytest.raises(ValueError, match=r"^key must be one PRNG key .* or an int seed, got"):
        SPOIL3.init(key)


@pytest.mark.parametrize("key", ["abc", 1.5, True], ids=["text", "float", "bool"])
def test_the_tools_refuse_a_bad_key_by_name(key) -> None:
    with pytest.raises(ValueError, match=r"^key must be one PRNG key"):
        sf.rollout(key, SPOIL3, "random", 10)
    with pytest.raises(ValueError, match=r"^key must be one PRNG key"):
        sf.evaluate(key, FORTY4, {"a": "random", "b": "greedy"}, num_hands=8)
    for env in (SPOIL3, FORTY4):  # sessions: Spoil Five's chips, the family's whole games
        with pytest.raises(ValueError, match=r"^key must be one PRNG key"):
            sf.play_sessions(key, env, "random", 2)


def test_a_family_next_hand_takes_an_int_seed() -> None:
    state = FORTY4.init(0)
    assert _same(FORTY4.next_hand(4, state), FORTY4.next_hand(jax.random.PRNGKey(4), state))
    with pytest.raises(ValueError, match=r"^key must be"):
        FORTY4.next_hand("x", state)


# ---------------------------------------------------------------------------- item 7: actions


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ("KS", "got 'KS'"),
        (None, "got None"),
        (1.7, "a float is not rounded"),
        (1.0, "a float is not rounded"),
        (True, "the bool True"),
        (jnp.array([1, 2]), "int32[2]; one hand takes one action"),
        (np.array([3]), "[1]; one hand takes one action"),
        (jnp.float32(1), "float32[]"),
        (2**40, "outside int32"),
    ],
    ids=["text", "none", "float", "whole-float", "bool", "pair", "np-list", "f32", "huge"],
)
def test_step_refuses_what_is_not_one_action_id(action, words: str) -> None:
    state = SPOIL3.init(KEY)
    with pytest.raises(ValueError, match=r"^action must be one integer action id 0\.\.54") as e:
        SPOIL3.step(state, action)
    assert words in str(e.value)


def test_inside_jit_the_action_is_checked_when_traced() -> None:
    state = SPOIL3.init(KEY)
    with pytest.raises(ValueError, match="action must be one integer action id"):
        jax.jit(SPOIL3.step)(state, 1.5)
    with pytest.raises(ValueError, match="one hand takes one action"):
        jax.jit(SPOIL3.step)(state, jnp.zeros(3, jnp.int32))


def test_integer_actions_of_every_kind_still_play() -> None:
    state = SPOIL3.init(KEY)
    a = SPOIL3.legal_actions(state)[0]
    want = SPOIL3.step(state, jnp.int32(a))
    for same in (a, np.int64(a), np.uint8(a), jnp.asarray(a), np.asarray(a, np.int16)):
        assert _same(SPOIL3.step(state, same), want)
    assert bool(SPOIL3.step(state, 99).illegal)  # out of range: an illegal action, as before


# ---------------------------------------------------------------------------- item 8: a batch


@pytest.mark.parametrize("env", [SPOIL3, FORTY4], ids=lambda e: e.id)
def test_a_batch_given_to_one_hand_methods_is_named(env: sf.Env) -> None:
    batch = jax.vmap(env.init)(jax.random.split(KEY, 2))
    with pytest.raises(ValueError, match=r"^legal_actions takes one hand, not a batch of shape"):
        env.legal_actions(batch)
    with pytest.raises(ValueError, match=r"^checked_step takes one hand, not a batch"):
        env.checked_step(batch, 0)
    with pytest.raises(ValueError, match=r"^step takes one hand.*jax.vmap\(env.step\)"):
        env.step(batch, 0)


# ---------------------------------------------------------------------------- item 14: cards, sizes


def test_a_card_given_twice_is_refused_unless_asked_for() -> None:
    with pytest.raises(ValueError, match=r"^duplicate card 5♥ in '5H 5H': a set of cards holds"):
        sf.parse_cards("5H 5H")
    with pytest.raises(ValueError, match=r"^duplicate card 10♥ in"):
        sf.parse_cards(["10h", "10♥", "TH"])  # one card, three spellings
    with pytest.raises(ValueError, match=r"^duplicate cards JK, 5♥ in"):
        sf.forty_five.parse_cards("JK 5h JK 5H 2c")
    assert sf.parse_cards("5H 5H", unique=False) == [30, 30]
    assert sf.forty_five.parse_cards("JK JK", unique=False) == [52, 52]
    with pytest.raises(ValueError, match="cards must be text or a list of card texts, got int"):
        sf.parse_cards(5)  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [1, 0, 11, 2.5, "5"])
def test_state_bytes_takes_a_table_size(n) -> None:
    with pytest.raises(ValueError, match="num_players must be"):
        sf.spoil_five.state_bytes(n)
    with pytest.raises(ValueError, match="num_players must be"):
        sf.forty_five.state_bytes(n)
    assert sf.spoil_five.state_bytes(5) == 285  # a valid table (108 of them the record)
