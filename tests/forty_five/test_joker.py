"""The joker variant (docs/rules.md#the-forty-five-family): 53 cards, the joker (card 52) always a
trump, ranked just below the A♥ (or just above it with ``joker_rank="above_AH"``), with the
top-trump reneging privilege; a turned-up joker goes to the dealer, who discards a card, and the
next card is turned up for trump.  Hand-built deals with the reference engine mirrored.

Trump is diamonds (7D turned up unless said), dealer 0, the eldest hand (seat 1) leads.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from conftest import Table45, cards, discards_of, ref45, to_ref_rules

from spoilfive_jax.core import cards as core_cards
from spoilfive_jax.games import forty_five as ff
from spoilfive_jax.games.forty_five import game

R = ff.FortyFiveRules
BELOW = ff.FortyFive(4, R(joker=True))
ABOVE = ff.FortyFive(4, R(joker=True, joker_rank="above_AH"))


@pytest.mark.parametrize("rank", ["below_AH", "above_AH"])
@pytest.mark.parametrize("trump", range(4))
def test_joker_ranking(rank, trump):
    rules = R(joker=True, joker_rank=rank)
    strength = np.asarray(game.trump_strength(jnp.arange(53), trump, rules))
    order = sorted(np.flatnonzero(strength >= 0), key=lambda c: -strength[c])
    expected = ref45.trump_order(trump, to_ref_rules(rules))
    assert [int(c) for c in order] == expected
    five, jack = trump * 13 + 4, trump * 13 + 10
    if rank == "below_AH":
        assert expected[:4] == [five, jack, 26, ff.JOKER]  # a fourth top trump below the A♥
    else:
        assert expected[:4] == [five, jack, ff.JOKER, 26]
    assert len(expected) == (14 if trump == 2 else 15)
    # without the joker the strengths are exactly the core's tables
    plain = np.asarray(game.trump_strength(jnp.arange(52), trump, R()))
    assert (plain == core_cards.TRUMP_STRENGTH[trump]).all()


J1 = ["5D 2H 3H 4H 6H", "JK 2C 3C 4C 6C", "AH 2S 3S 4S 6S", "2D 7S 8S 9S TS"]


def test_joker_led_below_ace_of_hearts():
    t = Table45(BELOW, J1, "7D")
    t.act("JK")  # the joker leads as a trump
    # seat 2 holds only the A♥, which outranks the joker led: it may renege
    assert t.legal() == cards("AH 2S 3S 4S 6S")
    t.act("AH")
    assert t.legal() == cards("2D")  # seat 3's 2D has no privilege: it must be played
    t.act("2D")
    assert t.legal() == cards("5D 2H 3H 4H 6H")  # seat 0 may withhold the 5D
    t.act("2H")
    assert t.tricks == [0, 0, 1, 0] and t.player == 2  # the A♥ beats the joker
    t.finish()


def test_joker_led_above_ace_of_hearts():
    t = Table45(ABOVE, J1, "7D")
    t.act("JK")
    assert t.legal() == cards("AH")  # the joker outranks the A♥ here: no renege
    t.play("AH 2D 2H")
    assert t.tricks == [0, 1, 0, 0] and t.player == 1  # the joker beats the A♥
    t.finish()


def test_joker_reneges_like_a_top_trump():
    deal = ["5D 2H 3H 4H 6H", "2D 2C 3C 4C 6C", "JK 2S 3S 4S 6S", "3D 7S 8S 9S TS"]
    t = Table45(BELOW, deal, "7D")
    t.act("2D")  # a low trump led
    assert t.legal() == cards("JK 2S 3S 4S 6S")  # the joker may be withheld
    t.act("2S")
    assert t.legal() == cards("3D")
    t.finish()
    # the 5 led: nothing outranks it, the joker must fall
    deal = ["2D 2H 3H 4H 6H", "5D 2C 3C 4C 6C", "JK 2S 3S 4S 6S", "3D 7S 8S 9S TS"]
    t = Table45(BELOW, deal, "7D")
    t.act("5D")
    assert t.legal() == cards("JK")
    t.finish()


def test_joker_follows_a_plain_lead_as_a_trump():
    deal = ["5D 2H 3H 4H 6H", "KC 2C 3C 4C 6C", "JK 7C 3S 4S 6S", "3D 7S 8S 9S TS"]
    t = Table45(BELOW, deal, "7D")
    t.act("KC")
    assert t.legal() == cards("JK 7C")  # follow clubs or trump (the joker is no club)
    t.act("JK")
    t.play("7S 2H")  # void in clubs: anything
    assert t.player == 2  # the joker trumped the KC
    t.finish()


BASE = ["2C 3C 4C 6C 8C", "5D JD KD QD 9S", "2S 3S 4S 6S 8S", "2H 3H 4H 6H 8H"]


def test_joker_turned_up():
    t = Table45(BELOW, BASE, "JK", stock="7D")
    assert bool(t.state.joker_up) and int(t.state.turnup) == ff.card_id("7D")
    assert int(t.state.trump) == 1  # the next card decides trump
    assert t.phase == "joker" and t.player == 0
    assert t.legal() == cards("2C 3C 4C 6C 8C")  # a discard is compulsory
    t.act("8C")
    assert t.hand(0) == cards("2C 3C 4C 6C JK")
    assert discards_of(t.state)[0] == {ff.card_id("8C")}
    assert t.phase == "play" and t.player == 1  # nobody holds the AD: no rob
    t.finish()


def test_joker_turned_up_then_the_ace():
    t = Table45(BELOW, BASE, "JK", stock="AD")
    t.act("8C")  # the dealer takes the joker...
    assert t.phase == "rob" and t.player == 0  # ...and may rob the turned-up ace as well
    assert t.legal() == cards("2C 3C 4C 6C JK") | {"PASS"}
    t.act("2C")
    assert t.hand(0) == cards("3C 4C 6C JK AD") and bool(t.state.robbed)
    assert discards_of(t.state)[0] == {ff.card_id("8C"), ff.card_id("2C")}
    t.finish()


def test_joker_turned_up_ace_holder_robs():
    deal = ["2C 3C 4C 6C 8C", "5D JD KD QD 9S", "AD 3S 4S 6S 8S", "2H 3H 4H 6H 8H"]
    t = Table45(BELOW, deal, "JK", stock="7D")
    t.act("2C")
    assert t.phase == "rob" and t.player == 2
    t.finish()
    # the dealer lays the ace of trumps away in the exchange: nobody can rob
    deal = ["AD 3C 4C 6C 8C", "5D JD KD QD 9S", "2C 3S 4S 6S 8S", "2H 3H 4H 6H 8H"]
    t = Table45(BELOW, deal, "JK", stock="7D")
    t.act("AD")
    assert t.phase == "play" and t.player == 1 and int(t.state.robber) == -1
    t.finish()


def test_fifty_three_card_deck():
    env = ff.FortyFive(10, R(joker=True))
    deck = np.arange(53)
    state = env.init_from_deck(deck)
    assert int(state.turnup) == 50  # cards 0..49 dealt, the 51st card turned up
    with pytest.raises(ValueError, match="shape"):
        env.init_from_deck(np.arange(52))
    with pytest.raises(ValueError, match="shape"):
        ff.FortyFive(4).init_from_deck(np.arange(53))
    with pytest.raises(ValueError, match="outside"):
        ff.FortyFive(4).init_from_deal(np.array([[52, 1, 2, 3, 4]] + [[0] * 5] * 3), 9)
    deck = np.concatenate([np.arange(20), [52], np.arange(20, 52)])  # the joker at 5N = 20
    state = ff.FortyFive(4, R(joker=True)).init_from_deck(deck)
    assert bool(state.joker_up) and int(state.turnup) == 20 and int(state.phase) == 0
