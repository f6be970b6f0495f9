"""Positions from text (``SpoilFive.position_from_history``): a history replays into a state with
the given hand and public record; impossible or inconsistent histories give one-line errors."""

from __future__ import annotations

import pytest

import spoilfive_jax as sf

ENV = sf.spoil_five.SpoilFive(3)
BASE = "players=3; dealer=0; rules=seed; turnup=7D; "


def cards(state, seat: int) -> set[str]:
    word = int(state.hands.lo[seat]) | int(state.hands.hi[seat]) << 32
    return {sf.card_str(c) for c in range(52) if word >> c & 1}


def test_a_history_becomes_a_state():
    s = sf.position_from_history(
        ENV, BASE + "player=2; hand=8H QS JS 2H; history=1:QC 2:5C 0:2S 1:3C"
    )
    assert int(s.current_player) == 2
    assert cards(s, 2) == {"8H", "QS", "JS", "2H"}
    assert int(s.trick_num) == 1 and int(s.tricks_won[1]) == 1
    # seat 0 threw a spade on a club lead: under the seed rule it holds no club and no trump
    shown = int(s.cannot_hold.lo[0]) | int(s.cannot_hold.hi[0]) << 32
    assert shown >> sf.card_id("KC") & 1 and shown >> sf.card_id("5D") & 1
    assert not cards(s, 0) & {"KC", "5D", "AH"}


def test_a_rob_by_another_seat():
    s = sf.position_from_history(
        ENV, BASE + "player=0; hand=2C 8H QS JS 4H; history=1:rob 1:QC 2:KC"
    )
    assert bool(s.robbed) and int(s.robber) == 1
    assert "7D" in cards(s, 1)
    res = sf.analyze(0, ENV, s, num_samples=64, policy="random")
    assert res.legal.sum() == 1 and res.legal[sf.card_id("2C")]


@pytest.mark.parametrize(
    "text,message",
    [
        ("player=2; hand=5C 8H QS JS QC; history=1:QC", "seen twice"),
        ("player=2; hand=5C 8H QS; history=1:QC", "wrong number of cards"),
        ("player=1; hand=5C 8H QS JS 2H; history=2:QC", "out of turn"),
        ("player=0; hand=2C 8H QS JS 4H; history=2:rob 1:QC", "is to act, not player 0"),
        ("player=2; hand=5C QS JS 2H; history=1:QC 2:8H 0:2C 1:4C", "illegal"),
        ("player=2; hand=8H QS JS 2H 3H; history=1:7D", "turn-up"),
        ("player=0; hand=2C 8H QS JS 4H; history=1:QC 2:2H 0:2C 1:3C 2:3C", "seen twice"),
        ("player=9; hand=2C; history=", "player must be a seat"),
        ("player=0; hand=XX; history=", "not a card"),
        ("player=0; hand=2C 8H QS JS 4H; nonsense=1", "unknown position field"),
    ],
)
def test_impossible_histories_raise_one_line_errors(text, message):
    with pytest.raises(ValueError, match=message) as info:
        sf.position_from_history(ENV, BASE + text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "text,blamed",
    [
        # seat 0 shows no club on trick 1, then plays a club on trick 2: no deal allows that,
        # and the move to blame is the club (a world dealt for the whole history breaks the
        # earlier discard instead)
        (BASE + "player=2; hand=QS JS 2H; history=1:QC 2:5C 0:2S 1:3C 2:8H 0:4C", "move 6 (0:4C)"),
        (
            "players=3; dealer=0; turnup=9D; player=0; hand=6H 8C 10D JH; "
            "history=1:KS 2:4H 0:2S 1:3S 2:5S",
            "move 5 (2:5S)",
        ),
    ],
)
def test_a_void_contradicted_later_names_the_contradicting_move(text, blamed):
    with pytest.raises(ValueError, match="no deal of the unseen cards") as info:
        sf.position_from_history(ENV, text)
    assert str(info.value).startswith(blamed + " is illegal for seat"), info.value
