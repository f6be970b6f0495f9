"""Terminal play of the Forty-Five family (``games.forty_five.play``), driven in-process
through text streams: refused moves and their reasons, the auction, whole games, quitting."""

from __future__ import annotations

import io
import re
import sys

import jax
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.cli import main
from spoilfive_jax.games.forty_five import parse_cards
from spoilfive_jax.games.forty_five.play import FamilyGame, Quit, play_family

FORTY_FIVE = sf.forty_five.FortyFive(4, sf.forty_five.FortyFiveRules())
AUCTION = sf.forty_five.FortyFive(4, sf.forty_five.FortyFiveRules(variant="auction"))
KEY = jax.random.PRNGKey(0)


def deal(*hands: str) -> np.ndarray:
    return np.array([parse_cards(h) for h in hands])


def drive(env: sf.forty_five.FortyFive, state: sf.games.forty_five.State, script: str) -> str:
    """Play ``state`` with the human at seat 0 from ``script`` until it runs out."""
    out = io.StringIO()
    game = FamilyGame(env, io.StringIO(script), out, human=0, bots="greedy")
    with pytest.raises(Quit):
        game.play_hand(state, KEY)
    return out.getvalue()


def test_must_follow_suit() -> None:
    # Spades are trumps; seat 3 (eldest, dealer 2) leads a club; you hold one club and no trump.
    hands = deal("3C 4D 6D 7D 8D", "2H 3H 4H 6H 7H", "8H 9H 10H JH QH", "KC QC JC 10C 9C")
    state = FORTY_FIVE.init_from_deal(hands, turnup=parse_cards("2S")[0], dealer=2)
    text = drive(FORTY_FIVE, state, "4D\nxx\n3♣\n")  # cards typed as shown are read
    assert "Turn-up 2♠: spades are trumps." in text
    assert "Your hand: 3♣ 4♦ 6♦ 7♦ 8♦" in text
    assert re.search(r"Trick 1 so far \(clubs led\): seat 3 ([KQJ9]|10)♣; winning: seat 3", text)
    assert re.search(r"\n  3\s+1\s+0  \[4 cards\]\s+([KQJ9]|10)♣ \(led, winning\)\n", text)
    assert re.search(r"\n> 0 you\s+0\s+0  3♣ 4♦ 6♦ 7♦ 8♦\n", text)  # the seat table
    assert "Not allowed: you hold clubs, so you must follow clubs or trump: 3♣." in text
    assert "not a card or a move: 'xx'" in text
    assert "You play 3♣." in text
    assert re.search(r"Trick 1: seat \d wins with \S+\. Tricks: you & seat 2 \d", text)


def test_the_joker_out_of_play_is_named_as_such() -> None:
    """Without --joker, JK is named as out of play, not as a card the player lacks."""
    hands = deal("3C 4D 6D 7D 8D", "2H 3H 4H 6H 7H", "8H 9H 10H JH QH", "KC QC JC 10C 9C")
    state = FORTY_FIVE.init_from_deal(hands, turnup=parse_cards("2S")[0], dealer=2)
    text = drive(FORTY_FIVE, state, "JK\njoker\n")
    assert text.count("Not allowed: the joker (JK) is not in play: add --joker.") == 2
    assert "you do not hold JK" not in text


def test_top_trump_may_not_be_withheld_from_a_higher_lead() -> None:
    # Seat 3 leads the 5 of trumps: your jack of trumps outranks nothing led, so it must go.
    hands = deal("JS 4D 6D 7D 8D", "2H 3H 4H 6H 7H", "8H 9H 10H JH QH", "5S KC QC JC 10C")
    state = FORTY_FIVE.init_from_deal(hands, turnup=parse_cards("2S")[0], dealer=2)
    text = drive(FORTY_FIVE, state, "4D\nJS\n")
    assert "Seat 3 leads 5♠." in text
    assert "Not allowed: a trump (5♠) was led and you hold J♠: play a trump" in text
    assert "your J♠ may not be withheld: 5♠, the trump led, outranks it (renege=led)" in text
    assert "You play J♠." in text
    assert "Trick 1: seat 3 wins with 5♠." in text


def test_auction_bids_hold_and_trump() -> None:
    # You deal; seat 1 (strong in hearts) bids 15, seats 2 and 3 pass.
    hands = deal("KS QS JS 10S 9S", "5H JH AH KH QH", "2C 3D 4S 6C 7D", "8C 9D 3S JC QD")
    state = AUCTION.init_from_deal(hands, dealer=0)
    text = drive(AUCTION, state, "15\nhold\npass\ndone\n")
    assert "Seat 1 bids 15.\nSeat 2 passes.\nSeat 3 passes." in text
    assert "[1] bid 20  [2] bid 25  [3] bid 30  [4] hold at 15  [5] pass" in text
    assert "Not allowed: a bid must be higher than the standing bid of 15 (or hold)." in text
    assert "You hold at 15.\nSeat 1 bids 20.\n" in text
    assert "You pass.\nSeat 1 names hearts.\nTrumps are hearts." in text
    assert "Trumps: hearts ♥, named by seat 1 (bid 20)." in text
    assert "Discard a card to draw a new one (32 left in the stock), or done:" in text


def test_whole_game_of_forty_five() -> None:
    out = io.StringIO()
    result = play_family(FORTY_FIVE, io.StringIO("1\n" * 400), out, seed=3)
    text = out.getvalue()
    assert result.game_over and not result.quit and max(result.scores) >= 45
    assert text.count("=== Hand ") == result.hands_played > 1
    assert "=== Hand 1 · you dealt · game to 45: you & seat 2 0, seat 1 & seat 3 0 ===" in text
    assert re.search(r"Hand over: you & seat 2 \d tricks?, [+-]\d+; seat 1 & seat 3 ", text)
    assert re.search(r"Scores: you & seat 2 \d+, seat 1 & seat 3 \d+ \(game to 45\)", text)
    assert re.search(r"Game over: (you & seat 2 win|seat 1 & seat 3 wins) \(", text)


def test_auction_hands_cap_and_quitting() -> None:
    out = io.StringIO()
    result = play_family(AUCTION, io.StringIO("1\n" * 400), out, hands=1, bots="random")
    text = out.getvalue()
    assert result.hands_played == 1 and not result.game_over and not result.quit
    assert "Auction: bid 15, 20, 25 or 30 (or pass); the winner names trump." in text
    assert "Stopping after 1 hand." in text
    assert re.search(r"(You|Seat \d) bids? (15|20|25|30)\.", text)
    for script in ("q\n", "", "help\n"):  # q, the end of input, help then the end of input
        out = io.StringIO()
        result = play_family(AUCTION, io.StringIO(script), out, human=1)
        assert result.quit and result.hands_played == 0
        assert out.getvalue().endswith("You left the table.\n")
    assert "Type a number from the list" in out.getvalue()


def test_play_command(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 40))
    rc = main(["play", "--game", "forty_five", "--hands", "1"])
    out = capsys.readouterr().out
    assert rc == 0
    assert out.startswith(
        "Forty-Five: you are seat 0 of 4 (0&2 v 1&3), against heuristic bots; a game to 45, "
        "1 hand at most."
    )
    assert "Hand over:" in out and "Stopping after 1 hand." in out
    assert main(["play", "--game", "auction_forty_fives", "--bots", "smart"]) == 2
