"""The Forty-Five family's public API: constants, rule and input validation, dtypes, jit/vmap,
illegal actions under jit, observations, games across hands, rollouts and the benchmark."""

from __future__ import annotations

from pathlib import Path

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import Table45, hands_of, jit_step, load_script

import spoilfive_jax as sf
from spoilfive_jax.games import forty_five as ff
from spoilfive_jax.games.forty_five import game
from spoilfive_jax.games.forty_five import session as ro

R = ff.FortyFiveRules
ENV4 = ff.FortyFive(4)
AUCTION4 = ff.AuctionFortyFives(4)
DEAL4 = ["2C 3C 4C 6C 8C", "5D JD KD QD 9S", "2S 3S 4S 6S 8S", "2H 3H 4H 6H 8H"]


def deal4(env: ff.FortyFive = ENV4, **kw) -> ff.State:
    return env.init_from_deal(np.array([ff.parse_cards(h) for h in DEAL4]), 20, **kw)


# ---------------------------------------------------------------------------- constants


def test_action_numbering():
    assert ff.NUM_ACTIONS == 64 and ENV4.num_actions == 64
    assert ff.JOKER == 52 and ff.PASS == ff.DONE == ff.NO_JINK == 53
    assert (ff.BID_15, ff.BID_20, ff.BID_25, ff.BID_30, ff.HOLD) == (54, 55, 56, 57, 58)
    assert (ff.NAME_CLUBS, ff.NAME_DIAMONDS, ff.NAME_HEARTS, ff.NAME_SPADES) == (59, 60, 61, 62)
    assert ff.JINK == 63
    names = [ff.action_str(a) for a in range(64)]
    assert names[:3] == ["A♣", "2♣", "3♣"] and names[9] == "10♣" and names[52:] == [
        "JK", "PASS", "BID15", "BID20", "BID25", "BID30", "HOLD",
        "TRUMP_C", "TRUMP_D", "TRUMP_H", "TRUMP_S", "JINK",
    ]  # fmt: skip
    assert [ff.action_id(n) for n in names] == list(range(64))
    assert ff.action_id("done") == ff.PASS and ff.card_id("joker") == 52
    assert ff.parse_cards("5h, JK 10c") == [30, 52, 9]


def test_top_level_exports():
    assert (
        sf.forty_five.FortyFive is ff.FortyFive
        and sf.forty_five.FortyFiveRules is ff.FortyFiveRules
    )
    assert sf.forty_five.TwentyFive(4).rules.variant == "twenty_five"
    assert sf.forty_five.AuctionFortyFives(6).rules.goal == 120
    for name in ("FortyFive", "FortyFiveRules", "TwentyFive", "AuctionFortyFives"):
        assert name in sf.forty_five.__all__ and name not in sf.__all__  # under their game


def test_each_variant_is_a_real_class_however_its_table_is_made():
    """``TwentyFive`` and ``AuctionFortyFives`` are classes, so ``isinstance`` works on every
    table of their rules, however it was made."""
    for cls, game_id, preset in (
        (ff.TwentyFive, "twenty_five", ff.FortyFiveRules.twenty_five),
        (ff.AuctionFortyFives, "auction_forty_fives", ff.FortyFiveRules.auction_forty_fives),
    ):
        made = (cls(4), sf.make(game_id), ff.FortyFive(4, preset()), cls(rules=preset()))
        assert all(type(e) is cls and isinstance(e, ff.FortyFive) for e in made), made
        assert len(set(made)) == 1 and made[0].id == game_id  # one table: equal, one hash
        assert repr(made[0]).startswith(f"{cls.__name__}(num_players=4")
        with pytest.raises(ValueError, match=f"{cls.__name__} plays the '{cls.variant}' variant"):
            cls(4, ff.FortyFiveRules())
        with pytest.raises(ValueError, match="either rules= or rule options"):
            cls(4, preset(), target=50)
    assert type(ff.FortyFive(4)) is ff.FortyFive and not isinstance(ff.FortyFive(4), ff.TwentyFive)
    assert ff.TwentyFive(4, target=50).rules.target == 50
    assert ff.AuctionFortyFives(3, joker=True).rules.joker
    with pytest.warns(DeprecationWarning):  # the old top-level names are the classes too
        assert sf.AuctionFortyFives is ff.AuctionFortyFives
    # a position naming another variant makes that variant's table, whichever env reads it
    text = "players=4; rules=forty_five; dealer=0; turnup=7D; player=1; hand=5D JH AH KC 4S"
    assert type(sf.position_env(ff.TwentyFive(4), text)) is ff.FortyFive


# ---------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "options",
    [
        dict(variant="fifty"),
        dict(target=0),
        dict(target=True),
        dict(scoring="most"),
        dict(tie_break="coin"),
        dict(jink=True),
        dict(joker=1),
        dict(joker_rank="top"),
        dict(follow="any"),
        dict(renege="never"),
        dict(rob="always"),
        dict(deal_packets=(1, 4)),
        dict(min_bid_at_100="yes"),
        dict(illegal_penalty=-1),
        dict(variant="auction", scoring="hoyle"),
        dict(variant="auction", jink="announced"),
    ],
)
def test_bad_rules(options):
    with pytest.raises(ValueError):
        R(**options)


def test_rules_values():
    assert R().goal == 45 and R.twenty_five().goal == 25 and R.auction_forty_fives().goal == 120
    assert R(target=110).goal == 110 and R.twenty_five(target=110).goal == 110
    assert R().bonus and not R.twenty_five().bonus and not R(scoring="hoyle").bonus
    assert (R().follow, R().renege, R().rob) == ("traditional", "led", "optional")
    assert not R.auction_forty_fives().robbing and R().robbing
    assert R(deal_packets=[3, 2]).deal_packets == (3, 2)
    assert hash(R()) == hash(R()) and R().replace(joker=True) == R(joker=True)
    assert ff.FortyFive(4) == ENV4 and hash(ff.FortyFive(4)) == hash(ENV4)
    assert ff.FortyFive(4) != ff.FortyFive(5) and ff.FortyFive(4) != AUCTION4
    assert [ff.num_teams(n) for n in range(2, 11)] == [2, 3, 2, 5, 2, 7, 8, 9, 10]
    assert [ff.FortyFive(6).team_of(s) for s in range(6)] == [0, 1, 0, 1, 0, 1]
    assert ENV4.id == "forty_five" and AUCTION4.id == "auction_forty_fives"


@pytest.mark.parametrize("n", [1, 11, True, 2.5, "4"])
def test_bad_player_count(n):
    with pytest.raises(ValueError):
        ff.FortyFive(n)


def test_input_validation():
    with pytest.raises(ValueError, match="FortyFiveRules"):
        ff.FortyFive(4, sf.spoil_five.Rules())
    with pytest.raises(ValueError, match="shape"):
        ENV4.init_from_deck(np.arange(51))
    with pytest.raises(ValueError, match="duplicate"):
        ENV4.init_from_deck(np.array([0] * 52))
    with pytest.raises(ValueError, match="dealer"):
        ENV4.init(jax.random.PRNGKey(0), dealer=4)
    with pytest.raises(ValueError, match="scores"):
        ENV4.init(jax.random.PRNGKey(0), scores=np.zeros(4, np.int32))
    hands = np.array([ff.parse_cards(h) for h in DEAL4])
    with pytest.raises(ValueError, match="turnup is required"):
        ENV4.init_from_deal(hands)
    with pytest.raises(ValueError, match="also in a hand"):
        ENV4.init_from_deal(hands, ff.card_id("5D"))
    with pytest.raises(ValueError, match="no turn-up"):
        AUCTION4.init_from_deal(hands, 20)
    with pytest.raises(ValueError, match="stock"):
        AUCTION4.init_from_deal(hands, stock=[ff.card_id("5D")])
    with pytest.raises(ValueError, match="stock"):
        ff.FortyFive(4, R(joker=True)).init_from_deal(hands, ff.JOKER)
    with pytest.raises(ValueError, match="shape"):
        ENV4.init_from_deal(hands[:3], 20)


def test_checked_step_refuses_illegal():
    state = deal4()
    with pytest.raises(ValueError, match="illegal action 53"):
        ENV4.checked_step(state, ff.PASS)
    with pytest.raises(ValueError, match="legal actions"):
        ENV4.checked_step(state, ff.card_id("2C"))  # seat 0's card, seat 1 to lead


# ---------------------------------------------------------------------------- dtypes, jit, vmap


DTYPES = {
    "current_player": np.int32,
    "terminated": np.bool_,
    "rewards": np.float32,
    "game_rewards": np.float32,
    "tricks_won": np.int32,
    "scores": np.int32,
    "hand_points": np.int32,
    "passed": np.bool_,
    "stock": np.int32,
    "game_over": np.bool_,
    "game_winner": np.int32,
}


@pytest.mark.parametrize("env", [ENV4, AUCTION4], ids=["forty_five", "auction"])
def test_dtypes_and_shapes(env):
    s = env.init(jax.random.PRNGKey(1))
    for name, dtype in DTYPES.items():
        assert np.asarray(getattr(s, name)).dtype == dtype, name
    assert s.hands.lo.dtype == jnp.uint32 and s.legal_action_mask.shape == (64,)
    assert s.rewards.shape == (4,) and s.scores.shape == (2,)
    assert s.stock.shape == ((32,) if env.rules.auction else (0,))
    assert ff.state_bytes(4, env.rules) == sum(x.nbytes for x in jax.tree.leaves(s))
    assert env.observe(s, 0).shape == env.observation_shape


def test_jit_vmap_agree():
    keys = jax.random.split(jax.random.PRNGKey(3), 8)
    batched = jax.jit(jax.vmap(ENV4.init))(keys)
    for i in (0, 5):
        one = ENV4.init(keys[i])
        for a, b in zip(jax.tree.leaves(one), jax.tree.leaves(batched), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b)[i])


def test_one_compile_per_table():
    @jax.jit
    @chex.assert_max_traces(n=1)
    def step(state, action):
        return ENV4.step(state, action)

    state = deal4()
    for a in ("5D", "2S", "2H", "2C"):
        state = step(state, jnp.int32(ff.card_id(a)))
    assert np.asarray(state.tricks_won).tolist() == [0, 1, 0, 0]


def test_illegal_action_under_jit_ends_the_hand():
    state = jit_step(ENV4)(deal4(scores=np.array([10, 20])), jnp.int32(ff.PASS))
    assert bool(state.terminated) and bool(state.illegal)
    assert np.asarray(state.rewards).tolist() == [0.0, -30.0, 0.0, -30.0]  # seat 1's team
    assert np.asarray(state.scores).tolist() == [10, -10] and not bool(state.game_over)
    again = jit_step(ENV4)(state, jnp.int32(0))  # a finished hand stands, zero rewards
    assert (np.asarray(again.rewards) == 0).all() and bool(again.terminated)
    assert np.asarray(again.scores).tolist() == [10, -10]
    assert np.asarray(again.legal_action_mask).all()


# ---------------------------------------------------------------------------- observation


def test_observe_hides_other_hands():
    t = Table45(ENV4, DEAL4, "7D")
    obs = jax.jit(ENV4.observe)
    o1 = np.asarray(obs(t.state, 1))
    assert o1[:53].sum() == 5 and set(np.flatnonzero(o1[:53])) == hands_of(t.state)[1]
    # swap two cards between seats 2 and 3: seat 1's view does not change
    other = ["2C 3C 4C 6C 8C", "5D JD KD QD 9S", "2H 3S 4S 6S 8S", "2S 3H 4H 6H 8H"]
    u = Table45(ENV4, other, "7D")
    np.testing.assert_array_equal(o1, np.asarray(obs(u.state, 1)))
    assert not np.array_equal(np.asarray(obs(t.state, 2)), np.asarray(obs(u.state, 2)))
    t.play("5D 2S")
    o = np.asarray(obs(t.state, 3))
    off = 242  # the current trick, by seat relative to seat 3: seat 1 is r = 2, seat 2 r = 3
    trick = o[off : off + 4 * 53].reshape(4, 53)
    assert np.flatnonzero(trick[2]).tolist() == [ff.card_id("5D")]
    assert np.flatnonzero(trick[3]).tolist() == [ff.card_id("2S")]


# ---------------------------------------------------------------------------- across hands


def test_next_hand_carries_scores_and_rotates_the_deal():
    t = Table45(ENV4, DEAL4, "7D", dealer=0, scores=[10, 0])
    t.play("5D 2S 2H 2C  JD 3S 3H 3C  KD 4S 4H 4C  9S 6S 6H 6C  8S 8H 8C QD")
    nxt = ENV4.next_hand(jax.random.PRNGKey(0), t.state)
    assert int(nxt.dealer) == 1 and np.asarray(nxt.scores).tolist() == [15, 25]
    assert not bool(nxt.terminated) and int(nxt.current_player) in (2, int(nxt.robber))
    over = t.state.replace(game_over=jnp.bool_(True))
    assert np.asarray(ENV4.next_hand(jax.random.PRNGKey(0), over).scores).tolist() == [0, 0]


def test_step_game_plays_whole_games():
    env = ENV4
    step = jax.jit(env.step_game)
    rng = np.random.default_rng(0)
    state = env.init(jax.random.PRNGKey(7))
    totals = np.zeros(env.num_players)
    for i in range(3000):
        legal = env.legal_actions(state)
        state = step(state, rng.choice(legal), jax.random.PRNGKey(i))
        totals += np.asarray(state.rewards)
        if bool(state.terminated):
            break
    assert bool(state.terminated) and bool(state.game_over)
    winner = int(state.game_winner)
    assert np.asarray(state.scores).max() >= env.rules.goal
    assert [totals[s] for s in range(2)] == np.asarray(state.scores).tolist()  # seats 0, 1
    assert np.asarray(state.game_rewards).tolist() == [
        1.0 if env.team_of(s) == winner else -1.0 for s in range(env.num_players)
    ]


# ---------------------------------------------------------------------------- rollouts, bench


def test_rollouts():
    games = ro.play_games(0, ENV4, num_games=16, max_hands=12, batch_size=16)
    assert games.scores.shape == (16, 2) and (games.winner >= 0).all()
    assert (games.points_by_hand.sum(1) == games.scores).all()
    assert (games.scores.max(1) >= 45).all() and games.summary()["finished"] == 1.0
    hands = ro.rollout_hands(1, ENV4, num_hands=16, batch_size=16)
    # 5 tricks of 5 points, and 5 for the best trump unless no trump fell in the hand
    assert set(hands.hand_points.sum(1).tolist()) <= {25, 30}
    assert (hands.tricks_won.sum(1) == 5).all()


def test_benchmark_smoke():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "fortyfive_throughput.py"
    module = load_script(path)
    rows = module.main(["--configs", "forty_five_4", "--batch", "32", "--reps", "1"])["rows"]
    assert rows[0]["hands_per_s"] > 0 and 20 <= rows[0]["decisions_per_hand"] <= 21
    assert rows[0]["bytes_per_state"] == ff.state_bytes(4)
    assert game.max_decisions(4, R()) == 21
