"""Hand-built positions (docs/rules.md, including its list of common mistakes) played through
``env.checked_step``.

Every position is a ``Table``: the compiled JAX engine and the reference engine are stepped
together and must agree after every decision (player to act, phase, legal actions, hands, tricks,
pot, result); the asserts below then check the expected values, written out from docs/rules.md.

Unless a test says otherwise: three players, dealer 0, so seat 1 (the eldest) leads the first
trick, then seat 2, then seat 0; the ace of trumps is in the stock (nobody robs).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import Table, cards, hands_of, ref, to_ref_rules

import spoilfive_jax as sf

R = sf.spoil_five.Rules
ENV3 = sf.spoil_five.SpoilFive(3)
ENV3_TRADITIONAL_FOLLOW = sf.spoil_five.SpoilFive(3, R(follow="traditional"))
ENV3_RENEGE = {r: sf.spoil_five.SpoilFive(3, R(renege=r)) for r in ("deal", "trick", "led")}
RENEGES = ["deal", "trick", "led"]
FOLLOW_ENVS = {"seed": ENV3, "traditional": ENV3_TRADITIONAL_FOLLOW}


def everything(t: Table, seat: int) -> set[str]:
    """Every card in ``seat``'s hand: the legal set when any card may be played."""
    return t.hand(seat)


# ---------------------------------------------------------------------------- follow (plain led)


@pytest.mark.parametrize("follow", ["seed", "traditional"])
def test_plain_lead_follow_or_trump_and_third_suit_never_wins(follow):
    # Diamonds trump (7D up).
    t = Table(FOLLOW_ENVS[follow], ["KH 2H 5H 6H 8S", "9C 2C 3C 4S 8H", "KC 3D 5S 6S 7H"], "7D")
    assert (t.phase, t.player) == ("play", 1)
    # The leader may play any card.
    assert t.legal() == everything(t, 1)
    t.act("9C")
    # Seat 2 holds the KC (follows clubs) and the 3D (a trump): either, under both readings;
    # the spades and the heart are not allowed.
    assert t.legal() == cards("KC 3D")
    t.act("KC")
    # Seat 0 holds neither clubs nor a trump: any card.
    assert t.legal() == everything(t, 0)
    t.act("8S")
    # The KC is the highest club; the 8S (a third suit) cannot win.
    assert t.tricks == [0, 0, 1] and t.player == 2


@pytest.mark.parametrize("follow", ["seed", "traditional"])
def test_void_in_the_suit_led_holding_trumps(follow):
    # Diamonds trump.  9C led; seats 2 and 0 are void in clubs and hold trumps.
    t = Table(FOLLOW_ENVS[follow], ["5D 4S 6H 9H 10H", "9C 2C 3C 4C 8S", "3D 5S 6S 7H 8H"], "7D")
    t.act("9C")
    if follow == "seed":
        assert t.legal() == cards("3D")  # holding a trump: must play one
    else:
        assert t.legal() == everything(t, 2)  # void in clubs: anything
    t.act("3D")
    if follow == "seed":
        # Only a top trump (5D) held: no reneging against a plain lead, it must be played.
        assert t.legal() == cards("5D")
    else:
        assert t.legal() == everything(t, 0)
    t.act("5D")
    assert t.tricks == [1, 0, 0]  # 5D, the top trump, beats the 3D


@pytest.mark.parametrize("follow", ["seed", "traditional"])
def test_pitfall1_ace_of_hearts_does_not_follow_a_heart_lead(follow):
    # Clubs trump (7C up).  KH led.  Seat 2's only "heart" is the A♥, which is a trump.
    t = Table(FOLLOW_ENVS[follow], ["7H 8C 3S 4D 9S", "KH 2H 5D 6D 9D", "AH 2D 3D 4S 6S"], "7C")
    t.act("KH")
    if follow == "seed":
        assert t.legal() == cards("AH")  # no heart, one trump (the A♥): must trump
    else:
        assert t.legal() == everything(t, 2)  # void in hearts (A♥ is not a heart): anything
    t.act("AH")
    # Seat 0 holds a heart (7H) and a trump (8C): follow or trump, under both readings.
    assert t.legal() == cards("7H 8C")
    t.act("7H")
    # The A♥ wins as a trump against the heart lead.
    assert t.tricks == [0, 0, 1] and t.player == 2


def test_pitfall1_ace_of_hearts_lead_is_a_trump_lead():
    # Clubs trump.  Seat 1 leads the A♥: a trump lead.  Seat 2 holds the 2C (a trump without
    # the renege privilege) and the KH: the KH does not "follow"; the 2C must be played.
    t = Table(ENV3, ["KD 2H 3H 9S 10S", "AH 4D 5D 6D 9D", "2C KH 3D 4S 6S"], "7C")
    t.act("AH")
    assert t.legal() == cards("2C")
    t.act("2C")
    # Seat 0 holds no trump at all (its hearts are no help): anything.
    assert t.legal() == everything(t, 0)
    t.act("2H")
    # A♥ (third trump) beats the 2C.
    assert t.tricks == [0, 1, 0]


# ---------------------------------------------------------------------------- renege (trump lead)


@pytest.mark.parametrize("renege", RENEGES)
def test_two_led_jack_with_plain_cards_may_renege(renege):
    # Diamonds trump.  Seat 1 leads the 2D (the lowest trump).
    t = Table(ENV3_RENEGE[renege], ["5D 3D 8C 9S 10S", "2D 8H 9H 4S 6H", "JD 3C 4C 6S 7S"], "7D")
    t.act("2D")
    # Seat 2's only trump is the JD, a top trump above the 2D with nothing higher played:
    # it may be withheld, so every card is legal.
    assert t.legal() == everything(t, 2)
    t.act("3C")
    # Seat 0 holds the 5D (may be withheld) and the 3D (may not): a trump must be played,
    # either one.
    assert t.legal() == cards("5D 3D")
    t.act("3D")
    assert t.tricks == [1, 0, 0]  # 3D beats 2D


@pytest.mark.parametrize("renege", RENEGES)
def test_renege_deal_lost_once_the_five_fell_earlier_in_the_hand(renege):
    # Diamonds trump.
    t = Table(ENV3_RENEGE[renege], ["8C 9C 8S 9S KH", "5D 2D KC KS QH", "JD 3D 3C 4C 6S"], "7D")
    # Trick 1: the 5D is led; nobody may renege against the 5.  Seat 2 must play a trump but
    # may choose which: the 3D keeps the JD back.  Seat 0 holds no trump.
    t.act("5D")
    assert t.legal() == cards("JD 3D")
    t.play("3D 8C")
    assert t.tricks == [0, 1, 0] and t.player == 1
    # Trick 2: the 2D is led; seat 2 holds the JD and plain cards only.
    t.act("2D")
    if renege == "deal":
        # The 5D, above the JD, fell earlier in this deal: the JD has lost its privilege.
        assert t.legal() == cards("JD")
    else:
        # "trick": no higher trump in this trick; "led": the 2D led is lower: withhold it.
        assert t.legal() == cards("JD 3C 4C 6S")


@pytest.mark.parametrize("renege", RENEGES)
def test_renege_higher_trump_in_this_trick(renege):
    # Diamonds trump.  2D led, seat 2 (5D may be withheld, but plays it) then seat 0 with
    # the JD and plain cards.
    t = Table(ENV3_RENEGE[renege], ["JD 8C 9C 8S 9S", "2D KC KS QH JH", "5D 3C 4C 6S 7S"], "7D")
    t.act("2D")
    assert t.legal() == everything(t, 2)  # 5D: always withholdable, no other trump
    t.act("5D")
    if renege == "led":
        assert t.legal() == everything(t, 0)  # only the led 2D matters
    else:
        assert t.legal() == cards("JD")  # "deal" and "trick": the 5D is in this trick
    t.act("JD")
    assert t.tricks == [0, 0, 1]  # the 5D wins


@pytest.mark.parametrize("renege", RENEGES)
def test_pitfalls_2_and_3_ace_of_trumps(renege):
    # Diamonds trump; seat 2 is dealt the AD (the ace of trumps), so it may rob first: PASS.
    t = Table(ENV3_RENEGE[renege], ["AH 8C 9C 8S 9S", "2D KC KS QH JH", "AD 3C 4C 6S 7S"], "7D")
    assert (t.phase, t.player) == ("rob", 2)
    t.act("PASS")
    t.act("2D")
    # Pitfall 3: the ace of trumps is not a top trump: no reneging, it must be played.
    assert t.legal() == cards("AD")
    t.act("AD")
    # Pitfall 2: the AD in this trick ranks below the A♥, so the A♥ may still be withheld
    # under every reading.
    assert t.legal() == everything(t, 0)
    t.act("8C")
    assert t.tricks == [0, 0, 1]  # AD beats 2D


@pytest.mark.parametrize("renege", RENEGES)
def test_jack_led_forces_the_ace_of_hearts_but_not_the_five(renege):
    # "if the knave be led, the holder of the ace of hearts is obliged to play it"
    t = Table(ENV3_RENEGE[renege], ["5D 8C 9C 8S 9S", "JD KC KS QH JH", "AH 3C 4C 6S 7S"], "7D")
    t.act("JD")
    assert t.legal() == cards("AH")  # A♥ ranks below the JD led: no privilege
    t.act("AH")
    assert t.legal() == everything(t, 0)  # the 5D ranks above the JD: may be withheld
    t.act("9S")
    assert t.tricks == [0, 1, 0]


@pytest.mark.parametrize("renege", RENEGES)
def test_five_may_always_be_withheld(renege):
    # Diamonds trump.  The A♥ and the JD fall in trick 1; the 5D holder may still renege.
    t = Table(ENV3_RENEGE[renege], ["5D 8C 9C 8S 9S", "AH 3D KC KS QH", "JD 2D 3C 4C 6S"], "7D")
    t.act("AH")
    # Seat 2: the JD (above the A♥ led) may be withheld, the 2D may not: a trump, either.
    assert t.legal() == cards("JD 2D")
    t.act("JD")
    assert t.legal() == everything(t, 0)  # 5D above everything: withhold
    t.act("8C")
    assert t.tricks == [0, 0, 1] and t.player == 2  # JD beats A♥
    t.act("2D")
    assert t.legal() == everything(t, 0)  # still: the 5 may always be withheld
    t.act("9C")
    assert t.legal() == cards("3D")  # seat 1's only trump, no privilege


@pytest.mark.parametrize("renege", RENEGES)
def test_five_led_forces_everyone(renege):
    t = Table(ENV3_RENEGE[renege], ["AH 8C 9C 8S 9S", "5D KC KS QH JH", "JD 3C 4C 6S 7S"], "7D")
    t.act("5D")
    assert t.legal() == cards("JD")  # nothing ranks above the 5: the JD must go
    t.act("JD")
    assert t.legal() == cards("AH")
    t.act("AH")
    assert t.tricks == [0, 1, 0]


@pytest.mark.parametrize("renege", RENEGES)
def test_renege_deal_a_lower_top_trump_fallen_earlier_does_not_matter(renege):
    # Diamonds trump.  The A♥ falls in trick 1; it ranks below the JD, which keeps its
    # privilege against a later 3D lead under every reading.
    t = Table(ENV3_RENEGE[renege], ["8C 9C 8S 9S KH", "AH 3D KC KS QH", "JD 2D 3C 4C 6S"], "7D")
    t.act("AH")
    assert t.legal() == cards("JD 2D")  # 2D can't be withheld: a trump, either one
    t.play("2D 8C")
    assert t.tricks == [0, 1, 0]
    t.act("3D")
    assert t.legal() == cards("JD 3C 4C 6S")


@pytest.mark.parametrize("renege", RENEGES)
def test_renege_deal_own_earlier_card_counts(renege):
    # Diamonds trump.  Seat 1 plays the JD itself in trick 1, then must answer a trump lead
    # holding the A♥: under "deal" the JD (its own card, above the A♥) has been played.
    t = Table(ENV3_RENEGE[renege], ["3D 8C 9C 8S 9S", "JD AH 4C 6S 7S", "2D 4D KC KS QS"], "7D")
    # Trick 1: JD led; seat 2 holds 2D, 4D (no privilege): a trump; seat 0 likewise the 3D.
    t.act("JD")
    assert t.legal() == cards("2D 4D")
    t.act("2D")
    assert t.legal() == cards("3D")
    t.act("3D")
    assert t.tricks == [0, 1, 0] and t.player == 1  # the JD wins
    # Trick 2: 4C led; seat 2 follows with the KC or trumps with the 4D; seat 0 follows clubs.
    t.act("4C")
    assert t.legal() == cards("KC 4D")
    t.act("KC")
    assert t.legal() == cards("8C 9C")
    t.act("8C")
    assert t.tricks == [0, 1, 1] and t.player == 2  # KC beats 4C and 8C
    # Trick 3: seat 2 leads the 4D; seat 0 holds no trump; then seat 1 with the A♥.
    t.act("4D")
    t.act("8S")
    if renege == "deal":
        assert t.legal() == cards("AH")  # the JD fell this deal
    else:
        assert t.legal() == cards("AH 6S 7S")  # only this trick / the led 4D count


@pytest.mark.parametrize("renege", RENEGES)
def test_renege_with_hearts_trump(renege):
    # Hearts trump (7H up): the A♥ is the ace of trumps (its holder, seat 2, may rob: PASS)
    # and the third top trump.
    t = Table(ENV3_RENEGE[renege], ["KH 8C 9C 8S 9S", "2H KC KS QD JD", "AH 3C 4C 6S 7S"], "7H")
    assert (t.phase, t.player) == ("rob", 2)
    t.act("PASS")
    t.act("2H")
    assert t.legal() == everything(t, 2)  # A♥ above the 2H: may be withheld
    t.act("3C")
    assert t.legal() == cards("KH")  # the KH is no top trump
    t.act("KH")
    assert t.tricks == [1, 0, 0]


# ---------------------------------------------------------------------------- robbing (§4)


def test_ace_turned_up_dealer_robs():
    # AD turned up (diamonds trump): the dealer (seat 2) may rob; eldest is seat 0.
    t = Table(ENV3, ["2C 3C 4C 6C 7C", "2S 3S 4S 6S 7S", "KH QH 2H 3H 4H"], "AD", dealer=2)
    assert (t.phase, t.player) == ("rob", 2)
    assert int(t.state.robber) == 2
    # Any of the five dealt cards may be discarded, or PASS.
    assert t.legal() == everything(t, 2) | {"PASS"}
    t.act("2H")
    assert t.hand(2) == cards("KH QH AD 3H 4H")  # discard 2H, take the AD
    assert bool(t.state.robbed) and int(t.state.discard) == sf.card_id("2H")
    assert int(t.state.turnup) == sf.card_id("AD")
    assert (t.phase, t.player) == ("play", 0)  # the eldest leads as usual
    t.act("2C")
    t.act("2S")  # seat 1: no clubs, no trump: anything
    assert t.legal() == cards("AD")  # seat 2 now holds a trump (the AD) and no club: trump
    t.act("AD")
    assert t.tricks == [0, 0, 1]


def test_holder_of_the_ace_of_trumps_robs_and_may_discard_the_ace():
    # Spades trump (7S up); seat 1 holds the AS; seat 0's A♥ gives no right to rob.
    t = Table(ENV3, ["AH 3C 4C 6C 7C", "AS 3D 4D 6D 7D", "KH QH 2H 3H 4H"], "7S")
    assert (t.phase, t.player) == ("rob", 1)
    assert "AS" in t.legal()
    t.act("AS")
    assert t.hand(1) == cards("7S 3D 4D 6D 7D")
    assert (t.phase, t.player) == ("play", 1)  # seat 1 is also the eldest


def test_hearts_trump_ace_of_hearts_turned_up_dealer_robs():
    t = Table(ENV3, ["2C 3C 4C 6C 7C", "2S 3S 4S 6S 7S", "KD QD 2D 3D 4D"], "AH", dealer=1)
    assert int(t.state.trump) == 2
    assert (t.phase, t.player) == ("rob", 1)
    t.act("2S")
    assert t.hand(1) == cards("AH 3S 4S 6S 7S")
    assert (t.phase, t.player) == ("play", 2)


def test_hearts_trump_ace_of_hearts_holder_robs():
    t = Table(ENV3, ["2C 3C 4C 6C 7C", "AH 3S 4S 6S 7S", "KD QD 2D 3D 4D"], "7H", dealer=2)
    assert (t.phase, t.player) == ("rob", 1)
    t.act("PASS")
    assert (t.phase, t.player) == ("play", 0)


def test_ace_of_hearts_is_not_the_ace_of_trumps_in_another_suit():
    # Diamonds trump: the A♥ holder has no rob right; the AD is in the stock: nobody robs.
    t = Table(ENV3, ["AH 3C 4C 6C 7C", "2S 3S 4S 6S 7S", "KH QH 2H 3H 4H"], "7D")
    assert (t.phase, t.player) == ("play", 1)
    assert int(t.state.robber) == -1


def test_pass_declines_the_rob():
    t = Table(ENV3, ["2C 3C 4C 6C 7C", "AS 3D 4D 6D 7D", "KH QH 2H 3H 4H"], "7S", dealer=1)
    assert (t.phase, t.player) == ("rob", 1)
    t.act("PASS")
    assert not bool(t.state.robbed) and int(t.state.discard) == -1
    assert t.hand(1) == cards("AS 3D 4D 6D 7D")  # unchanged; the 7S stays turned up
    assert all(sf.card_id("7S") not in h for h in hands_of(t.state))
    assert (t.phase, t.player) == ("play", 2)  # eldest = dealer 1 + 1


def test_forced_rob_has_no_pass():
    env = sf.spoil_five.SpoilFive(3, R(rob="forced"))
    t = Table(env, ["2C 3C 4C 6C 7C", "AS 3D 4D 6D 7D", "KH QH 2H 3H 4H"], "7S")
    assert (t.phase, t.player) == ("rob", 1)
    assert t.legal() == everything(t, 1)  # a discard only
    with pytest.raises(ValueError, match="PASS"):
        env.checked_step(t.state, sf.spoil_five.PASS)
    t.act("3D")
    assert t.hand(1) == cards("AS 7S 4D 6D 7D")


def test_rob_off():
    env = sf.spoil_five.SpoilFive(3, R(rob="off"))
    # Ace of trumps dealt, and an ace turned up: no rob either way.
    t = Table(env, ["2C 3C 4C 6C 7C", "AS 3D 4D 6D 7D", "KH QH 2H 3H 4H"], "7S")
    assert (t.phase, t.player, int(t.state.robber)) == ("play", 1, -1)
    t = Table(env, ["2C 3C 4C 6C 7C", "2S 3D 4D 6D 7D", "KH QH 2H 3H 4H"], "AD", dealer=2)
    assert (t.phase, t.player, int(t.state.robber)) == ("play", 0, -1)


# ---------------------------------------------------------------------------- jinks, payoffs (§6)

# Two players, dealer 0, so seat 1 leads; spades trump (7S up, AS in the stock).  Seat 1 leads
# its three top trumps; seat 0 holds no trump, so against a trump lead it may play anything.
ENV2 = sf.spoil_five.SpoilFive(2)
JINK_HANDS = ["KC 3D 4D 6D 7D", "5S JS AH QC 2D"]
ALL_TRUMPS = ["KC 3D 4D 6D 7D", "5S JS AH KS QS"]
FIRST_THREE = "5S 3D JS 4D AH 6D"


def test_jink_claim():
    t = Table(ENV2, JINK_HANDS, "7S")
    t.play(FIRST_THREE)
    assert t.tricks == [0, 3]
    assert (t.phase, t.player) == ("jink", 1)
    assert t.legal() == {"JINK", "CLAIM"}
    t.act("CLAIM")
    assert bool(t.state.terminated) and int(t.state.winner) == 1
    assert int(t.state.pot) == 2 and int(t.state.carried_out) == 0
    assert t.rewards == [-1.0, 1.0]  # seat 1 takes the pot of 2, having paid 1
    assert t.hand(1) == cards("QC 2D")  # the hand ended at once: tricks 4-5 are not played
    assert int(t.state.current_player) == -1


def test_jink_success_pays_pot_plus_bonus():
    t = Table(ENV2, ALL_TRUMPS, "7S")
    t.play(FIRST_THREE)
    t.act("JINK")
    assert (t.phase, t.player) == ("play", 1)  # the jinker leads trick 4
    assert int(t.state.jinker) == 1
    t.play("KS KC")
    assert not bool(t.state.terminated)
    t.play("QS 7D")
    assert bool(t.state.terminated) and t.tricks == [0, 5] and int(t.state.winner) == 1
    # pot 2 + the bonus (= the ante, 1) from the other player
    assert t.rewards == [-2.0, 2.0]


def test_jink_success_with_ante_and_bonus_options():
    t = Table(sf.spoil_five.SpoilFive(2, R(ante=2, jink_bonus=3)), ALL_TRUMPS, "7S")
    assert int(t.state.pot) == 4
    t.play(FIRST_THREE + " JINK KS KC QS 7D")
    assert t.rewards == [-5.0, 5.0]  # seat 0: ante 2 + bonus 3; seat 1: pot 4 + 3 - ante 2


def test_jink_success_bonus_from_every_other_player():
    # Three players: seat 1 holds five trumps, the others none.
    t = Table(ENV3, ["KH 2H 3H 4H 6H", "5S JS AH KS QS", "KC 3D 4D 6D 7D"], "7S")
    t.play("5S 3D 2H JS 4D 3H AH 6D 4H JINK KS 7D 6H QS KC KH")
    # pot 3 (1 each) plus a bonus of 1 from each of the two others
    assert t.rewards == [-2.0, 4.0, -2.0]
    assert int(t.state.winner) == 1 and int(t.state.carried_out) == 0


def test_jink_failure_carries_the_pot():
    t = Table(ENV2, JINK_HANDS, "7S")
    t.play(FIRST_THREE + " JINK QC")
    # Clubs led: seat 0 holds the KC (and no trump): must follow with it.
    assert t.legal() == cards("KC")
    t.act("KC")
    # The KC beats the QC: the jinker lost a trick, the hand ends at once.
    assert bool(t.state.terminated) and int(t.state.winner) == -1
    assert t.tricks == [1, 3]
    assert int(t.state.carried_out) == int(t.state.pot) == 2
    assert t.rewards == [-1.0, -1.0]
    assert t.hand(1) == cards("2D")  # trick 5 is never played


def test_no_jink_option_ends_at_three_tricks():
    t = Table(sf.spoil_five.SpoilFive(2, R(jink=False)), JINK_HANDS, "7S")
    t.play(FIRST_THREE)
    assert bool(t.state.terminated) and int(t.state.winner) == 1
    assert t.rewards == [-1.0, 1.0]
    assert [len(h) for h in hands_of(t.state)] == [2, 2]  # two cards each never played


def test_three_tricks_at_trick_four_ends_without_a_jink_decision():
    t = Table(ENV2, ["KC 3D 4D 6D 7D", "5S JS QC AH 2D"], "7S")
    t.play("5S 3D JS 4D QC")
    assert t.legal() == cards("KC")  # clubs led: follow
    t.act("KC")
    assert t.tricks == [1, 2] and t.player == 0  # the KC wins trick 3
    t.act("6D")
    assert t.legal() == cards("AH 2D")  # follow with the 2D or trump with the A♥
    t.act("AH")
    # Seat 1's third trick, at trick 4: only a winner of the first three may jink.
    assert bool(t.state.terminated) and t.phase == "done" and int(t.state.winner) == 1
    assert t.rewards == [-1.0, 1.0]


# Clubs trump (7C up, AC in the stock); nobody holds a trump; the tricks go 2 / 1 / 2: a spoil.
SPOIL_HANDS = ["3S QD KH 8H 9D", "KS QS 2D 3D 4H", "KD 2S 3H 9H 6D"]
SPOIL_PLAY = [
    "KS 2S 3S",  # seat 1 leads; seats 2 and 0 must follow spades; the KS wins
    "2D KD 9D",  # seat 1 leads; both follow diamonds; the KD wins (seat 2)
    "3H KH 4H",  # seat 2 leads; seat 0 follows with the KH, which wins; seat 1 follows
    "QD 3D 6D",  # seat 0 leads; both follow; the QD wins (seat 0: two tricks)
    "8H QS 9H",  # seat 0 leads; seat 1 is void (no trump): anything; the 9H wins (seat 2)
]


def _play_spoil(t: Table) -> None:
    for trick in SPOIL_PLAY:
        t.play(trick)
    assert t.tricks == [2, 1, 2]
    assert bool(t.state.terminated) and int(t.state.winner) == -1


def test_spoil():
    t = Table(ENV3, SPOIL_HANDS, "7C")
    _play_spoil(t)
    assert int(t.state.pot) == int(t.state.carried_out) == 3
    assert t.rewards == [-1.0, -1.0, -1.0]  # everyone loses the ante


def test_spoil_with_a_carried_pot_everyone_antes():
    t = Table(ENV3, SPOIL_HANDS, "7C", carried=4)
    assert int(t.state.pot) == 7
    _play_spoil(t)
    assert int(t.state.carried_out) == 7 and t.rewards == [-1.0, -1.0, -1.0]
    assert sum(t.rewards) == 4 - 7  # carried in - carried out


ENV3_DEALER_ANTE = sf.spoil_five.SpoilFive(3, R(ante_after_spoil="dealer"))


def test_spoil_with_a_carried_pot_only_the_dealer_antes():
    t = Table(ENV3_DEALER_ANTE, SPOIL_HANDS, "7C", carried=4)
    assert int(t.state.pot) == 5  # only the dealer (seat 0) adds an ante
    _play_spoil(t)
    assert int(t.state.carried_out) == 5 and t.rewards == [-1.0, 0.0, 0.0]


def test_dealer_ante_rule_needs_chips_carried_in():
    t = Table(ENV3_DEALER_ANTE, SPOIL_HANDS, "7C", carried=0)
    assert int(t.state.pot) == 3  # nothing carried: everyone antes


def test_claim_a_carried_pot_when_only_the_dealer_anted():
    hands = ["KH 2H 3H 4H 6H", "5S JS AH KS QS", "KC 3D 4D 6D 7D"]
    t = Table(ENV3_DEALER_ANTE, hands, "7S", dealer=0, carried=4)
    assert int(t.state.pot) == 5
    t.play("5S 3D 2H JS 4D 3H AH 6D 4H CLAIM")
    # Seat 1 paid nothing and takes 5; the dealer lost its ante.
    assert t.rewards == [-1.0, 5.0, 0.0]
    assert sum(t.rewards) == 4  # carried in - carried out (0)


# ---------------------------------------------------------------------------- dealing (§3)


def _ref_hands(n: int, rules: sf.spoil_five.Rules, deck, dealer: int) -> list[set[int]]:
    h = ref.RefHand.from_deck(n, to_ref_rules(rules), list(deck), dealer=dealer)
    return [set(x) for x in h.initial_hands]


def test_deal_two_then_three():
    env = sf.spoil_five.SpoilFive(3)
    s = env.init_from_deck(np.arange(52), dealer=0)
    # Eldest (seat 1) first: two cards each from seat 1 clockwise, then three each.
    assert hands_of(s) == [{4, 5, 12, 13, 14}, {0, 1, 6, 7, 8}, {2, 3, 9, 10, 11}]
    assert int(s.turnup) == 15 and int(s.trump) == 1  # 3D: diamonds
    # The dealer was dealt the AD (13): it may rob.
    assert int(s.robber) == 0 and int(s.current_player) == 0


def test_deal_three_then_two():
    env = sf.spoil_five.SpoilFive(3, R(deal_packets=(3, 2)))
    s = env.init_from_deck(np.arange(52), dealer=0)
    assert hands_of(s) == [{6, 7, 8, 13, 14}, {0, 1, 2, 9, 10}, {3, 4, 5, 11, 12}]
    assert int(s.turnup) == 15


@pytest.mark.parametrize("packets", [(2, 3), (3, 2)])
@pytest.mark.parametrize("n", [2, 3, pytest.param(7, marks=pytest.mark.slow), 10])
def test_deal_starts_left_of_every_dealer(packets, n):
    rules = R(deal_packets=packets)
    env = sf.spoil_five.SpoilFive(n, rules)
    deck = np.random.default_rng(n).permutation(52)
    p1, p2 = packets
    for dealer in range(n):
        s = env.init_from_deck(deck, dealer=dealer)
        got = hands_of(s)
        assert got == _ref_hands(n, rules, deck, dealer)
        eldest = (dealer + 1) % n
        # the eldest gets the first packet and the first card of the second round
        assert got[eldest] == set(deck[:p1]) | set(deck[p1 * n : p1 * n + p2])
        # the dealer is dealt last in each round
        assert got[dealer] == set(deck[p1 * (n - 1) : p1 * n]) | set(deck[5 * n - p2 : 5 * n])
        assert int(s.turnup) == deck[5 * n]
        assert int(s.leader) == eldest


def test_ten_players_use_51_cards():
    deck = np.random.default_rng(10).permutation(52)
    s = sf.spoil_five.SpoilFive(10).init_from_deck(deck, dealer=4)
    dealt = set().union(*hands_of(s))
    assert len(dealt) == 50 and dealt == set(deck[:50])
    assert int(s.turnup) == deck[50]  # the 51st card is turned up
    assert deck[51] not in dealt  # one card stays in the stock


def test_two_players_deal():
    deck = np.arange(51, -1, -1)  # 51, 50, 49, ...
    s = ENV2.init_from_deck(deck, dealer=1)
    # Seat 0 is eldest: 51, 50, then (after seat 1's 49, 48) 47, 46, 45.
    assert hands_of(s) == [{51, 50, 47, 46, 45}, {49, 48, 44, 43, 42}]
    assert int(s.turnup) == 41 and int(s.current_player) == 0


@pytest.mark.parametrize(
    ("n", "seed"), [(2, 1), (10, 2), pytest.param(10, 3, marks=pytest.mark.slow)]
)
def test_whole_hands_from_a_deck_agree_with_the_reference(n, seed):
    # Play a shuffled deal to the end, always taking the lowest legal action.
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52)
    dealer = int(rng.integers(n))
    env = sf.spoil_five.SpoilFive(n)
    hands = _ref_hands(n, env.rules, deck, dealer)
    texts = [" ".join(sf.card_str(c) for c in sorted(h)) for h in hands]
    t = Table(env, texts, sf.card_str(int(deck[5 * n])), dealer=dealer)
    assert hands_of(t.state) == hands_of(env.init_from_deck(deck, dealer=dealer))
    steps = 0
    while not bool(t.state.terminated):
        t.act(env.legal_actions(t.state)[0])
        steps += 1
    assert steps <= 5 * n + 2
    assert sum(t.rewards) == -int(t.state.carried_out)
