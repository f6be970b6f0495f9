"""The batch scorer (score_hands) and tournaments (evaluate): statistical soundness."""

from __future__ import annotations

import numpy as np
import pytest

import spoilfive_jax as sf

C = sf.parse_cards
FIVE = sf.make("spoil_five", 5)


def test_score_hands_contract_and_strong_beats_weak():
    hands = np.array([C("5H JH AH KH QH"), C("2D 3D 4C 6S 7S"), C("5D JD AH 2C 3S")])
    est = sf.score_hands(
        0,
        hands,
        [sf.card_id("9H"), sf.card_id("9H"), sf.card_id("KD")],
        [1, 1, 2],
        env=sf.make("spoil_five", 5),
        num_rollouts=1000,
    )
    for f in ("win_prob", "spoil_prob", "expected_chips"):
        assert getattr(est, f).shape == (3,) and getattr(est, f).dtype == np.float32
        assert getattr(est, f + "_se").shape == (3,)
    # The five top hearts with hearts trump win every hand (every trick, in fact).
    assert est.win_prob[0] == 1.0 and est.spoil_prob[0] == 0.0 and est.expected_chips[0] >= 4
    # Low plain cards almost never take three tricks; the 5, J and A♥ of trumps nearly always.
    assert est.win_prob[1] < 0.05 and est.win_prob[2] > 0.8
    assert est.expected_chips[2] > est.expected_chips[1] + 2
    assert "5♥ J♥ A♥ K♥ Q♥" in est.table(hands)  # cards for people


def test_score_hands_converges_like_one_over_sqrt_r():
    hand = [C("5D AH KD QC 9S")]  # wins about half the time: a stable spread estimate
    small = sf.score_hands(
        1, hand, sf.card_id("8D"), 3, env=sf.make("spoil_five", 5), num_rollouts=400
    )
    large = sf.score_hands(
        1, hand, sf.card_id("8D"), 3, env=sf.make("spoil_five", 5), num_rollouts=6400
    )
    ratio = small.expected_chips_se[0] / large.expected_chips_se[0]
    assert 3.2 < ratio < 4.8  # sqrt(6400 / 400) = 4
    assert abs(small.win_prob[0] - large.win_prob[0]) < 4 * small.win_prob_se[0]


def test_score_hands_suit_symmetry_under_random_play():
    """Swapping the two black suits (trump red) is a symmetry of the rules: same chances."""
    hand = C("KC 2C 9S 3S 7D")
    mirror = C("KS 2S 9C 3C 7D")
    est = sf.score_hands(
        2, [hand, mirror], sf.card_id("4D"), 2, env=sf.make("spoil_five", 4), num_rollouts=4000
    )
    diff = abs(est.win_prob[0] - est.win_prob[1])
    assert diff < 4 * np.hypot(est.win_prob_se[0], est.win_prob_se[1])
    chips = abs(est.expected_chips[0] - est.expected_chips[1])
    assert chips < 4 * np.hypot(est.expected_chips_se[0], est.expected_chips_se[1])


def test_score_hands_is_unbiased_against_plain_rollouts():
    """Averaged over random queries (a seat's hand and the turn-up of a random deal), the
    determinized estimates match the seat's win rate in ordinary rollouts."""
    n, seat, q = 4, 2, 300
    rng = np.random.default_rng(0)
    env = sf.spoil_five.SpoilFive(n)
    # Deck positions dealt to seat 2 (dealer 0, packets 2 then 3): 2, 3, then 11, 12, 13.
    rows = np.array([2, 3, 11, 12, 13])
    decks = np.stack([rng.permutation(52) for _ in range(q)])
    hands = decks[:, rows]
    turnup = decks[:, 5 * n]
    # Sanity of the positions: the public engine deals exactly these cards to seat 2.
    state = env.init_from_deck(decks[0].astype(np.int32), dealer=0)
    seat_cards = sf.core.bits.Bits(state.hands.lo[seat], state.hands.hi[seat])
    held = np.flatnonzero(np.asarray(sf.core.bits.to_bool(seat_cards, 52)))
    assert sorted(held.tolist()) == sorted(hands[0].tolist())
    est = sf.score_hands(3, hands, turnup, seat, env=sf.make("spoil_five", n), num_rollouts=40)
    direct = sf.rollout(4, env, "random", num_hands=20000)
    rate = (direct.winner == seat).mean()
    se = np.hypot(est.win_prob.std() / np.sqrt(q), np.sqrt(rate * (1 - rate) / 20000))
    assert abs(est.win_prob.mean() - rate) < 4 * se + 0.01


def test_score_hands_validation():
    with pytest.raises(ValueError, match="shape"):
        sf.score_hands(0, [[1, 2, 3]], 4, 1, env=FIVE)
    with pytest.raises(ValueError, match="duplicate"):
        sf.score_hands(0, [[1, 1, 2, 3, 4]], 9, 1, env=FIVE)
    with pytest.raises(ValueError, match="turn-up"):
        sf.score_hands(0, [[1, 2, 3, 4, 5]], 5, 1, env=FIVE)
    with pytest.raises(ValueError, match="outside"):
        sf.score_hands(0, [[1, 2, 3, 4, 52]], 9, 1, env=FIVE)
    with pytest.raises(ValueError, match="seat"):
        sf.score_hands(0, [[1, 2, 3, 4, 5]], 9, 5, env=FIVE)
    with pytest.raises(ValueError, match="num_rollouts"):
        sf.score_hands(0, [[1, 2, 3, 4, 5]], 9, 1, num_rollouts=1, env=FIVE)


def test_evaluate_heuristic_beats_random_with_confidence():
    res = sf.evaluate(
        5,
        sf.spoil_five.SpoilFive(5),
        {"heuristic": "heuristic", "random": "random"},
        num_hands=3000,
    )
    assert res.rotations == 10  # lcm(5 seats, 2 policies)
    h, r = res.names.index("heuristic"), res.names.index("random")
    assert res.mean_reward[h] - res.ci95[h] > res.mean_reward[r] + res.ci95[r]
    assert res.win_rate[h] > res.win_rate[r]
    assert "heuristic" in res.table() and "95% CI" in res.table()


def test_evaluate_same_policy_is_even():
    """Two copies of one policy: zero difference within the confidence interval."""
    res = sf.evaluate(6, sf.spoil_five.SpoilFive(4), {"a": "random", "b": "random"}, num_hands=3000)
    assert abs(res.mean_reward[0] - res.mean_reward[1]) < 2 * max(res.ci95)


@pytest.mark.parametrize(
    ("hands", "turnup", "seat", "words"),
    [
        ([[1, 2, 3, 4, 5], [6, 7, 8]], 20, 1, "hands must be a rectangular array"),
        (
            [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]],
            20,
            [1, 2, 3],
            r"seat must be one seat or one a hand \(2\)",
        ),
        (
            [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]],
            [20, 21, 22],
            1,
            r"turnup must be one card or one a hand",
        ),
    ],
    ids=["ragged-hands", "three-seats-two-hands", "three-turnups-two-hands"],
)
def test_query_shapes_are_checked_by_name(hands, turnup, seat, words) -> None:
    with pytest.raises(ValueError, match=words):
        sf.score_hands(0, hands, turnup, seat, env=sf.make("spoil_five", 3), num_rollouts=4)


@pytest.mark.parametrize("game", ["spoil_five", "forty_five"])
def test_a_table_labelled_with_other_hands_is_refused(game) -> None:
    hand = [1, 2, 3, 4, 5]
    est = sf.score_hands(0, [hand], 20, 1, env=sf.make(game, 4), num_rollouts=4)
    assert len(est.table([hand]).splitlines()) == 2 and est.table(hand) == est.table([hand])
    with pytest.raises(ValueError, match="2 hands for scores of 1 query"):
        est.table([hand, hand])
