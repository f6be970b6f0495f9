"""The public API: constants, input validation, dtypes, jit/no-jit/vmap determinism, one compile
per (N, rules), and illegal actions under jit."""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import Table, cards, jit_step

import spoilfive_jax as sf

R = sf.spoil_five.Rules
ENV3 = sf.spoil_five.SpoilFive(3)
HANDS3 = ["KH 2H 5H 6H 8S", "9C 2C 3C 4S 8H", "KC 3D 5S 6S 7H"]  # diamonds trump (7D up)


def deal3(env: sf.spoil_five.SpoilFive = ENV3, **kw) -> sf.spoil_five.State:
    return env.init_from_deal(np.array([sf.parse_cards(h) for h in HANDS3]), sf.card_id("7D"), **kw)


def assert_same_state(a: sf.spoil_five.State, b: sf.spoil_five.State) -> None:
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        assert np.asarray(x).dtype == np.asarray(y).dtype
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


# ---------------------------------------------------------------------------- constants


def test_public_constants():
    assert sf.spoil_five.NUM_ACTIONS == 55
    assert (sf.spoil_five.PASS, sf.spoil_five.JINK, sf.spoil_five.CLAIM) == (52, 53, 54)
    assert sf.card_id("5H") == 30 and sf.card_str(30) == "5H"
    assert sf.card_id("AC") == 0 and sf.card_id("AH") == 26 and sf.card_id("KS") == 51
    assert sf.spoil_five.SpoilFive().num_actions == 55
    assert [sf.spoil_five.action_str(a) for a in (0, 52, 53, 54)] == ["A♣", "PASS", "JINK", "CLAIM"]


def test_card_text():
    # "10" is accepted for the ten; case-insensitive; ids are suit * 13 + rank
    assert sf.card_id("10H") == sf.card_id("TH") == sf.card_id("th") == sf.card_id("10h") == 35
    assert sf.card_id("jd") == 13 + 10
    assert sf.parse_cards("5H, JD 10c") == [30, 23, 9]
    for c in range(52):
        assert sf.card_id(sf.card_str(c)) == c
        assert sf.card_id(sf.card_str(c).lower()) == c
    assert sf.card_symbol(35) == "10♥"
    for c in range(52):  # the people's notation reads back too
        assert sf.card_id(sf.card_symbol(c)) == c
    assert sf.parse_cards("J♥ 10♦ a♠") == [36, 22, 39]


@pytest.mark.parametrize(
    "bad", ["ZZ", "", "5", "1H", "11H", "5X", "HH", "5HH", "10", "♥A", "JK", "10♥♥", 5]
)
def test_card_id_rejects_garbage(bad):
    with pytest.raises(ValueError):
        sf.card_id(bad)


@pytest.mark.parametrize("bad", [53, -1, 100, 1.5, "5H"])
def test_card_str_rejects_non_ids(bad):
    with pytest.raises(ValueError):
        sf.card_str(bad)


def test_one_card_str_knows_the_joker():
    assert sf.card_str(52) == sf.card_symbol(52) == "JK"
    assert sf.card_id("JK", joker=True) == sf.card_id("joker", joker=True) == 52


# ---------------------------------------------------------------------------- validation


@pytest.mark.parametrize("n", [1, 11, 0, -3, True, 2.5, "3"])
def test_bad_player_count(n):
    with pytest.raises(ValueError):
        sf.spoil_five.SpoilFive(num_players=n)


@pytest.mark.parametrize(
    "options",
    [
        dict(follow="maybe"),
        dict(renege="sometimes"),
        dict(rob="always"),
        dict(jink="yes"),
        dict(jink=1),
        dict(deal_packets=(2, 2)),
        dict(deal_packets=(1, 4)),
        dict(deal_packets=5),
        dict(ante=-1),
        dict(ante=1.5),
        dict(ante=True),
        dict(jink_bonus=-2),
        dict(ante_after_spoil="nobody"),
        dict(illegal_penalty=-1),
    ],
)
def test_bad_rules(options):
    with pytest.raises(ValueError):
        R(**options)
    with pytest.raises(ValueError):
        R().replace(**options)


def test_rules_presets_and_hashing():
    t = R.traditional()
    expected = ("traditional", "led", "forced", "dealer")
    assert (t.follow, t.renege, t.rob, t.ante_after_spoil) == expected
    assert R.preset("seed") == R() and R.preset("traditional") == t
    assert R(deal_packets=[3, 2]).deal_packets == (3, 2)
    assert R(ante=2).bonus == 2 and R(ante=2, jink_bonus=0).bonus == 0
    with pytest.raises(ValueError):
        R.preset("house")
    with pytest.raises(ValueError):
        sf.spoil_five.SpoilFive(3, rules="seed")
    # envs are hashable values (static under jit)
    assert sf.spoil_five.SpoilFive(3, R()) == sf.spoil_five.SpoilFive(3) and hash(
        sf.spoil_five.SpoilFive(3)
    ) == hash(ENV3)
    assert sf.spoil_five.SpoilFive(3) != sf.spoil_five.SpoilFive(4) and sf.spoil_five.SpoilFive(
        3
    ) != sf.spoil_five.SpoilFive(3, t)


def test_init_from_deck_validation():
    deck = np.arange(52)
    with pytest.raises(ValueError, match="shape"):
        ENV3.init_from_deck(deck[:51])
    with pytest.raises(ValueError, match="shape"):
        ENV3.init_from_deck(deck.reshape(4, 13))
    with pytest.raises(ValueError, match=r"0\.\.51"):
        ENV3.init_from_deck(np.where(deck == 7, 52, deck))
    with pytest.raises(ValueError, match=r"0\.\.51"):
        ENV3.init_from_deck(np.where(deck == 7, -1, deck))
    with pytest.raises(ValueError, match="duplicate"):
        ENV3.init_from_deck(np.where(deck == 7, 8, deck))
    with pytest.raises(ValueError):
        ENV3.init_from_deck(deck.astype(np.float32))
    for dealer in (-1, 3, 10):
        with pytest.raises(ValueError, match="dealer"):
            ENV3.init_from_deck(deck, dealer=dealer)
    with pytest.raises(ValueError, match="carried"):
        ENV3.init_from_deck(deck, carried=-1)
    ENV3.init_from_deck(deck, dealer=2, carried=5)  # fine


def test_init_from_deal_validation():
    hands = np.array([sf.parse_cards(h) for h in HANDS3])
    turnup = sf.card_id("7D")
    with pytest.raises(ValueError, match="shape"):
        ENV3.init_from_deal(hands[:, :4], turnup)
    with pytest.raises(ValueError, match="shape"):
        ENV3.init_from_deal(hands[:2], turnup)
    with pytest.raises(ValueError, match="shape"):
        sf.spoil_five.SpoilFive(4).init_from_deal(hands, turnup)
    bad = hands.copy()
    bad[0, 0] = 52
    with pytest.raises(ValueError, match=r"0\.\.51"):
        ENV3.init_from_deal(bad, turnup)
    bad[0, 0] = -1
    with pytest.raises(ValueError, match=r"0\.\.51"):
        ENV3.init_from_deal(bad, turnup)
    bad[0, 0] = hands[0, 1]  # twice in one hand
    with pytest.raises(ValueError, match="duplicate"):
        ENV3.init_from_deal(bad, turnup)
    bad[0, 0] = hands[2, 3]  # in two hands
    with pytest.raises(ValueError, match="duplicate"):
        ENV3.init_from_deal(bad, turnup)
    with pytest.raises(ValueError, match="integer"):
        ENV3.init_from_deal(hands.astype(np.float32), turnup)
    with pytest.raises(ValueError, match="turnup"):
        ENV3.init_from_deal(hands, int(hands[1, 2]))  # the turn-up is also in a hand
    for t in (52, -1):
        with pytest.raises(ValueError):
            ENV3.init_from_deal(hands, t)
    with pytest.raises(ValueError, match="turnup"):
        ENV3.init_from_deal(hands, [turnup])
    for dealer in (-1, 3):
        with pytest.raises(ValueError, match="dealer"):
            ENV3.init_from_deal(hands, turnup, dealer=dealer)
    with pytest.raises(ValueError, match="carried"):
        ENV3.init_from_deal(hands, turnup, carried=-2)
    ENV3.init_from_deal(hands, turnup, dealer=2, carried=3)  # fine


# ---------------------------------------------------------------------------- dtypes


def _assert_dtypes(s: sf.spoil_five.State, n: int, batch: tuple[int, ...] = ()) -> None:
    assert s.current_player.dtype == jnp.int32 and s.current_player.shape == batch
    assert s.legal_action_mask.dtype == jnp.bool_ and s.legal_action_mask.shape == (*batch, 55)
    assert s.terminated.dtype == jnp.bool_ and s.terminated.shape == batch
    assert s.truncated.dtype == jnp.bool_ and s.truncated.shape == batch
    assert s.rewards.dtype == jnp.float32 and s.rewards.shape == (*batch, n)
    assert s.tricks_won.dtype == jnp.int32 and s.tricks_won.shape == (*batch, n)
    assert s.pot.dtype == jnp.int32 and s.carried_out.dtype == jnp.int32
    assert s.num_players == n


def test_dtypes_pinned():
    s = jax.jit(ENV3.init)(jax.random.PRNGKey(0))
    _assert_dtypes(s, 3)
    s = deal3()
    _assert_dtypes(s, 3)
    s = jit_step(ENV3)(s, jnp.int32(sf.card_id("9C")))
    _assert_dtypes(s, 3)
    s = jit_step(ENV3)(s, jnp.int32(99))  # illegal: the hand ends
    _assert_dtypes(s, 3)
    keys = jax.random.split(jax.random.PRNGKey(1), 4)
    batch = jax.jit(jax.vmap(ENV3.init))(keys)
    _assert_dtypes(batch, 3, (4,))
    assert sf.spoil_five.state_bytes(3) > 0


# ---------------------------------------------------------------------------- determinism


def test_jit_nojit_vmap_give_the_same_hand_and_trajectory():
    env = ENV3
    keys = jax.random.split(jax.random.PRNGKey(42), 4)
    eager = env.init(keys[2])
    jitted = jax.jit(env.init)(keys[2])
    batched = jax.jit(jax.vmap(env.init))(keys)
    assert_same_state(eager, jitted)
    assert_same_state(eager, jax.tree.map(lambda x: x[2], batched))
    assert_same_state(eager, env.init(keys[2]))  # same key, same hand
    deals = {(np.asarray(batched.hands.lo[b]).tobytes(), int(batched.turnup[b])) for b in range(4)}
    assert len(deals) == 4  # different keys, different hands

    vstep = jax.jit(jax.vmap(env.step))
    rng = np.random.default_rng(0)
    steps = 0
    while not bool(eager.terminated):
        legal = env.legal_actions(eager)
        a = legal[rng.integers(len(legal))]
        actions = np.zeros(4, np.int32)
        for b in range(4):  # the other games take their lowest legal action
            mask = np.asarray(batched.legal_action_mask[b])
            actions[b] = a if b == 2 else np.flatnonzero(mask)[0]
        eager = env.step(eager, a)
        jitted = jit_step(env)(jitted, jnp.int32(a))
        batched = vstep(batched, actions)
        assert_same_state(eager, jitted)
        assert_same_state(eager, jax.tree.map(lambda x: x[2], batched))
        steps += 1
    assert steps <= 17


def test_one_compile_per_env():
    # chex: the jitted step is traced once for a whole game, its end and beyond, including
    # every phase and illegal and out-of-range actions.
    env = sf.spoil_five.SpoilFive(2)
    step = jax.jit(chex.assert_max_traces(env.step, n=1))
    traces = []

    def counted_init(key):
        traces.append(key)
        return env.init(key)

    init = jax.jit(counted_init)
    for seed in range(6):
        s = init(jax.random.PRNGKey(seed))
        while not bool(s.terminated):
            s = step(s, jnp.int32(np.flatnonzero(np.asarray(s.legal_action_mask))[-1]))
        s = step(s, jnp.int32(3))  # terminated: unchanged
        s = init(jax.random.PRNGKey(100 + seed))
        s = step(s, jnp.int32(77))  # out of range: illegal
    assert len(traces) == 1


# ---------------------------------------------------------------------------- illegal actions


@pytest.mark.parametrize(
    "action",
    [
        sf.card_id("KH"),
        sf.card_id("3C"),
        sf.spoil_five.PASS,
        sf.spoil_five.JINK,
        sf.spoil_five.CLAIM,
        55,
        -1,
        1000,
        -(2**31),
    ],
)
def test_illegal_action_under_jit_ends_the_hand(action):
    # Seat 1 leads the 9C; seat 2 (KC 3D 5S 6S 7H) must follow clubs or trump.  The KH is in
    # another hand, the 3C in seat 1's, PASS/JINK/CLAIM belong to other phases, and ids outside
    # 0..54 are no action at all: each ends the hand with seat 2 fined.
    step = jit_step(ENV3)
    s = step(deal3(), jnp.int32(sf.card_id("9C")))
    assert int(s.current_player) == 2 and action not in ENV3.legal_actions(s)
    pot = int(s.pot)
    out = step(s, jnp.int32(action))
    assert bool(out.terminated) and bool(out.illegal)
    assert int(out.current_player) == -1 and int(out.winner) == -1
    # the offender loses its ante and the penalty; the others their ante
    assert np.asarray(out.rewards).tolist() == [-1.0, -1.0, -1.0 - R().illegal_penalty]
    assert int(out.pot) == pot + R().illegal_penalty
    assert int(out.carried_out) == int(out.pot)  # carried like a spoiled pot
    assert sum(np.asarray(out.rewards)) == int(out.carried) - int(out.carried_out)
    assert np.asarray(out.legal_action_mask).all()
    # A terminated hand comes back unchanged, with zero rewards, whatever the action.
    for a in (0, sf.card_id("KC"), sf.spoil_five.PASS, 99):
        again = step(out, jnp.int32(a))
        assert_same_state(again, out.replace(rewards=jnp.zeros(3, jnp.float32)))


ENV3_DEALER_FORCED = sf.spoil_five.SpoilFive(
    3, R(ante_after_spoil="dealer", rob="forced", illegal_penalty=3)
)


def test_illegal_pass_in_a_forced_rob_with_only_the_dealer_anting():
    # Spades trump, seat 1 holds the AS and must rob; PASS does not exist under "forced".
    # Chips were carried in, so only the dealer (seat 0) anted.
    texts = ["2C 3C 4C 6C 7C", "AS 3D 4D 6D 7D", "KH QH 2H 3H 4H"]
    hands = np.array([sf.parse_cards(h) for h in texts])
    s = ENV3_DEALER_FORCED.init_from_deal(hands, sf.card_id("7S"), dealer=0, carried=4)
    assert int(s.pot) == 5 and int(s.current_player) == 1
    out = jit_step(ENV3_DEALER_FORCED)(s, jnp.int32(sf.spoil_five.PASS))
    assert bool(out.terminated) and bool(out.illegal)
    # seat 1 paid no ante: it loses the penalty (3) only; the dealer its ante; seat 2 nothing
    assert np.asarray(out.rewards).tolist() == [-1.0, -3.0, 0.0]
    assert int(out.pot) == int(out.carried_out) == 8
    assert sum(np.asarray(out.rewards)) == 4 - 8


def test_illegal_action_in_a_batch_only_ends_that_hand():
    vstep = jax.jit(jax.vmap(ENV3.step))
    batch = jax.tree.map(lambda *x: jnp.stack(x), deal3(), deal3(dealer=2))
    # Game 0: seat 1 leads the 9C (legal).  Game 1: eldest is seat 0; KS is not in its hand.
    out = vstep(batch, jnp.array([sf.card_id("9C"), sf.card_id("KS")], jnp.int32))
    assert np.asarray(out.terminated).tolist() == [False, True]
    assert np.asarray(out.illegal).tolist() == [False, True]
    assert np.asarray(out.current_player).tolist() == [2, -1]
    assert np.asarray(out.rewards).tolist() == [[0.0] * 3, [-2.0, -1.0, -1.0]]


def test_checked_step_names_player_action_and_legal_actions():
    s = ENV3.checked_step(deal3(), sf.card_id("9C"))
    with pytest.raises(ValueError) as err:
        ENV3.checked_step(s, sf.card_id("5S"))
    msg = str(err.value)
    assert "player 2" in msg
    assert f"{sf.card_id('5S')}" in msg and "5♠" in msg  # people's notation
    legal = ENV3.legal_actions(s)
    assert legal == sorted(sf.parse_cards("3D KC"))
    assert str(legal) in msg and "3♦" in msg and "K♣" in msg  # the legal ids and names
    for bad in (55, -1, 1.5, "9C", None):
        with pytest.raises(ValueError, match="player 2"):
            ENV3.checked_step(s, bad)
    # A finished hand and a batch are refused too.
    done = jit_step(ENV3)(s, jnp.int32(99))
    with pytest.raises(ValueError, match="over"):
        ENV3.checked_step(done, 0)
    batch = jax.tree.map(lambda x: x[None], s)
    with pytest.raises(ValueError, match="batch"):
        ENV3.checked_step(batch, sf.card_id("KC"))


def test_table_helper_mirrors_the_reference():
    # The conftest helper used by the hand-built tests: it follows the engine and reference.
    t = Table(ENV3, HANDS3, "7D")
    t.play("9C")
    assert t.legal() == cards("KC 3D")
