"""Oh Hell's rules on hand-traced deals, input checks, and the conformance suite."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from spoilfive_oh_hell import BID, OhHell, OhHellRules
from spoilfive_oh_hell.rules import parse_cards

import spoilfive_jax as sf
import spoilfive_jax.core.bits as bits

step = jax.jit(lambda env, s, a: env.step(s, a), static_argnums=0)


def cards(text: str) -> list[int]:
    return parse_cards(text)


def play(env: OhHell, state, moves: list[int]):
    for a in moves:
        assert a in env.legal_actions(state), (env.action_str(a), env.legal_actions(state))
        state = step(env, state, a)
    return state


def test_card_ids_are_openspiel_s() -> None:
    # rank * 4 + suit, suits C D S H, ranks 2..A
    assert cards("2C 2D 2S 2H 3C AS AH") == [0, 1, 2, 3, 4, 50, 51]


def test_a_traced_hand() -> None:
    env = OhHell(3, OhHellRules(num_tricks=2))
    hands = np.array([cards("AS 3H"), cards("KS 2C"), cards("QS 4H")])
    s = env.init_from_deal(hands, cards("2H")[0], dealer=2)  # hearts are trumps
    assert int(s.current_player) == 0  # left of the dealer bids first
    assert env.legal_actions(s) == [BID, BID + 1, BID + 2]
    s = play(env, s, [BID + 1, BID + 0])
    # the dealer bids last: 1 + 0 + 1 would make 2 tricks, so 1 is barred
    assert int(s.current_player) == 2 and env.legal_actions(s) == [BID, BID + 2]
    s = play(env, s, [BID + 0])
    assert int(s.current_player) == 0  # left of the dealer leads
    s = play(env, s, cards("AS"))
    assert env.legal_actions(s) == cards("KS")  # holding spades, follow
    s = play(env, s, cards("KS"))
    s = play(env, s, cards("QS"))
    assert s.tricks_won.tolist() == [1, 0, 0] and int(s.current_player) == 0
    s = play(env, s, cards("3H"))  # a trump lead
    assert env.legal_actions(s) == cards("2C")  # no hearts: anything (only 2♣ left)
    s = play(env, s, cards("2C"))
    assert bits.has(bits.Bits(s.cannot_hold.lo[1], s.cannot_hold.hi[1]), cards("AH")[0])
    s = play(env, s, cards("4H"))  # the higher trump wins
    assert bool(s.terminated) and int(s.current_player) == -1
    assert s.tricks_won.tolist() == [1, 0, 1]
    # seat 0 bid 1 took 1: 1 + 10; seat 1 bid 0 took 0: 10; seat 2 bid 0 took 1: 1
    assert s.rewards.tolist() == [11.0, 10.0, 1.0]


@pytest.mark.parametrize(
    ("options", "want"),
    [({"off_bid_penalty": True}, [11.0, 10.0, -1.0]), ({"points_per_trick": 2}, [12.0, 10.0, 2.0])],
)
def test_scoring_options(options: dict, want: list[float]) -> None:
    env = OhHell(3, OhHellRules(num_tricks=2, **options))
    hands = np.array([cards("AS 3H"), cards("KS 2C"), cards("QS 4H")])
    s = env.init_from_deal(hands, cards("2H")[0], dealer=2)
    s = play(env, s, [BID + 1, BID, BID, *cards("AS KS QS 3H 2C 4H")])
    assert s.rewards.tolist() == want


def test_off_suit_never_wins_and_trump_does() -> None:
    env = OhHell(3, OhHellRules(num_tricks=1))
    hands = np.array([cards("5D"), cards("AC"), cards("2S")])  # spades are trumps
    s = env.init_from_deal(hands, cards("9S")[0], dealer=2)
    s = play(env, s, [BID, BID, BID + 0, *cards("5D AC")])  # A♣ is off suit: no win
    assert int(s.best_seat) == 0
    s = play(env, s, cards("2S"))  # the lowest trump takes it
    assert s.tricks_won.tolist() == [0, 0, 1]


def test_illegal_action_ends_the_hand() -> None:
    env = OhHell(4, OhHellRules())
    s = env.init(jax.random.PRNGKey(0))
    bad = step(env, s, 0)  # a card while bidding
    assert bool(bad.terminated) and bool(bad.illegal)
    offender = int(s.current_player)
    want = np.zeros(4)
    want[offender] = -(1 * 5 + 10 + 1)
    assert bad.rewards.tolist() == want.tolist()
    with pytest.raises(ValueError, match="illegal action"):
        env.checked_step(s, 0)


def test_a_traced_bad_dealer_ends_the_hand_at_once() -> None:
    """Under jit nothing can raise: the hand has ended, ``illegal`` set, nothing scored; a valid
    traced dealer deals exactly the host deal."""
    env = OhHell(4, OhHellRules(num_tricks=2))
    init = jax.jit(env.init)
    bad = init(jax.random.PRNGKey(0), jax.numpy.int32(9))
    assert bool(bad.terminated) and bool(bad.illegal) and int(bad.current_player) == -1
    assert env.phase_names[int(bad.phase)] == "done" and not bad.rewards.any()
    assert env.legal_actions(bad) == []
    good, host = init(jax.random.PRNGKey(0), jax.numpy.int32(3)), env.init(0, 3)
    for x, y in zip(jax.tree.leaves(good), jax.tree.leaves(host), strict=True):
        assert np.array_equal(x, y)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"num_players": 2}, "3..7 players"),
        ({"num_players": 8}, "3..7 players"),
        ({"num_tricks": 0}, "num_tricks must be 1..11"),
        ({"num_tricks": 12}, "num_tricks must be 1..11"),
        ({"num_players": 7, "num_tricks": 8}, "too many for 7 players"),
        ({"num_tricks": 2.5}, "num_tricks must be an integer"),
        ({"off_bid_penalty": "yes"}, "off_bid_penalty"),
        ({"points_per_trick": -1}, "points_per_trick"),
        ({"no_such": 1}, "rule options are"),
    ],
)
def test_bad_tables(kwargs: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        sf.make("oh_hell", **kwargs)


@pytest.mark.parametrize(
    ("hands", "trump", "dealer", "words"),
    [
        (np.zeros((3, 3), int), 5, 0, "shape"),
        (np.array([[0, 1], [2, 3], [4, 4], [5, 6]]), 9, 0, "duplicate"),
        (np.arange(8).reshape(4, 2), 3, 0, "also in a hand"),
        (np.arange(8).reshape(4, 2) + 50, 7, 0, "outside 0..51"),
        (np.arange(8).reshape(4, 2), 9, 4, "dealer"),
    ],
)
def test_bad_deals(hands: np.ndarray, trump: int, dealer: int, words: str) -> None:
    env = OhHell(4, OhHellRules(num_tricks=2))
    with pytest.raises(ValueError, match=words):
        env.init_from_deal(hands, trump, dealer)


@pytest.mark.parametrize(("n", "t"), [(3, 1), pytest.param(6, 5, marks=pytest.mark.slow)])
def test_conformance(n: int, t: int) -> None:
    sf.testing.api_test(sf.make("oh_hell", num_players=n, num_tricks=t), num=8)


def test_registered_by_its_entry_point() -> None:
    assert "oh_hell" in sf.available_games()
    env = sf.make("oh_hell", num_players=5, num_tricks=3, off_bid_penalty=True)
    assert env == OhHell(5, OhHellRules(num_tricks=3, off_bid_penalty=True))
    assert env.num_actions == 52 + 3 + 1
