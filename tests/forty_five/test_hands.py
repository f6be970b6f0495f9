"""Hand-built deals of Forty-Five and Twenty-Five (docs/rules.md#the-forty-five-family): team
layouts, scoring rules, the end of the game and its tie rule, jinks, robbing.  Every deal is played
through ``env.checked_step`` (the compiled path) with the reference engine mirrored step by step
(``Table45``); the comments say why each card is legal or wins.

Trump is diamonds in every deal here (7D turned up; nobody holds the AD or the AH unless said):
the trumps are 5D JD AH AD KD QD TD 9D 8D 7D 6D 4D 3D 2D.  Black plain suits rank
K Q J A 2 3 4 5 6 7 8 9 10 (so the 6S beats the 9S), red ones K Q J 10 ... 2 (A).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import Table45, cards

from spoilfive_jax.games import forty_five as ff

R = ff.FortyFiveRules
ENV2 = ff.FortyFive(2)
ENV4 = ff.FortyFive(4)
ENV5 = ff.FortyFive(5)
ENV6 = ff.FortyFive(6)

# ---------------------------------------------------------------------------- 4 players, pairs

# Dealer 0, eldest 1 leads.  Partners 0 & 2 (team 0) against 1 & 3 (team 1).
DEAL4 = ["2C 3C 4C 6C 8C", "5D JD KD QD 9S", "2S 3S 4S 6S 8S", "2H 3H 4H 6H 8H"]
# Tricks 1-3: seat 1 leads 5D, JD, KD; nobody else holds a trump, so anything goes.
# Trick 4: seat 1 leads 9S; seat 2 must follow spades (6S beats 9S), 3 and 0 are void.
# Trick 5: seat 2 leads 8S; seat 1, void in spades, trumps with QD.
PLAY4 = "5D 2S 2H 2C  JD 3S 3H 3C  KD 4S 4H 4C  9S 6S 6H 6C  8S 8H 8C QD"


def play_deal4(env: ff.FortyFive, scores=None) -> Table45:
    t = Table45(env, DEAL4, "7D", dealer=0, scores=scores)
    assert t.phase == "play" and t.player == 1
    t.play("5D")
    assert t.legal() == cards("2S 3S 4S 6S 8S")  # no trumps: any card
    t.play("2S 2H 2C  JD 3S 3H 3C  KD 4S 4H 4C  9S")
    assert t.legal() == cards("6S 8S")  # holding spades: follow (or trump; none held)
    t.play("6S")
    assert t.legal() == cards("6H 8H")  # void in spades: anything (traditional)
    t.play("6H 6C")
    assert t.player == 2  # 6S won trick 4
    t.play("8S 8H 8C QD")
    assert t.state.terminated
    return t


def test_four_players_best_trump():
    t = play_deal4(ENV4)
    assert t.tricks == [0, 4, 1, 0]
    # team 1: 4 tricks (20) + 5 for the 5D, the hand's highest trump; team 0: 1 trick
    assert t.scores == [5, 25] and t.rewards == [5.0, 25.0, 5.0, 25.0]
    assert not t.state.game_over and int(t.state.game_winner) == -1
    assert np.asarray(t.state.game_rewards).tolist() == [0.0] * 4


def test_hoyle_scoring():
    t = play_deal4(ff.FortyFive(4, R(scoring="hoyle")))
    assert t.scores == [0, 5]  # 3 or 4 tricks: 5; the other side nothing


def test_twenty_five_no_bonus_and_game_end():
    env = ff.TwentyFive(4)
    assert env.rules.goal == 25
    t = play_deal4(env, scores=[0, 5])
    assert t.state.hand_points.tolist() == [5, 20]  # no best-trump bonus
    assert t.scores == [5, 25] and bool(t.state.game_over) and int(t.state.game_winner) == 1
    assert np.asarray(t.state.game_rewards).tolist() == [-1.0, 1.0, -1.0, 1.0]


def test_target_110():
    env = ff.TwentyFive(4, target=110)
    t = play_deal4(env, scores=[100, 85])
    assert t.scores == [105, 105] and not t.state.game_over  # 105 is short of 110
    t = play_deal4(env, scores=[100, 90])
    assert t.scores == [105, 110] and int(t.state.game_winner) == 1


@pytest.mark.parametrize(("tie_break", "winner"), [("first_counted", 1), ("higher_total", 0)])
def test_tie_rule(tie_break, winner):
    # Both teams pass 45 in the same hand: 44 + 5 = 49 for team 0, 20 + 25 = 45 for team 1.
    # Teams are counted from the eldest hand (seat 1, team 1): "first_counted" gives the game
    # to team 1 on 45; "higher_total" to team 0 on 49.
    env = ENV4 if tie_break == "first_counted" else ff.FortyFive(4, R(tie_break=tie_break))
    t = play_deal4(env, scores=[44, 20])
    assert t.scores == [49, 45]
    assert bool(t.state.game_over) and int(t.state.game_winner) == winner


def test_forty_five_game_end_single_team():
    t = play_deal4(ENV4, scores=[35, 20])
    assert t.scores == [40, 45] and int(t.state.game_winner) == 1


# ---------------------------------------------------------------------------- 2, 5, 6 players

DEAL2 = ["2C 3C 4C 6C 8S", "5D JD KD QD 9S"]  # dealer 0, seat 1 leads


def test_two_players_head_to_head():
    t = Table45(ENV2, DEAL2, "7D")
    t.play("5D 2C JD 3C KD 4C QD 6C 9S")
    assert t.legal() == cards("8S")  # holding a spade: follow
    t.play("8S")  # 8S beats 9S
    assert t.tricks == [1, 4] and t.scores == [5, 25] and t.rewards == [5.0, 25.0]


# Six players, dealer 0: teams of three seated alternately (0, 2, 4 against 1, 3, 5).
DEAL6 = [
    "6S 7S 2C TH JH",
    "KS 3C 4H 5H 6H",
    "KC 3H 4S 7C 8C",
    "KH QH 5S 9C TC",
    "5D 2S 3S 7H JC",
    "QS TS 8H 9H QC",
]
# Trick 1: seat 1 leads KS, everybody follows spades, KS wins.
# Trick 2: seat 1 leads 3C, everybody follows clubs, seat 2's KC wins.
# Trick 3: seat 2 leads 3H, everybody follows hearts, seat 3's KH wins.
# Trick 4: seat 3 leads QH; seat 4 trumps with the 5D (following or trumping at will) and wins;
#   seat 2, void in hearts, throws a club.
# Trick 5: seat 4 leads 2S; seat 5's QS wins (the KS is gone); 1, 2 and 3 are void.
PLAY6 = (
    "KS 4S 5S 3S TS 6S  3C KC 9C JC QC 2C  3H KH 7H 8H TH 4H  QH 5D 9H JH 5H 7C  2S QS 7S 6H 8C TC"
)


def test_six_players_teams_of_three():
    t = Table45(ENV6, DEAL6, "7D")
    t.play(PLAY6)
    assert t.tricks == [0, 1, 1, 1, 1, 1]
    # team 0 (0, 2, 4): 2 tricks + the 5D bonus = 15; team 1 (1, 3, 5): 3 tricks = 15
    assert t.scores == [15, 15] and t.rewards == [15.0] * 6


def test_five_players_individual():
    hands = [
        "QS TS 2C TH JH",
        "KS 3C 4H 5H 6H",
        "KC 3H 4S 7C 8C",
        "KH QH 5S 9C TC",
        "5D 2S 3S 7H JC",
    ]
    t = Table45(ENV5, hands, "7D")
    # the same tricks as DEAL6 with seat 0 in seat 5's role (it wins trick 5 with the QS)
    t.play("KS 4S 5S 3S TS  3C KC 9C JC 2C  3H KH 7H TH 4H  QH 5D JH 5H 7C  2S QS 6H 8C TC")
    assert t.tricks == [1, 1, 1, 1, 1]
    assert t.scores == [5, 5, 5, 5, 10]  # the 5D's bonus to seat 4 alone
    assert t.rewards == [5.0, 5.0, 5.0, 5.0, 10.0]


def test_five_players_tie_first_counted():
    # Seats 2 and 4 both pass 45; counted from the eldest (seat 1): seat 2 first.
    hands = [
        "QS TS 2C TH JH",
        "KS 3C 4H 5H 6H",
        "KC 3H 4S 7C 8C",
        "KH QH 5S 9C TC",
        "5D 2S 3S 7H JC",
    ]
    t = Table45(ENV5, hands, "7D", scores=[0, 0, 40, 0, 40])
    t.play("KS 4S 5S 3S TS  3C KC 9C JC 2C  3H KH 7H TH 4H  QH 5D JH 5H 7C  2S QS 6H 8C TC")
    assert t.scores == [5, 5, 45, 5, 50] and int(t.state.game_winner) == 2
    assert np.asarray(t.state.game_rewards).tolist() == [-1.0, -1.0, 1.0, -1.0, -1.0]


# ---------------------------------------------------------------------------- jinks

ENV_ANNOUNCE = ff.FortyFive(4, R(jink="announced"))
# Seat 1 holds four trumps and the 9S; its partner seat 3 holds only spades.
DEAL_SLAM = ["2C 3C 4C 6C 8C", "5D JD KD QD 9S", "2H 3H 4H 6H 8H", "2S 3S 4S 6S 8S"]
# Seat 1 leads its trumps (nobody else has one), then the 9S: seat 3 must follow spades
# and any spade of its beats the 9S, so team 1 takes all five.
PLAY_SLAM = "5D 2H 2S 2C  JD 3H 3S 3C  KD 4H 4S 4C  QD 6H 6S 6C  9S 8H 8S 8C"


def test_jink_announced_success_doubles():
    t = Table45(ENV_ANNOUNCE, DEAL_SLAM, "7D")
    assert t.phase == "announce" and t.player == 1 and t.legal() == {"PASS", "JINK"}
    t.act("JINK")  # the first announcement closes the round: play starts at once
    assert t.phase == "play" and t.player == 1 and int(t.state.jinker) == 1
    t.play(PLAY_SLAM)
    # 5 tricks (25) + best trump (5) = 30, doubled
    assert t.scores == [0, 60] and t.rewards == [0.0, 60.0, 0.0, 60.0]
    assert bool(t.state.game_over) and int(t.state.game_winner) == 1


def test_jink_announced_failure_loses_the_game():
    t = Table45(ENV_ANNOUNCE, DEAL_SLAM, "7D", scores=[30, 0])
    t.play("PASS PASS PASS")  # seats 1, 2, 3 decline
    assert t.player == 0 and t.legal() == {"PASS", "JINK"}
    t.act("JINK")  # the dealer announces for team 0...
    assert t.phase == "play" and t.player == 1  # ...and the eldest still leads
    t.play("5D 2H 2S 2C")  # ...and team 1 takes the first trick: the game is lost at once
    assert t.state.terminated and bool(t.state.game_over) and int(t.state.game_winner) == 1
    assert t.scores == [30, 0] and t.rewards == [0.0] * 4  # the hand scores nothing
    assert np.asarray(t.state.game_rewards).tolist() == [-1.0, 1.0, -1.0, 1.0]


def test_no_announcement_plays_normally():
    t = Table45(ENV_ANNOUNCE, DEAL_SLAM, "7D")
    t.play("PASS PASS PASS PASS")
    assert t.phase == "play" and t.player == 1
    t.play(PLAY_SLAM)
    assert t.scores == [0, 30] and not t.state.game_over


def test_wins_game_slam():
    deal = ["2C 3C 4C 6C 8C", "5D JD KD QD 9S"]
    play = "9S 2C 5D 3C JD 4C KD 6C QD 8C"  # the 9S wins: seat 0 is void in spades
    t = Table45(ff.FortyFive(2, R(jink="wins_game")), deal, "7D")
    t.play(play)
    assert t.scores == [0, 30] and bool(t.state.game_over) and int(t.state.game_winner) == 1
    t = Table45(ENV2, deal, "7D")  # without the option 30 is just 30
    t.play(play)
    assert t.scores == [0, 30] and not t.state.game_over


# ---------------------------------------------------------------------------- robbing


def test_dealer_robs_turned_up_ace():
    t = Table45(ENV4, DEAL4, "AD")
    assert t.phase == "rob" and t.player == 0
    assert t.legal() == cards("2C 3C 4C 6C 8C") | {"PASS"}
    t.act("2C")
    assert t.hand(0) == cards("AD 3C 4C 6C 8C") and bool(t.state.robbed)
    assert t.phase == "play" and t.player == 1
    t.finish()


def test_holder_of_the_ace_robs():
    deal = ["2C 3C 4C 6C 8C", "5D JD KD QD 9S", "AD 3S 4S 6S 8S", "2H 3H 4H 6H 8H"]
    t = Table45(ENV4, deal, "7D")
    assert t.phase == "rob" and t.player == 2
    t.act("PASS")
    assert t.phase == "play" and t.player == 1 and not bool(t.state.robbed)
    t.finish()
