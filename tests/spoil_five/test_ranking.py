"""Cards and ranking (docs/rules.md#ranking, #mistakes-implementations-commonly-make): every row of
the ranking tables for all four trump suits, checked as lists (``sf.trump_order`` /
``sf.plain_order``), as the engine's strength arithmetic, and by playing every pair of cards to a
real trick through the compiled engine."""

from __future__ import annotations

import itertools

import jax
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core import cards as cards_mod
from spoilfive_jax.core import ranking
from spoilfive_jax.games.spoil_five import game

C, D, H, S = 0, 1, 2, 3
SUIT = {"C": C, "D": D, "H": H, "S": S}

# docs/rules.md#ranking, written out literally, highest first.
TRUMP_ROWS = {
    # red (D): 5, J, A♥, A, K, Q, 10, 9, 8, 7, 6, 4, 3, 2
    "D": "5D JD AH AD KD QD 10D 9D 8D 7D 6D 4D 3D 2D",
    # hearts: 5♥, J♥, A♥, K, Q, 10, 9, 8, 7, 6, 4, 3, 2 (13 trumps: the A♥ once)
    "H": "5H JH AH KH QH 10H 9H 8H 7H 6H 4H 3H 2H",
    # black (C, S): 5, J, A♥, A, K, Q, 2, 3, 4, 6, 7, 8, 9, 10
    "C": "5C JC AH AC KC QC 2C 3C 4C 6C 7C 8C 9C 10C",
    "S": "5S JS AH AS KS QS 2S 3S 4S 6S 7S 8S 9S 10S",
}
PLAIN_ROWS = {
    # red: K, Q, J, 10, ..., 2, A (A lowest); plain hearts have 12 cards (the A♥ is a trump)
    "D": "KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D AD",
    "H": "KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H",
    # black: K, Q, J, A, 2, 3, ..., 10
    "C": "KC QC JC AC 2C 3C 4C 5C 6C 7C 8C 9C 10C",
    "S": "KS QS JS AS 2S 3S 4S 5S 6S 7S 8S 9S 10S",
}


def ids(text: str) -> list[int]:
    return sf.parse_cards(text)


# ---------------------------------------------------------------------------- the tables as lists


@pytest.mark.parametrize("trump", "CDHS")
def test_trump_order_is_the_table_row(trump):
    row = ids(TRUMP_ROWS[trump])
    assert sf.trump_order(SUIT[trump]) == row
    assert len(row) == (13 if trump == "H" else 14)
    # Top trumps: 5 of trumps, J of trumps, A♥, in that order.
    assert row[:3] == ids(f"5{trump} J{trump} AH")


@pytest.mark.parametrize("trump", "CDHS")
@pytest.mark.parametrize("suit", "CDHS")
def test_plain_order_is_the_table_row(trump, suit):
    if suit == trump:
        assert sf.plain_order(SUIT[suit], SUIT[trump]) == []  # the trump suit has no plain cards
        return
    assert sf.plain_order(SUIT[suit], SUIT[trump]) == ids(PLAIN_ROWS[suit])


@pytest.mark.parametrize("trump", "CDHS")
def test_strength_tables_follow_the_rows(trump):
    t = SUIT[trump]
    row = ids(TRUMP_ROWS[trump])
    strength = cards_mod.TRUMP_STRENGTH[t]
    # strictly decreasing along the row; exactly the row's cards are trumps
    assert all(strength[a] > strength[b] for a, b in itertools.pairwise(row))
    assert sorted(np.flatnonzero(strength >= 0).tolist()) == sorted(row)
    # the top trumps have fixed strengths whatever the suit (the renege levels rely on it)
    assert [int(strength[c]) for c in row[:3]] == list(cards_mod.TOP_TRUMP_STRENGTHS)
    for suit in "CDHS":
        plain = ids(PLAIN_ROWS[suit])
        ps = cards_mod.PLAIN_STRENGTH
        assert all(ps[a] > ps[b] for a, b in itertools.pairwise(plain))


def test_engine_strength_arithmetic_matches_the_tables():
    # game.trump_strength / plain_strength compute by arithmetic what cards.py tabulates.
    all_cards = np.arange(52)
    for t in range(4):
        got = np.asarray(jax.jit(game.trump_strength)(all_cards, t))
        assert got.tolist() == cards_mod.TRUMP_STRENGTH[t].tolist()
    # tabulated on the host from the same arithmetic, inside a trace too (the family's kernel
    # layout reads its trump strengths so: forty_five.strength.tables)
    np.testing.assert_array_equal(
        ranking.tabulate(game.trump_strength, 52), cards_mod.TRUMP_STRENGTH
    )
    inside = jax.jit(lambda: ranking.tabulate(game.trump_strength, 52).sum())()
    assert int(inside) == int(cards_mod.TRUMP_STRENGTH.sum())
    got = np.asarray(jax.jit(game.plain_strength)(all_cards))
    expected = cards_mod.PLAIN_STRENGTH.copy()
    expected[26] = got[26]  # the A♥ is never plain: its plain strength is never used
    assert got.tolist() == expected.tolist()


# ---------------------------------------------------------------------------- §9 pitfalls


def test_pitfall1_ace_of_hearts_is_a_trump_in_every_suit_and_never_a_heart():
    for t in range(4):
        assert 26 in sf.trump_order(t)
        assert 26 not in sf.plain_order(H, t)
    assert len(sf.plain_order(H, C)) == 12  # plain hearts: 12 cards


def test_pitfall4_number_orders():
    # black trump: 2 high, 10 low (after the K, Q)
    spades = sf.trump_order(S)
    assert spades.index(sf.card_id("2S")) < spades.index(sf.card_id("10S"))
    assert spades[-1] == sf.card_id("10S") and spades[6] == sf.card_id("2S")
    # red trump: 10 high, 2 low
    diamonds = sf.trump_order(D)
    assert diamonds.index(sf.card_id("10D")) < diamonds.index(sf.card_id("2D"))
    assert diamonds[-1] == sf.card_id("2D")
    # red plain: A lowest; black plain: A between the J and the 2, 10 lowest
    assert sf.plain_order(D, S)[-1] == sf.card_id("AD")
    clubs = sf.plain_order(C, D)
    assert clubs[2:5] == ids("JC AC 2C") and clubs[-1] == sf.card_id("10C")


def test_pitfall5_hearts_trump_has_13_trumps_and_one_ace_of_hearts():
    hearts = sf.trump_order(H)
    assert len(hearts) == len(set(hearts)) == 13
    assert hearts.count(26) == 1
    assert int((cards_mod.TRUMP_STRENGTH[H] >= 0).sum()) == 13
    for t in (C, D, S):
        assert int((cards_mod.TRUMP_STRENGTH[t] >= 0).sum()) == 14


# ---------------------------------------------------------------------------- tricks in the engine

# Every pair of cards is played to a real two-player trick by the compiled engine: dealer 0,
# so seat 1 (eldest) leads ``lead`` and seat 0 answers ``answer``.  Fillers are plain cards of
# the remaining suit(s), so the answer is always legal: a trump answer is legal against any
# lead, a same-suit answer follows, and against a plain lead a player holding neither that
# suit nor a trump may play anything.  Robbing is off so play starts at once.
TRICK_ENV = sf.spoil_five.SpoilFive(2, sf.spoil_five.Rules(rob="off"))


def _trick_cases():
    cases = []  # (trump, lead, answer, winning seat)
    for trump in "CDHS":
        t = SUIT[trump]
        trumps = ids(TRUMP_ROWS[trump])
        # Two trumps: the one listed first in the row wins, whichever was led.
        for hi, lo in itertools.combinations(trumps, 2):
            cases += [(t, hi, lo, 1), (t, lo, hi, 0)]
        for suit in "CDHS":
            if suit == trump:
                continue
            plain = ids(PLAIN_ROWS[suit])
            # Two plain cards of the suit led: the one listed first wins.
            for hi, lo in itertools.combinations(plain, 2):
                cases += [(t, hi, lo, 1), (t, lo, hi, 0)]
            # Any trump beats any plain card led, the lowest trump the highest plain card.
            for p, tr in itertools.product(plain, trumps):
                cases.append((t, p, tr, 0))
            # A card of a third suit never wins: the lowest card led beats any other suit.
            for other in "CDHS":
                if other not in (suit, trump):
                    for x in ids(PLAIN_ROWS[other]):
                        cases.append((t, plain[-1], x, 1))
    return cases


def _deal(t: int, lead: int, answer: int) -> tuple[list[list[int]], int]:
    trumps = set(sf.trump_order(t))
    used_suits = {lead // 13, answer // 13, t}
    fillers = [c for c in range(52) if c not in trumps and c // 13 not in used_suits]
    turnup = next(c for c in sf.trump_order(t) if c not in (lead, answer) and c // 13 == t)
    return [[answer, *fillers[4:8]], [lead, *fillers[:4]]], turnup


def test_every_pair_of_cards_decides_a_real_trick():
    cases = _trick_cases()
    deals = [_deal(t, lead, answer) for t, lead, answer, _ in cases]
    hands = np.array([h for h, _ in deals], np.int32)
    turnups = np.array([u for _, u in deals], np.int32)
    leads = np.array([c[1] for c in cases], np.int32)
    answers = np.array([c[2] for c in cases], np.int32)
    assert (turnups // 13 == np.array([c[0] for c in cases])).all()

    def trick(hand, turnup, lead, answer):
        s = TRICK_ENV.init_from_deal(hand, turnup)
        s = TRICK_ENV.step(s, lead)
        s = TRICK_ENV.step(s, answer)
        return s.tricks_won, s.illegal, s.current_player

    tricks, illegal, to_lead = jax.jit(jax.vmap(trick))(hands, turnups, leads, answers)
    tricks, illegal, to_lead = map(np.asarray, (tricks, illegal, to_lead))
    assert not illegal.any()
    winners = np.array([c[3] for c in cases])
    wrong = np.flatnonzero(tricks[np.arange(len(cases)), winners] != 1)
    assert not wrong.size, [
        (sf.card_str(cases[i][1]), sf.card_str(cases[i][2]), "CDHS"[cases[i][0]])
        for i in wrong[:10]
    ]
    assert (tricks.sum(1) == 1).all()
    assert (to_lead == winners).all()  # the winner leads the next trick
    assert len(cases) > 4000
