"""Unit tests of the pure-Python reference engine (tests/reference.py) on hand-traced positions.

Each expectation is written out from docs/rules.md, with a comment saying why a card is legal or
wins.
"""

from __future__ import annotations

import itertools
import random

import pytest

try:  # run as a rootdir-relative module (tests/ on sys.path) or as the package ``tests``
    import reference as ref
except ImportError:  # pragma: no cover
    from tests import reference as ref

from_text = ref.parse_cards
C = ref.parse


def cards(text: str) -> list[int]:
    return sorted(from_text(text))


def legal(hand: str, trick: str, trump: str, previous: str = "", **options) -> list[int]:
    rules = ref.RefRules(**options)
    return ref.legal_plays(
        from_text(hand), from_text(trick), C("2" + trump) // 13, rules, from_text(previous)
    )


SUIT = {"C": ref.CLUBS, "D": ref.DIAMONDS, "H": ref.HEARTS, "S": ref.SPADES}

# ---------------------------------------------------------------------------------------------
# Section 1: notation
# ---------------------------------------------------------------------------------------------


def test_parse_known_ids():
    assert C("AC") == 0
    assert C("5H") == 30
    assert C("AH") == 26 == ref.ACE_OF_HEARTS
    assert C("KS") == 51
    assert C("TD") == C("10D") == C("td") == C("10d") == 13 + 9
    assert C("jh") == C("Jh") == C("JH") == 26 + 10


@pytest.mark.parametrize(
    "bad",
    ["", "5", "H", "1H", "11H", "5X", "HH", "5HH", " 5H", "5H ", "T", "0H", "A♥", "10", "1 0H"],
)
def test_parse_rejects_garbage(bad):
    with pytest.raises(ValueError):
        C(bad)


def test_parse_rejects_non_string():
    with pytest.raises(ValueError):
        C(5)


def test_card_str_round_trip():
    for card in range(52):
        assert C(ref.card_str(card)) == card
        assert C(ref.card_str(card).lower()) == card


def test_action_constants():
    assert (ref.PASS, ref.JINK, ref.CLAIM, ref.NUM_ACTIONS) == (52, 53, 54, 55)


# ---------------------------------------------------------------------------------------------
# Section 2: ranking, every row of the tables for every trump suit, written out literally
# ---------------------------------------------------------------------------------------------

TRUMP_ROWS = {
    # red (D): 5, J, A-hearts, A, K, Q, 10, 9, 8, 7, 6, 4, 3, 2
    "D": "5D JD AH AD KD QD TD 9D 8D 7D 6D 4D 3D 2D",
    # hearts: 5, J, A-hearts, K, Q, 10, 9, 8, 7, 6, 4, 3, 2 (13 trumps, A-hearts once)
    "H": "5H JH AH KH QH TH 9H 8H 7H 6H 4H 3H 2H",
    # black (C, S): 5, J, A-hearts, A, K, Q, 2, 3, 4, 6, 7, 8, 9, 10
    "C": "5C JC AH AC KC QC 2C 3C 4C 6C 7C 8C 9C TC",
    "S": "5S JS AH AS KS QS 2S 3S 4S 6S 7S 8S 9S TS",
}

PLAIN_ROWS = {
    # red plain: K, Q, J, 10, ..., 2, A (A lowest); plain hearts have no A (12 cards)
    "D": "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D AD",
    "H": "KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H",
    # black plain: K, Q, J, A, 2, 3, ..., 10
    "C": "KC QC JC AC 2C 3C 4C 5C 6C 7C 8C 9C TC",
    "S": "KS QS JS AS 2S 3S 4S 5S 6S 7S 8S 9S TS",
}


@pytest.mark.parametrize("trump", "CDHS")
def test_trump_order_table(trump):
    expected = from_text(TRUMP_ROWS[trump])
    t = SUIT[trump]
    assert ref.trump_order(t) == expected
    # exactly these cards are trumps: 14 of them, 13 when hearts are trump
    assert sorted(c for c in range(52) if ref.is_trump(c, t)) == sorted(expected)
    assert len(expected) == (13 if trump == "H" else 14)
    assert ref.top_trumps(t) == expected[:3]


@pytest.mark.parametrize("trump", "CDHS")
def test_trump_order_decides_tricks(trump):
    # For every pair of trumps, the higher one in the table wins whichever is led, and a plain
    # lead followed by both is still won by the higher trump.
    order = from_text(TRUMP_ROWS[trump])
    t = SUIT[trump]
    plain_lead = next(c for c in range(52) if not ref.is_trump(c, t))
    for hi, lo in itertools.combinations(order, 2):  # hi is listed first, so ranks higher
        assert ref.trick_winner([hi, lo], t) == 0
        assert ref.trick_winner([lo, hi], t) == 1
        assert ref.trick_winner([plain_lead, lo, hi], t) == 2
        assert ref.trick_winner([plain_lead, hi, lo], t) == 1


@pytest.mark.parametrize("trump", "CDHS")
@pytest.mark.parametrize("suit", "CDHS")
def test_plain_order_decides_tricks(trump, suit):
    if suit == trump:
        return
    t = SUIT[trump]
    order = from_text(PLAIN_ROWS[suit])
    assert ref.plain_order(SUIT[suit]) == order
    for hi, lo in itertools.combinations(order, 2):
        assert ref.trick_winner([hi, lo], t) == 0
        assert ref.trick_winner([lo, hi], t) == 1
    # A card of a third suit never wins, however high: the lowest card led beats a king.
    other = next(s for s in "CDHS" if s not in (suit, trump))
    assert ref.trick_winner([order[-1], C("K" + other)], t) == 0


# ---------------------------------------------------------------------------------------------
# Section 9 pitfalls
# ---------------------------------------------------------------------------------------------


def test_pitfall1_ace_of_hearts_lead_is_a_trump_lead():
    # Clubs trump. A-hearts is led: a trump lead. The player holds 2C (a trump without the
    # renege privilege) and the KH; the KH is NOT a way of following, the 2C must be played.
    assert legal("2C KH 3D 4S 6S", "AH", "C") == cards("2C")
    # It wins against hearts (it is a trump) and loses to the 5C (the top trump).
    assert ref.trick_winner(from_text("AH KH"), ref.CLUBS) == 0
    assert ref.trick_winner(from_text("AH 5C"), ref.CLUBS) == 1
    # Holding no trump at all against the A-hearts lead, hearts included: anything goes.
    assert legal("KH 2H 3D 4S 6S", "AH", "C") == cards("KH 2H 3D 4S 6S")


def test_pitfall1_ace_of_hearts_does_not_follow_hearts():
    # Clubs trump, KH led. The player's only "heart" is the A-hearts, which is a trump.
    hand = "AH 2D 3D 4S 6S"
    # seed: holds a trump (the A-hearts, no renege against a plain lead) -> must trump with it
    assert legal(hand, "KH", "C", follow="seed") == cards("AH")
    # traditional: void in hearts (the A-hearts is not a heart) -> any card
    assert legal(hand, "KH", "C", follow="traditional") == cards(hand)
    # With a real heart too, traditional allows following (7H) or trumping (A-hearts).
    assert legal("AH 7H 3D 4S 6S", "KH", "C", follow="traditional") == cards("AH 7H")
    # Against a heart lead the A-hearts wins as a trump, even when a higher heart follows.
    assert ref.trick_winner(from_text("7H AH KH"), ref.CLUBS) == 1


def test_pitfall1_hearts_trump_ace_of_hearts_is_a_heart_trump():
    # Hearts trump: the A-hearts is simply the third trump; the 2H lead is a trump lead.
    assert ref.trick_winner(from_text("2H AH"), ref.HEARTS) == 1
    assert ref.trick_winner(from_text("AH JH"), ref.HEARTS) == 1
    assert ref.trick_winner(from_text("AH KH"), ref.HEARTS) == 0


def test_pitfall3_ace_of_trumps_has_no_renege_right():
    # Diamonds trump, 2D led. AD is the 4th trump, not a top trump: it must be played.
    assert legal("AD 3C 4C 6S 7S", "2D", "D") == cards("AD")
    # The JD (a top trump above the 2D) may be withheld: anything is legal.
    assert legal("JD 3C 4C 6S 7S", "2D", "D") == cards("JD 3C 4C 6S 7S")
    # Holding both: AD can't be reneged, so the player must play a trump: AD or JD.
    assert legal("AD JD 4C 6S 7S", "2D", "D") == cards("AD JD")


def test_pitfall4_number_orders():
    # black trump: 2 high, 10 low
    assert ref.trick_winner(from_text("TC 2C"), ref.CLUBS) == 1
    assert ref.trick_winner(from_text("TS 9S"), ref.SPADES) == 1
    # black trump: Q above 2, and 4 above 6 (the 5 being the top trump)
    assert ref.trick_winner(from_text("2S QS"), ref.SPADES) == 1
    assert ref.trick_winner(from_text("6S 4S"), ref.SPADES) == 1
    # red trump: 10 high, 2 low
    assert ref.trick_winner(from_text("2D TD"), ref.DIAMONDS) == 1
    # red plain: A lowest (spades trump, diamonds led)
    assert ref.trick_winner(from_text("AD 2D"), ref.SPADES) == 1
    # black plain: A between J and 2 (diamonds trump, clubs led)
    assert ref.trick_winner(from_text("2C AC"), ref.DIAMONDS) == 1
    assert ref.trick_winner(from_text("AC JC"), ref.DIAMONDS) == 1
    assert ref.trick_winner(from_text("TC 9C"), ref.DIAMONDS) == 1


def test_pitfall5_hearts_trump_has_13_trumps():
    assert sum(ref.is_trump(c, ref.HEARTS) for c in range(52)) == 13
    assert len(set(ref.trump_order(ref.HEARTS))) == 13
    assert ref.trump_order(ref.HEARTS).count(ref.ACE_OF_HEARTS) == 1
    for t in (ref.CLUBS, ref.DIAMONDS, ref.SPADES):
        assert sum(ref.is_trump(c, t) for c in range(52)) == 14


# ---------------------------------------------------------------------------------------------
# Section 5: follow options (plain suit led); diamonds trump, 9C led
# ---------------------------------------------------------------------------------------------


def test_leader_may_play_anything():
    assert legal("5D 2C KH 3S 7S", "", "D") == cards("5D 2C KH 3S 7S")


@pytest.mark.parametrize("follow", ["seed", "traditional"])
def test_holding_suit_led_may_follow_or_trump(follow):
    # KC follows clubs, 3D trumps; the spades and hearts are not allowed.
    assert legal("KC 3D 5S 6S 7H", "9C", "D", follow=follow) == cards("KC 3D")
    # Only clubs, no trumps: must follow.
    assert legal("KC 2C 5S 6S 7H", "9C", "D", follow=follow) == cards("KC 2C")
    # Neither clubs nor trumps: anything.
    assert legal("KH 2H 5S 6S 7H", "9C", "D", follow=follow) == cards("KH 2H 5S 6S 7H")


def test_seed_void_must_trump():
    # Void in clubs, holding the 3D: must trump.
    assert legal("3D 5S 6S 7H 8H", "9C", "D", follow="seed") == cards("3D")
    # Void in clubs, holding only top trumps: no reneging against a plain lead, must trump.
    assert legal("5D 5S 6S 7H 8H", "9C", "D", follow="seed") == cards("5D")
    assert legal("AH 2C 6H 7C", "9S", "D", follow="seed") == cards("AH")


def test_traditional_void_may_play_anything():
    assert legal("3D 5S 6S 7H 8H", "9C", "D", follow="traditional") == cards("3D 5S 6S 7H 8H")
    assert legal("5D 5S 6S 7H 8H", "9C", "D", follow="traditional") == cards("5D 5S 6S 7H 8H")


def test_follow_after_someone_trumped_a_plain_lead():
    # 9C led, then 2D trumped in. The next player still just follows clubs or trumps:
    # reneging exists only against a trump lead, so the JD is an ordinary choice here.
    assert legal("KC JD 5S 6S 7H", "9C 2D", "D") == cards("KC JD")
    assert legal("JD 5S 6S 7H 8H", "9C 2D", "D") == cards("JD")


# ---------------------------------------------------------------------------------------------
# Section 5: renege options (trump led); diamonds trump, top trumps 5D > JD > AH
# ---------------------------------------------------------------------------------------------

RENEGES = ["deal", "trick", "led"]


@pytest.mark.parametrize("renege", RENEGES)
def test_two_led_jack_with_plain_cards_may_renege(renege):
    # 2D led, nothing higher played anywhere: the JD may be withheld -> any card.
    assert legal("JD 3C 4C 6S 7S", "2D", "D", renege=renege) == cards("JD 3C 4C 6S 7S")
    # Holding a low trump too: the 3D can't be reneged, so a trump must be played (3D or JD).
    assert legal("JD 3D 4C 6S 7S", "2D", "D", renege=renege) == cards("JD 3D")
    # No trumps at all: anything.
    assert legal("3C 4C 6S 7S 8H", "2D", "D", renege=renege) == cards("3C 4C 6S 7S 8H")


def test_renege_deal_lost_once_the_five_fell_earlier_in_the_hand():
    # The 5D fell in an earlier trick; now 2D is led. Under "deal" the JD must be played.
    assert legal("JD 3C 4C 6S", "2D", "D", previous="5D 3D 4D", renege="deal") == cards("JD")
    # Under "trick" and "led" the earlier trick does not matter: JD may still be withheld.
    for renege in ("trick", "led"):
        assert legal("JD 3C 4C 6S", "2D", "D", previous="5D 3D 4D", renege=renege) == cards(
            "JD 3C 4C 6S"
        )


def test_renege_deal_own_earlier_card_counts():
    # The player themself played the JD earlier; now 2D is led and they hold the A-hearts.
    # "Played" includes the player's own cards: a trump above the A-hearts has fallen.
    assert legal("AH 3C 4C 6S", "2D", "D", previous="JD 8D 9D", renege="deal") == cards("AH")
    assert legal("AH 3C 4C 6S", "2D", "D", previous="JD 8D 9D", renege="trick") == cards(
        "AH 3C 4C 6S"
    )


def test_renege_deal_lower_top_trump_fallen_does_not_matter():
    # The A-hearts fell earlier; it ranks below the JD, so the JD keeps its privilege.
    assert legal("JD 3C 4C 6S", "2D", "D", previous="AH 8D 9D", renege="deal") == cards(
        "JD 3C 4C 6S"
    )


def test_renege_higher_trump_in_this_trick():
    # 2D led, then the 5D played in this trick; the next player holds the JD and plain cards.
    hand = "JD 3C 4C 6S 7S"
    assert legal(hand, "2D 5D", "D", renege="deal") == cards("JD")  # 5D fell in this deal
    assert legal(hand, "2D 5D", "D", renege="trick") == cards("JD")  # 5D is in this trick
    assert legal(hand, "2D 5D", "D", renege="led") == cards(hand)  # only the led 2D matters


def test_renege_lower_trump_in_this_trick_does_not_matter():
    # 2D led, then AD (the ace of trumps, below the A-hearts): the A-hearts holder may renege
    # under every reading (pitfall 2: don't judge against "any trump in the trick").
    for renege in RENEGES:
        assert legal("AH 3C 4C 6S", "2D AD", "D", renege=renege) == cards("AH 3C 4C 6S")
    # 2D led then JD: the A-hearts is now beaten by a trump in this trick.
    assert legal("AH 3C 4C 6S", "2D JD", "D", renege="deal") == cards("AH")
    assert legal("AH 3C 4C 6S", "2D JD", "D", renege="trick") == cards("AH")
    assert legal("AH 3C 4C 6S", "2D JD", "D", renege="led") == cards("AH 3C 4C 6S")


@pytest.mark.parametrize("renege", RENEGES)
def test_jack_led_forces_ace_of_hearts(renege):
    # "if the knave be led, the holder of the ace of hearts is obliged to play it"
    assert legal("AH 3C 4C 6S", "JD", "D", renege=renege) == cards("AH")
    # ... but the 5D ranks above the JD: it may be withheld.
    assert legal("5D 3C 4C 6S", "JD", "D", renege=renege) == cards("5D 3C 4C 6S")


@pytest.mark.parametrize("renege", RENEGES)
def test_five_may_always_be_withheld(renege):
    # Even after the JD and A-hearts fell earlier and in this trick, the 5D may be reneged.
    assert legal("5D 3C 4C 6S", "2D JD", "D", previous="AH 7D", renege=renege) == cards(
        "5D 3C 4C 6S"
    )


@pytest.mark.parametrize("renege", RENEGES)
def test_five_led_forces_everyone(renege):
    assert legal("JD 3C 4C 6S 7S", "5D", "D", renege=renege) == cards("JD")
    assert legal("AH 3C 4C 6S 7S", "5D", "D", renege=renege) == cards("AH")
    assert legal("JD AH 4C 6S 7S", "5D", "D", renege=renege) == cards("JD AH")
    # no trumps: anything
    assert legal("3C 4C 6S 7S 8S", "5D", "D", renege=renege) == cards("3C 4C 6S 7S 8S")


@pytest.mark.parametrize("renege", RENEGES)
def test_renege_in_hearts_trump(renege):
    # Hearts trump, 2H led: the A-hearts (3rd top trump) may be withheld; KH must not.
    assert legal("AH 3C 4C 6S", "2H", "H", renege=renege) == cards("AH 3C 4C 6S")
    assert legal("KH 3C 4C 6S", "2H", "H", renege=renege) == cards("KH")


# ---------------------------------------------------------------------------------------------
# Renege "deal" vs "trick", traced through a whole engine
# ---------------------------------------------------------------------------------------------

# Three players, dealer 0, eldest 1. Diamonds trump (7D turned up, AD in the stock: no rob).
RENEGE_HANDS = [
    "4D 8C 9C 8S 9S",  # seat 0 (dealer)
    "5D 2D KC KS KH",  # seat 1 (eldest)
    "JD 3D 3C 4C 6S",  # seat 2
]


def make_hand(hands, turnup, num_players=None, dealer=0, carried=0, **options) -> ref.RefHand:
    rules = ref.RefRules(**options)
    n = len(hands) if num_players is None else num_players
    return ref.RefHand(n, rules, [from_text(h) for h in hands], C(turnup), dealer, carried)


@pytest.mark.parametrize("renege", RENEGES)
def test_renege_traced_through_the_engine(renege):
    h = make_hand(RENEGE_HANDS, "7D", renege=renege)
    assert h.phase == "play" and h.robber == -1 and h.current_player == 1
    h.step(C("5D"))  # seat 1 leads the 5D
    # Seat 2: the 5 is led, nobody may renege; trumps held: 3D and JD -> must play one.
    assert h.legal_actions() == cards("3D JD")
    h.step(C("3D"))
    assert h.legal_actions() == cards("4D")  # seat 0: its only trump
    h.step(C("4D"))
    assert h.tricks_won == [0, 1, 0] and h.current_player == 1  # 5D won, seat 1 leads again
    h.step(C("2D"))  # trick 2: the 2D led
    if renege == "deal":
        # The 5D fell in trick 1: the JD has lost its privilege.
        assert h.legal_actions() == cards("JD")
    else:
        # Nothing above the JD in this trick (or led): the JD may be withheld.
        assert h.legal_actions() == cards("JD 3C 4C 6S")


def test_illegal_actions_raise():
    h = make_hand(RENEGE_HANDS, "7D", renege="deal")
    for bad in (C("4D"), C("AD"), ref.PASS, ref.JINK, ref.CLAIM, 55, -1, "5D", 1.5):
        with pytest.raises(ValueError):
            h.step(bad)  # seat 1 leads: only its own cards are legal
    assert h.decisions == 0 and h.current_player == 1


# ---------------------------------------------------------------------------------------------
# Section 4: robbing
# ---------------------------------------------------------------------------------------------


def test_ace_turned_up_dealer_robs():
    # Diamonds trump, AD turned up: the dealer (seat 2 of 3) may rob.
    h = make_hand(["2C 3C 4C 6C 7C", "2S 3S 4S 6S 7S", "KH QH 2H 3H 4H"], "AD", dealer=2)
    assert (h.phase, h.robber, h.current_player) == ("rob", 2, 2)
    assert h.legal_actions() == [*cards("KH QH 2H 3H 4H"), ref.PASS]
    h.step(C("2H"))  # discard the 2H, take the AD
    assert h.robbed and h.discard == C("2H")
    assert h.hands[2] == cards("KH QH AD 3H 4H")
    assert h.played == []  # the discard is not a played card
    assert (h.phase, h.current_player) == ("play", 0)  # eldest = dealer + 1 = seat 0 leads
    assert h.decisions == 1


def test_holder_of_the_ace_of_trumps_robs():
    # Spades trump (7S turned up); seat 1 holds the AS; seat 0 holds the A-hearts (no rob right).
    h = make_hand(["AH 3C 4C 6C 7C", "AS 3D 4D 6D 7D", "KH QH 2H 3H 4H"], "7S", dealer=0)
    assert (h.phase, h.robber, h.current_player) == ("rob", 1, 1)
    # The ace itself may be discarded.
    assert C("AS") in h.legal_actions()
    h.step(C("AS"))
    assert h.hands[1] == cards("7S 3D 4D 6D 7D")
    assert (h.phase, h.current_player) == ("play", 1)  # the eldest (seat 1) leads


def test_hearts_trump_ace_of_hearts_turned_up_dealer_robs():
    # AH turned up: hearts trump and the turn-up is the ace of trumps -> the dealer robs.
    hands = ["2C 3C 4C 6C 7C", "2S 3S 4S 6S 7S", "KD QD 2D 3D 4D", "KC QC JC TC 9C"]
    h = make_hand(hands, "AH", dealer=2)
    assert h.trump == ref.HEARTS
    assert (h.phase, h.robber, h.current_player) == ("rob", 2, 2)
    h.step(C("2D"))
    assert h.hands[2] == cards("KD QD AH 3D 4D")
    assert (h.phase, h.current_player) == ("play", 3)


def test_hearts_trump_ace_of_hearts_holder_robs():
    # 7H turned up: the ace of trumps is the A-hearts; its holder (seat 0) robs.
    h = make_hand(["AH 3C 4C 6C 7C", "2S 3S 4S 6S 7S", "KD QD 2D 3D 4D"], "7H", dealer=1)
    assert (h.phase, h.robber, h.current_player) == ("rob", 0, 0)


def test_ace_in_stock_nobody_robs():
    h = make_hand(["2C 3C 4C 6C 7C", "2S 3S 4S 6S 7S"], "7D", dealer=0)
    assert (h.phase, h.robber, h.current_player) == ("play", -1, 1)
    assert not h.robbed


def test_forced_rob_has_no_pass():
    h = make_hand(["2C 3C 4C 6C 7C", "AS 3D 4D 6D 7D"], "7S", rob="forced")
    assert h.phase == "rob" and h.robber == 1
    assert h.legal_actions() == cards("AS 3D 4D 6D 7D")
    with pytest.raises(ValueError):
        h.step(ref.PASS)


def test_rob_off_means_no_rob():
    h = make_hand(["2C 3C 4C 6C 7C", "AS 3D 4D 6D 7D"], "7S", rob="off")
    assert (h.phase, h.robber, h.current_player) == ("play", -1, 1)
    h = make_hand(["2C 3C 4C 6C 7C", "AS 3D 4D 6D 7D"], "AD", rob="off")
    assert (h.phase, h.robber) == ("play", -1)


def test_pass_declines_the_rob():
    h = make_hand(["2C 3C 4C 6C 7C", "AS 3D 4D 6D 7D", "KH QH 2H 3H 4H"], "7S", dealer=1)
    assert h.robber == 1 and h.current_player == 1
    h.step(ref.PASS)
    assert not h.robbed and h.discard is None
    assert h.hands[1] == cards("AS 3D 4D 6D 7D")
    assert (h.phase, h.current_player) == ("play", 2)  # eldest = dealer 1 + 1


# ---------------------------------------------------------------------------------------------
# Section 6: jink, claim, early end, spoil, antes
# ---------------------------------------------------------------------------------------------

# Two players, dealer 0, eldest 1; spades trump (7S up, AS in the stock: no rob).
# Seat 1 holds three top trumps and leads them; seat 0 holds no trump.
JINK_HANDS = ["KC 3D 4D 6D 7D", "5S JS AH QC 2D"]


def play_first_three_tricks(h):
    for lead, answer in (("5S", "3D"), ("JS", "4D"), ("AH", "6D")):
        assert h.current_player == 1
        h.step(C(lead))
        # Seat 0 has no trump: against a trump lead it may play anything.
        assert h.legal_actions() == h.hands[0]
        h.step(C(answer))


def test_jink_claim():
    h = make_hand(JINK_HANDS, "7S")
    play_first_three_tricks(h)
    assert (h.phase, h.current_player) == ("jink", 1)
    assert h.legal_actions() == [ref.JINK, ref.CLAIM]
    h.step(ref.CLAIM)
    assert h.terminated and h.phase == "done" and h.current_player == -1
    assert h.winner == 1 and not h.jinked
    assert h.pot == 2 and h.carried_out == 0
    assert h.rewards == [-1.0, 1.0]  # seat 1 takes the pot of 2 having paid 1
    assert h.tricks_won == [0, 3]
    assert h.legal_actions() == []
    with pytest.raises(ValueError):
        h.step(C("QC"))


def test_jink_success():
    # Seat 1 holds five trumps this time, so it wins tricks 4 and 5 too.
    h = make_hand(["KC 3D 4D 6D 7D", "5S JS AH KS QS"], "7S", ante=2, jink_bonus=3)
    play_first_three_tricks(h)
    h.step(ref.JINK)
    assert h.jinked and (h.phase, h.current_player) == ("play", 1)  # the jinker leads trick 4
    h.step(C("KS"))
    h.step(C("KC"))
    assert not h.terminated
    h.step(C("QS"))
    h.step(C("7D"))
    assert h.terminated and h.winner == 1 and h.tricks_won == [0, 5]
    # pot 4 (2 each) plus a bonus of 3 from the other player
    assert h.pot == 4 and h.carried_out == 0
    assert h.rewards == [-5.0, 5.0]


def test_jink_bonus_defaults_to_ante():
    h = make_hand(["KC 3D 4D 6D 7D", "5S JS AH KS QS"], "7S", ante=2)
    play_first_three_tricks(h)
    for action in (ref.JINK, C("KS"), C("KC"), C("QS"), C("7D")):
        h.step(action)
    assert h.rewards == [-4.0, 4.0]  # pot 4: seat 1 +4 -2 ante +2 bonus


def test_jink_failure():
    h = make_hand(JINK_HANDS, "7S")
    play_first_three_tricks(h)
    h.step(ref.JINK)
    h.step(C("QC"))  # the jinker leads the QC
    # Seat 0 holds the KC: clubs led, it must follow (seed: clubs or trump; it has no trump).
    assert h.legal_actions() == cards("KC")
    h.step(C("KC"))  # KC beats QC: the jinker has lost a trick, the hand ends at once
    assert h.terminated and h.winner == -1 and h.jinked
    assert h.tricks_won == [1, 3]
    assert h.carried_out == h.pot == 2
    assert h.rewards == [-1.0, -1.0]
    assert len(h.played) == 8


def test_no_jink_option_ends_at_three_tricks():
    h = make_hand(JINK_HANDS, "7S", jink=False)
    play_first_three_tricks(h)
    assert h.terminated and h.winner == 1 and h.decisions == 6
    assert h.rewards == [-1.0, 1.0]
    # the hand ended at once: two cards each are never played
    assert [len(x) for x in h.hands] == [2, 2] and len(h.played) == 6


def test_three_tricks_at_trick_four_ends_without_jink():
    h = make_hand(JINK_HANDS, "7S")
    h.step(C("5S"))
    h.step(C("3D"))  # trick 1 to seat 1
    h.step(C("JS"))
    h.step(C("4D"))  # trick 2 to seat 1
    h.step(C("QC"))
    h.step(C("KC"))  # trick 3: seat 0 must follow with the KC, which wins
    assert h.tricks_won == [1, 2] and h.current_player == 0
    h.step(C("6D"))  # seat 0 leads the 6D
    # seat 1 holds AH 2D: may follow (2D) or trump (AH)
    assert h.legal_actions() == cards("AH 2D")
    h.step(C("AH"))  # the A-hearts trumps: seat 1's third trick, at trick 4 -> no jink
    assert h.terminated and h.phase == "done" and h.winner == 1
    assert h.rewards == [-1.0, 1.0] and h.decisions == 8


# Three players, dealer 0, eldest 1; spades trump (7S up), nobody holds a trump.
SPOIL_HANDS = [
    "KD QD 2H 3H 4C",  # seat 0
    "KC QC 2D 3D 4D",  # seat 1
    "KH QH 2C 3C 5D",  # seat 2
]
SPOIL_PLAY = [
    # trick 1: seat 1 leads KC, seat 2 and seat 0 must follow clubs; KC wins
    ("KC", "2C", "4C"),
    # trick 2: seat 1 leads QC; seat 2 follows 3C; seat 0 is void (and has no trump): 2H; QC wins
    ("QC", "3C", "2H"),
    # trick 3: seat 1 leads 2D; seat 2 follows 5D; seat 0 follows KD, which wins
    ("2D", "5D", "KD"),
    # trick 4: seat 0 leads 3H; seat 1 is void: 3D; seat 2 must follow: KH wins
    ("3H", "3D", "KH"),
    # trick 5: seat 2 leads QH; seats 0 and 1 are void: QD, 4D; QH wins
    ("QH", "QD", "4D"),
]


def play_spoil(h):
    for trick in SPOIL_PLAY:
        for card in trick:
            assert C(card) in h.legal_actions()
            h.step(C(card))
    assert h.terminated


def test_spoil():
    h = make_hand(SPOIL_HANDS, "7S")
    play_spoil(h)
    assert h.tricks_won == [1, 2, 2] and h.winner == -1
    assert h.pot == 3 and h.carried_out == 3
    assert h.rewards == [-1.0, -1.0, -1.0]  # each player lost the ante
    assert h.decisions == 15 and h.hands == [[], [], []]


def test_spoil_with_carried_pot_all_ante():
    h = make_hand(SPOIL_HANDS, "7S", carried=3, ante_after_spoil="all")
    assert h.pot == 6
    play_spoil(h)
    assert h.carried_out == 6 and h.rewards == [-1.0, -1.0, -1.0]
    assert sum(h.rewards) == h.carried - h.carried_out


def test_spoil_with_carried_pot_dealer_ante():
    h = make_hand(SPOIL_HANDS, "7S", carried=3, ante_after_spoil="dealer")
    assert h.pot == 4  # only the dealer (seat 0) adds an ante
    play_spoil(h)
    assert h.carried_out == 4 and h.rewards == [-1.0, 0.0, 0.0]


def test_dealer_ante_only_applies_with_chips_carried():
    h = make_hand(SPOIL_HANDS, "7S", carried=0, ante_after_spoil="dealer", ante=2)
    assert h.pot == 6


def test_claim_with_carried_pot_dealer_ante():
    h = make_hand(JINK_HANDS, "7S", carried=5, ante_after_spoil="dealer")
    assert h.pot == 6  # 5 carried + the dealer's ante
    play_first_three_tricks(h)
    h.step(ref.CLAIM)
    assert h.rewards == [-1.0, 6.0]  # seat 1 paid nothing and takes 6
    assert sum(h.rewards) == h.carried - h.carried_out == 5


def test_traditional_rules_preset():
    r = ref.RefRules.traditional()
    assert (r.follow, r.renege, r.rob, r.ante_after_spoil) == (
        "traditional",
        "led",
        "forced",
        "dealer",
    )
    assert (r.jink, tuple(r.deal_packets), r.ante, r.jink_bonus) == (True, (2, 3), 1, None)
    d = ref.RefRules()
    assert (d.follow, d.renege, d.rob, d.jink, d.ante_after_spoil) == (
        "seed",
        "deal",
        "optional",
        True,
        "all",
    )


def test_unknown_option_rejected():
    with pytest.raises(ValueError):
        make_hand(JINK_HANDS, "7S", renege="sometimes")


# ---------------------------------------------------------------------------------------------
# Section 3: dealing
# ---------------------------------------------------------------------------------------------


def test_deal_two_then_three():
    deck = list(range(52))
    h = ref.RefHand.from_deck(3, ref.RefRules(), deck, dealer=0)
    # eldest = seat 1: two cards each from seat 1 clockwise, then three each
    assert h.initial_hands[1] == [0, 1, 6, 7, 8]
    assert h.initial_hands[2] == [2, 3, 9, 10, 11]
    assert h.initial_hands[0] == [4, 5, 12, 13, 14]
    assert h.turnup == 15 and h.trump == ref.DIAMONDS  # 15 = 3D
    # AD (13) was dealt to the dealer: the dealer may rob
    assert h.robber == 0 and h.phase == "rob"


def test_deal_three_then_two():
    deck = list(range(52))
    h = ref.RefHand.from_deck(3, ref.RefRules(deal_packets=(3, 2)), deck, dealer=0)
    assert h.initial_hands[1] == [0, 1, 2, 9, 10]
    assert h.initial_hands[2] == [3, 4, 5, 11, 12]
    assert h.initial_hands[0] == [6, 7, 8, 13, 14]
    assert h.turnup == 15


def test_deal_starts_left_of_any_dealer():
    deck = list(range(52))
    h = ref.RefHand.from_deck(3, ref.RefRules(), deck, dealer=2)
    assert h.initial_hands[0] == [0, 1, 6, 7, 8]  # seat 0 is eldest
    assert h.initial_hands[1] == [2, 3, 9, 10, 11]
    assert h.initial_hands[2] == [4, 5, 12, 13, 14]
    assert h.eldest == 0


def test_two_players():
    deck = list(range(51, -1, -1))  # 51, 50, 49, ...
    h = ref.RefHand.from_deck(2, ref.RefRules(), deck, dealer=1)
    # seat 0 is eldest: 51, 50, then (after seat 1's 49, 48) 47, 46, 45
    assert h.initial_hands[0] == [45, 46, 47, 50, 51]
    assert h.initial_hands[1] == [42, 43, 44, 48, 49]
    assert h.turnup == 41  # deck[10]


def test_ten_players_use_51_cards():
    rng = random.Random(7)
    deck = list(range(52))
    rng.shuffle(deck)
    h = ref.RefHand.from_deck(10, ref.RefRules(), deck, dealer=4)
    dealt = [c for hand in h.initial_hands for c in hand]
    assert len(dealt) == 50 and set(dealt) == set(deck[:50])
    assert h.turnup == deck[50]
    # eldest is seat 5: deck[0:2] then deck[20:23]
    assert h.initial_hands[5] == sorted(deck[0:2] + deck[20:23])
    # seat 4 (dealer) is dealt last in each round: deck[18:20] and deck[47:50]
    assert h.initial_hands[4] == sorted(deck[18:20] + deck[47:50])


def test_bad_construction_rejected():
    with pytest.raises(ValueError):
        make_hand(["2C 3C 4C 6C 7C", "2C 3S 4S 6S 7S"], "7D")  # a card dealt twice
    with pytest.raises(ValueError):
        make_hand(["2C 3C 4C 6C 7C", "2S 3S 4S 6S 7S"], "2S")  # turn-up also dealt
    with pytest.raises(ValueError):
        make_hand(["2C 3C 4C 6C", "2S 3S 4S 6S 7S"], "7D")  # 4 cards
    with pytest.raises(ValueError):
        make_hand(["2C 3C 4C 6C 7C"], "7D")  # one player


# ---------------------------------------------------------------------------------------------
# Random play smoke test
# ---------------------------------------------------------------------------------------------

RULE_VARIANTS = [
    ref.RefRules(),
    ref.RefRules.traditional(),
    ref.RefRules(renege="trick", rob="off", jink=False),
    ref.RefRules(follow="traditional", renege="deal", deal_packets=(3, 2), ante=2, jink_bonus=5),
    ref.RefRules(renege="led", rob="forced", ante_after_spoil="dealer"),
]


@pytest.mark.parametrize(  # (-m slow: 7 to 9 seats; the default run plays 2 to 6 and 10)
    "num_players",
    [pytest.param(n, marks=pytest.mark.slow) if 7 <= n <= 9 else n for n in range(2, 11)],
)
def test_random_play(num_players):
    for seed in range(250):
        rng = random.Random(seed * 100 + num_players)
        rules = RULE_VARIANTS[seed % len(RULE_VARIANTS)]
        dealer = rng.randrange(num_players)
        carried = rng.choice([0, 0, 3])
        h = ref.RefHand.random(num_players, rules, rng, dealer=dealer, carried=carried)
        dealt = sorted([c for hand in h.initial_hands for c in hand] + [h.turnup])
        while not h.terminated:
            actions = h.legal_actions()
            assert actions and actions == sorted(actions)
            assert all(0 <= a < ref.NUM_ACTIONS for a in actions)
            if h.phase == "play":
                assert set(actions) <= set(h.hands[h.current_player])
            h.step(rng.choice(actions))
            # cards conserved: hands + played + (discard if robbed, else the turn-up)
            aside = h.discard if h.robbed else h.turnup
            now = sorted([c for hand in h.hands for c in hand] + h.played + [aside])
            assert now == dealt
            # 5 tricks of N plays, one rob and one jink decision at most
            assert h.decisions <= 5 * num_players + 2
        assert h.current_player == -1 and h.legal_actions() == []
        assert sum(h.tricks_won) == len(h.played) // num_players
        assert sum(h.rewards) == h.carried - h.carried_out
        if h.winner >= 0:
            assert h.carried_out == 0
            assert h.tricks_won[h.winner] >= 3
        else:
            assert h.carried_out == h.pot
            assert num_players > 2 or h.jinked  # two players can't spoil
        if h.jinked:
            assert h.tricks_won[h.jinker] >= 3
        assert max(h.tricks_won) <= 5
