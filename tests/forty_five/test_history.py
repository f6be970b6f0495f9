"""Forty-Five family positions from text (``FortyFive.position_from_history``): turn-ups, robs,
the joker exchange, jink announcements, Auction bids, trump named and exchanges replay into a
state with the given hand and public record; impossible histories give one-line errors."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.games.forty_five.game import PHASE_DISCARD, PHASE_PLAY

FF = sf.forty_five.FortyFive(4, sf.forty_five.FortyFiveRules(follow="seed"))
BASE = "players=4; dealer=0; rules=forty_five,follow=seed; turnup=7D; "
JOKER = sf.forty_five.FortyFive(4, sf.forty_five.FortyFiveRules(joker=True, jink="announced"))
JBASE = "players=4; dealer=0; rules=forty_five,joker=on,jink=announced; turnup=JK 7D; "
AUCTION = sf.forty_five.FortyFive(4, sf.forty_five.FortyFiveRules.auction_forty_fives())
ABASE = "players=4; dealer=3; rules=auction; scores=30/110; "
BIDS = "0:pass 1:20 2:pass 3:hold 1:pass 3:trump:H"
EXCHANGES = "0:exchange:3 1:exchange:5 2:exchange:2C,3C:JH,AH 3:exchange:1"


def cards(state, seat: int) -> set[str]:
    word = int(state.hands.lo[seat]) | int(state.hands.hi[seat]) << 32
    return {sf.card_str(c) for c in range(53) if word >> c & 1}


def bits_of(pair, seat: int) -> set[str]:
    word = int(pair.lo[seat]) | int(pair.hi[seat]) << 32
    return {sf.card_str(c) for c in range(53) if word >> c & 1}


def test_plays_become_a_state():
    s = sf.position_from_history(FF, BASE + "player=3; hand=8H QS JS 2H 3C; history=1:QC 2:5C")
    assert int(s.current_player) == 3 and int(s.leader) == 1
    assert cards(s, 3) == {"8H", "QS", "JS", "2H", "3C"}
    assert int(s.trump) == 1 and int(s.trick_num) == 0
    assert {sf.card_str(int(c)) for c in np.asarray(s.trick_cards) if c >= 0} == {"QC", "5C"}
    # a completed trick: seat 0 showed no club and no trump (seed following)
    s = sf.position_from_history(
        FF, BASE + "player=3; hand=8H QS JS 2H; history=1:QC 2:5C 3:KC 0:2S"
    )
    assert int(s.trick_num) == 1 and int(s.tricks_won[3]) == 1 and int(s.current_player) == 3
    assert {"AC", "AD", "5D", "AH"} <= bits_of(s.cannot_hold, 0)
    assert not cards(s, 0) & {"AC", "AD", "5D", "JD", "AH"}


def test_robs_by_another_seat_and_by_the_player():
    s = sf.position_from_history(
        FF, BASE + "player=3; hand=8H QS JS 2H 4C; history=1:rob 1:QC 2:KC"
    )
    assert bool(s.robbed) and int(s.robber) == 1 and "7D" in cards(s, 1)
    assert len(cards(s, 1) | bits_of(s.discards, 1)) == 5 and "AD" in cards(s, 1) | bits_of(
        s.discards, 1
    )
    mine = sf.position_from_history(FF, BASE + "player=1; hand=8H QS JS AD 7D; history=1:rob:4C")
    assert bool(mine.robbed) and bits_of(mine.discards, 1) == {"4C"}
    assert int(mine.current_player) == 1 and int(mine.phase) == PHASE_PLAY
    res = sf.analyze(0, FF, s, num_samples=32, policy="random")
    assert set(np.flatnonzero(res.legal)) <= {sf.card_id(c) for c in ("8H", "QS", "JS", "2H", "4C")}


def test_the_joker_exchange_and_a_jink():
    own = "player=0; hand=8H QS JS JK 3C; history=0:joker:2H 1:pass 2:pass 3:pass"
    s = sf.position_from_history(JOKER, JBASE + own)
    assert bool(s.joker_up) and bits_of(s.discards, 0) == {"2H"} and int(s.current_player) == 0
    s = sf.position_from_history(JOKER, JBASE + "player=1; hand=8H QS JS 2H 3C; history=0:joker")
    assert "JK" in cards(s, 0) and len(bits_of(s.discards, 0)) == 1
    assert int(s.current_player) == 1  # the announcements, from the eldest hand
    s = sf.position_from_history(
        JOKER, JBASE + "player=2; hand=8H QS JS 2H 3C; history=0:joker 1:jink 1:QC"
    )
    assert int(s.jinker) == 1 and "JK" in cards(s, 0) and int(s.current_player) == 2


def test_an_auction_with_bids_trump_and_exchanges():
    s = sf.position_from_history(
        AUCTION, ABASE + f"player=1; hand=5H JH AH KC 4S; history={BIDS} 0:exchange:3"
    )
    assert int(s.bid) == 20 and int(s.bidder) == 3 and int(s.trump) == 2
    assert list(np.asarray(s.scores)) == [30, 110]
    assert int(s.current_player) == 1 and int(s.phase) == PHASE_DISCARD
    assert len(bits_of(s.discards, 0)) == 3 and int(s.stock_top) == 3
    s = sf.position_from_history(
        AUCTION, ABASE + f"player=2; hand=5H JH AH KC 4S; history={BIDS} {EXCHANGES} 0:QC 1:KH"
    )
    assert cards(s, 2) == {"5H", "JH", "AH", "KC", "4S"} and bits_of(s.discards, 2) == {"2C", "3C"}
    assert int(s.stock_top) == 11 and int(s.current_player) == 2
    res = sf.analyze(0, AUCTION, s, num_samples=32, policy="random")
    legal = {sf.card_str(int(a)) for a in np.flatnonzero(res.legal)}
    assert legal == {"5H", "JH", "AH", "KC"}  # a club was led: follow it or trump (seed: 4S not)
    assert np.all(np.isfinite(res.expected_points[res.legal]))


def test_the_sampled_worlds_replay_the_public_record():
    s = sf.position_from_history(
        AUCTION, ABASE + f"player=2; hand=5H JH AH KC 4S; history={BIDS} {EXCHANGES} 0:QC 1:KH"
    )
    analysis = AUCTION.capability(sf.capabilities.Analysis)
    resample = jax.jit(analysis.resample_hidden, static_argnums=0)  # (op by op: seconds a call)
    for k in range(4):
        world = jax.device_get(resample(AUCTION, jax.random.PRNGKey(k), s, 2))
        held = [cards(world, seat) for seat in range(4)]
        assert held[2] == cards(s, 2) and [len(h) for h in held] == [4, 4, 5, 5]
        assert not any({"QC", "KH"} & h for h in held)
        assert [len(bits_of(world.discards, seat)) for seat in range(4)] == [3, 5, 2, 1]


@pytest.mark.parametrize(
    "env,text,message",
    [
        (FF, BASE + "player=3; hand=8H QS JS 2H QC; history=1:QC 2:5C", "seen twice"),
        (FF, BASE + "player=3; hand=8H QS JS; history=1:QC 2:5C", "wrong number of cards"),
        (FF, BASE + "player=3; hand=8H QS JS 2H 3C; history=2:QC", "out of turn"),
        (FF, BASE + "player=1; hand=8H QS JS 2H 7D; history=1:rob:4C", "cannot rob"),
        (FF, BASE + "player=3; hand=AD QS JS 2H 4C; history=1:rob 1:QC 2:KC", "cannot rob"),
        (FF, BASE + "player=2; hand=QS JS 2H 3C; history=1:QC 2:8H", "illegal"),
        (FF, BASE + "player=2; hand=8H QS JS 2H 3C; history=1:7D", "turn-up"),
        (FF, BASE + "player=9; hand=8H; history=", "player must be a seat"),
        (FF, BASE + "player=1; hand=8H QS JS 2H 3C; history=1:15", "no bid now"),
        (AUCTION, "players=4; rules=auction; turnup=7D; player=0; hand=8H", "no turn-up"),
        (FF, BASE.replace("7D", "JK 7D") + "player=0; hand=8H QS JS 2H 3C", "joker=on"),
        (AUCTION, ABASE + "player=1; hand=5H JH AH KC 4S; history=0:20 1:15", "illegal"),
        (AUCTION, ABASE + "player=1; hand=5H JH AH KC 4S; history=0:pass 1:trump:H", "no trump"),
        (AUCTION, ABASE + "player=1; hand=5H JH AH KC 4S; history=0:exchange:6", "at most 5"),
        (AUCTION, ABASE + "player=1; hand=5H JH AH KC 4S; history=0:pass 1:20 9:pass", "0..3"),
        (
            AUCTION,
            ABASE + f"player=2; hand=5H JH AH KC 4S; history={BIDS} 0:exchange:0 "
            "1:exchange:0 2:exchange:2C:QS",
            "no longer has it",
        ),
    ],
)
def test_impossible_histories_raise_one_line_errors(env, text, message):
    with pytest.raises(ValueError, match=message) as info:
        sf.position_from_history(env, text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "env,text,blamed",
    [
        # seat 0 shows no club and no trump on trick 1, then plays a club on trick 2: the club
        # is the move to blame, not the earlier discard that a world dealt for the whole
        # history breaks
        (
            FF,
            BASE + "player=3; hand=QS JS 10S; history=1:QC 2:5C 3:2H 0:2S 1:4C 2:6C 3:8H 0:9C",
            "move 8 (0:9C)",
        ),
        # after the exchanges seat 1 shows no club and no trump, then follows a spade lead
        # with a club
        (
            AUCTION,
            ABASE + f"player=2; hand=5H JH AH; history={BIDS} {EXCHANGES} "
            "0:QC 1:2S 2:KC 3:3D 2:4S 3:5S 0:6S 1:7C",
            "move 18 (1:7C)",
        ),
    ],
)
def test_a_void_contradicted_later_names_the_contradicting_move(env, text, blamed):
    with pytest.raises(ValueError, match="no deal of the unseen cards") as info:
        sf.position_from_history(env, text)
    assert str(info.value).startswith(blamed + " is illegal for seat"), info.value
