"""The shared tools with the Forty-Five family: ``sf.rollout``, ``sf.score_hands``,
``sf.evaluate`` and the command line (``--game``).

Compiles dominate the cost (several seconds each on a busy CPU), so the file keeps to a few
configurations and shares them: the rollout, ``evaluate`` and the CLI rollout all play
Forty-Five at 4 players with ``[greedy, random, greedy, random]``-style seatings in batches of
``B`` (one compile), the scorer and the CLI score use one more, Auction one more.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax import cli
from spoilfive_jax.games import forty_five as ff

B = 256  # the batch of every Forty-Five rollout here (one compile per policy set)
SEATS = ["greedy", "random", "greedy", "random"]
ENV = sf.forty_five.FortyFive(4)
HANDS = 512


@pytest.fixture(scope="module")
def result() -> sf.RolloutResult:
    return sf.rollout(7, ENV, SEATS, HANDS, batch_size=B)


def team_tricks(out: sf.RolloutResult) -> np.ndarray:
    """int[H, T]: tricks per team (seat s plays for team s % T)."""
    t = ENV.num_teams
    return np.stack([out.tricks_won[:, i::t].sum(1) for i in range(t)], axis=1)


# ---------------------------------------------------------------------------- rollout


def test_rollout_fields_and_scoring(result: sf.RolloutResult) -> None:
    out = result
    assert out.game == "forty_five" and out.env == ENV and out.num_hands == HANDS
    assert out.rewards.shape == (HANDS, 4) and out.rewards.dtype == np.float32
    assert out.team_points.shape == (HANDS, 2) and out.team_points.dtype == np.int32
    assert out.tricks_won.shape == (HANDS, 4)
    assert (out.tricks_won.sum(1) == 5).all()
    # Each seat gets its team's points; partners the same.
    np.testing.assert_array_equal(out.rewards, out.team_points[:, [0, 1, 0, 1]])
    # best_trump: 5 a trick, plus 5 to ONE team when a trump fell: 25 or 30 a hand.  (An
    # illegal greedy move would show up here as -30 points.)
    bonus = out.team_points - 5 * team_tricks(out)
    assert set(np.unique(bonus)) <= {0, 5}
    assert (bonus.sum(1) <= 5).all()
    assert set(np.unique(out.team_points.sum(1))) <= {25, 30}
    assert (out.team_points.sum(1) == 30).mean() > 0.9
    # No pot, no announced jink, no auction in plain Forty-Five.
    assert "winner" not in out.fields and "carried_out" not in out.fields  # Spoil Five's
    assert not out.jinked.any() and (out.bid == 0).all() and (out.bidder == -1).all()
    assert (out.decisions >= 20).all() and (out.decisions <= ENV.max_decisions).all()
    assert out.robbed.any() and ((out.robber >= 0) | ~out.robbed).all()


def test_summary_is_about_points_and_teams(result: sf.RolloutResult) -> None:
    s = result.summary()
    assert s["hands"] == HANDS and s["game"] == "forty_five"
    np.testing.assert_allclose(s["mean_team_points"], result.team_points.mean(0))
    np.testing.assert_allclose(s["mean_points"], s["mean_team_points"][[0, 1, 0, 1]])
    assert (s["mean_points_se"] > 0).all()
    assert s["team_tricks"].shape == (2, 6)
    np.testing.assert_allclose(s["team_tricks"].sum(1), 1.0)
    np.testing.assert_allclose(s["team_tricks"][0], s["team_tricks"][1][::-1])  # 5 - k
    np.testing.assert_allclose(s["mean_team_tricks"].sum(), 5.0)
    assert (s["team_win_rate"] + s["team_win_rate"][::-1] <= 1).all()  # the rest: ties
    # The greedy partnership (seats 0 and 2) outscores the random one, far beyond the noise.
    gap = s["mean_team_points"][0] - s["mean_team_points"][1]
    assert gap > 5 * np.hypot(*s["mean_team_points_se"])
    assert np.isnan(s["bid_made_rate"]) and s["jink_rate"] == 0
    won = result.hands_won()
    np.testing.assert_array_equal(
        won, ENV.capability(sf.capabilities.Rollouts).hands_won(ENV, result)
    )
    assert won.shape == (HANDS, 4)
    np.testing.assert_allclose(won.mean(0), s["team_win_rate"][[0, 1, 0, 1]])


def test_same_key_same_hands_whatever_the_batch(result: sf.RolloutResult) -> None:
    small = sf.rollout(7, ENV, SEATS, 300, batch_size=100)  # other batch, other chunking
    for f in ("rewards", "tricks_won", "decisions", "team_points", "robbed", "robber"):
        np.testing.assert_array_equal(getattr(small, f), getattr(result, f)[:300], err_msg=f)
    other = sf.rollout(8, ENV, SEATS, 300, batch_size=100)
    assert not np.array_equal(other.tricks_won, small.tricks_won)


def test_policies_the_family_takes() -> None:
    # The family's own heuristic answers to the name (and to Spoil Five's built-in object).
    assert (
        sf.rollout(0, ENV, ["random", sf.spoil_five.HEURISTIC, "random", "random"], 10).num_hands
        == 10
    )
    with pytest.raises(ValueError, match=r"unknown policy 'smart'.*'random', 'greedy'"):
        sf.rollout(0, ENV, "smart", 10)
    with pytest.raises(ValueError, match="one per seat"):
        sf.rollout(0, ENV, ["random", "greedy"], 10)
    with pytest.raises(ValueError, match="carried is Spoil Five's pot"):
        sf.rollout(0, ENV, "random", 10, carried=2)
    with pytest.raises(ValueError, match=r"dealer must be 0\.\.3"):
        sf.rollout(0, ENV, "random", 10, dealer=4)
    with pytest.raises(ValueError, match="env must be a game environment"):
        sf.rollout(0, "forty_five", "random", 10)  # type: ignore[arg-type]


def test_auction_bids_and_setbacks() -> None:
    env = sf.forty_five.AuctionFortyFives(4)
    out = sf.rollout(3, env, ["greedy", "random", "random", "greedy"], 128, batch_size=128)
    assert out.game == "auction_forty_fives" and not out.robbed.any()
    assert set(np.unique(out.bid)) <= {15, 20, 25, 30} and (out.bidder >= 0).all()
    made = 5 * team_tricks(out)  # + the best-trump bonus to one team
    rows = np.arange(out.num_hands)
    bid_team = out.bidder % 2
    other = 1 - bid_team
    extra = out.team_points[rows, other] - made[rows, other]
    assert set(np.unique(extra)) <= {0, 5}  # the other team scores what it made
    got = out.team_points[rows, bid_team]
    failed = got < 0
    assert (got[failed] == -out.bid[failed]).all()  # set back by the bid
    assert (got[~failed] >= out.bid[~failed]).all()
    s = out.summary()
    assert 0 <= s["bid_made_rate"] <= 1 and 15 <= s["mean_bid"] <= 30


# ---------------------------------------------------------------------------- score_hands

STRONG = ff.parse_cards("5H JH AH KH QH")  # the five top hearts with hearts trumps
WEAK = ff.parse_cards("2C 3C 4D 6S 7S")
R = 256


@pytest.fixture(scope="module")
def scores() -> sf.forty_five.FamilyScores:
    est = sf.score_hands(
        1, [STRONG, WEAK], ff.card_id("9H"), 1, policy="greedy", num_rollouts=R, env=ENV
    )
    assert isinstance(est, sf.forty_five.FamilyScores)
    return est


def test_score_hands_strong_and_weak(scores: sf.forty_five.FamilyScores) -> None:
    est = scores
    assert est.game == "forty_five" and est.num_rollouts == R and est.threshold == 15
    assert est.expected_points.shape == (2,) and est.expected_points.dtype == np.float32
    # Five top trumps take every trick: 25 + the bonus.
    assert est.expected_points[0] == pytest.approx(30.0)
    assert est.reach_prob[0] == 1.0 and est.expected_tricks[0] == 5.0
    assert est.expected_points_se[0] == 0.0
    # Five low plain cards: the partner has to do the work.
    assert est.expected_points[1] < 20 and est.expected_points_se[1] > 0
    assert 0 < est.reach_prob[1] < 1 and 0 < est.expected_tricks[1] < 5
    assert est.expected_points[0] - est.expected_points[1] > 10 * est.expected_points_se[1]
    text = est.table([STRONG, WEAK])
    assert "5♥ J♥ A♥ K♥ Q♥" in text and "P(>=15)" in text  # cards for people


def test_score_hands_rules_form_and_determinism(scores: sf.forty_five.FamilyScores) -> None:
    again = sf.score_hands(
        1,
        [STRONG, WEAK],
        ff.card_id("9H"),
        1,
        num_players=4,
        rules=sf.forty_five.FortyFiveRules(),
        policy="greedy",
        num_rollouts=R,
        batch_size=4 * R,  # (rounded down to the 2 * R rollouts there are)
    )
    np.testing.assert_array_equal(again.expected_points, scores.expected_points)
    np.testing.assert_array_equal(again.reach_prob, scores.reach_prob)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"turnup": None}, "turnup is required"),
        ({"turnup": ff.JOKER}, "turnup must be a card id 0..51"),
        ({"turnup": ff.card_id("5H")}, "turn-up 5♥ is also in the hand"),
        ({"hands": [[ff.JOKER, 1, 2, 3, 4]]}, "outside 0..51 \\(no joker"),
        ({"hands": [[0, 0, 2, 3, 4]]}, "duplicate cards"),
        ({"seat": 4}, "seat must be 0..3"),
        ({"num_players": 5}, "num_players=5 but env has 4"),
        ({"env": sf.forty_five.AuctionFortyFives(4)}, "Auction Forty-Fives has no turn-up"),
    ],
)
def test_score_hands_bad_input(kwargs: dict, message: str) -> None:
    args = {"hands": [STRONG], "turnup": ff.card_id("9H"), "seat": 1, "env": ENV} | kwargs
    with pytest.raises(ValueError, match=message):
        sf.score_hands(0, **args)


# ---------------------------------------------------------------------------- evaluate


def test_evaluate_greedy_beats_random() -> None:
    res = sf.evaluate(5, ENV, {"greedy": "greedy", "random": "random"}, HANDS // 2, B)
    assert res.unit == "points" and res.rotations == 4 and res.hands == HANDS // 2
    g, r = res.mean_reward
    assert g - r > 3 * (res.ci95[0] + res.ci95[1])
    assert 25 <= g + r <= 30  # each deal's points, shared by the two partnerships
    assert res.win_rate[0] > res.win_rate[1]
    assert "points/hand" in res.table()
    with pytest.raises(ValueError, match="unknown policy 'smart'"):
        sf.evaluate(0, ENV, ["smart", "random"], 10)


# ---------------------------------------------------------------------------- command line


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = cli.main(list(argv))
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_cli_rollout_matches_the_library(
    capsys: pytest.CaptureFixture[str], result: sf.RolloutResult
) -> None:
    argv = ["rollout", "--game", "forty_five", "--policy", ",".join(SEATS), "--seed", "7"]
    argv += ["--hands", str(HANDS), "--batch", str(B), "--quiet"]
    rc, out, err = run(capsys, *argv, "--json", "-")
    assert rc == 0, err
    data = json.loads(out)
    assert data["game"] == "forty_five" and data["players"] == 4
    assert data["rules"]["variant"] == "forty_five" and data["policies"] == SEATS
    np.testing.assert_allclose(data["mean_team_points"], result.team_points.mean(0))
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    assert "Forty-Five · 512 hands · 4 players (0&2 v 1&3)" in out
    assert "points/hand" in out and "robbed" in out


def test_cli_score(capsys: pytest.CaptureFixture[str], scores: sf.forty_five.FamilyScores) -> None:
    argv = ["score", "5H JH AH KH QH", "2C 3C 4D 6S 7S", "--turnup", "9H", "--seat", "1"]
    argv += ["--game", "forty_five", "--policy", "greedy", "--rollouts", str(R), "--seed", "1"]
    rc, out, err = run(capsys, *argv, "--json", "-")
    assert rc == 0, err
    hands = json.loads(out)["hands"]
    assert [h["hand"] for h in hands] == ["5H JH AH KH QH", "2C 3C 4D 6S 7S"]
    assert hands[0]["turnup"] == "9H" and hands[0]["team"] == 1
    np.testing.assert_allclose([h["expected_points"] for h in hands], scores.expected_points)
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    assert "+30.00 ± 0.00" in out and "P(>=15) %" in out


def test_cli_rules_with_the_joker(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "rules", "H", "--game", "forty_five", "--joker")
    assert rc == 0
    assert "Rules (Forty-Five)" in out and "joker=on (below_AH)" in out
    assert "Trump hearts ♥: 14 trumps, highest first" in out
    assert "5♥ J♥ A♥ JK K♥ Q♥ 10♥ 9♥ 8♥ 7♥ 6♥ 4♥ 3♥ 2♥" in out
    assert "top trumps (may be reneged): 5♥ J♥ A♥ JK" in out
    rc, out, _ = run(
        capsys, "rules", "C", "--game", "auction_forty_fives", "--joker-rank", "above_AH"
    )
    assert "Rules (Auction Forty-Fives)" in out and "JK" not in out  # no --joker: no joker
    rc, out, _ = run(
        capsys, "rules", "C", "--game", "auction_forty_fives", "--joker", "--joker-rank", "above_AH"
    )
    assert "5♣ J♣ JK A♥ A♣ K♣" in out and "target=120" in out and "auction:" in out


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["rollout", "--game", "forty_five", "--policy", "smart"], "use random, greedy, heuristic"),
        (["rollout", "--game", "forty_five", "--ante", "2"], "one of spoil_five"),
        (["rollout", "--game", "forty_five", "--carried", "2"], "carried is Spoil Five's"),
        (["rollout", "--target", "30"], "--target is not an option of --game spoil_five"),
        (["rollout", "--jink", "announced"], "use --jink or --no-jink"),
        (["rollout", "--game", "auction_forty_fives", "--scoring", "hoyle"], 'scores "best_trump"'),
        (["rollout", "--game", "auction_forty_fives", "--jink", "announced"], 'must be "off"'),
        (["rollout", "--game", "fifty_five"], "invalid choice: 'fifty_five'"),
        (["score", "5H JK AH KD 2C", "--turnup", "9H", "--game", "forty_five"], "add --joker"),
        (
            ["score", "5H JH AH KD 2C", "--turnup", "9H", "--game", "auction_forty_fives"],
            "no turn-up",
        ),
        (["score", "5H JH AH KD 2C 9H", "--game", "auction_forty_fives"], "got 6"),
        (["tournament", "--game", "twenty_five", "smart", "random"], "unknown policy 'smart'"),
        (["play", "--game", "forty_five", "--bots", "smart"], "use random, greedy, heuristic"),
    ],
)
def test_cli_bad_input_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("spoilfive: error: "), err
    assert fragment in lines[0], lines[0]


def test_cli_family_per_hand_json_and_csv(tmp_path):
    """Per-hand outputs of a family rollout: team points and tricks per hand, same in both."""
    import csv
    import json

    from spoilfive_jax.cli import main

    js, cs = tmp_path / "hands.json", tmp_path / "hands.csv"
    argv = ["rollout", "--game", "forty_five", "--hands", "64", "--batch", "64", "--per-hand"]
    assert main([*argv, "--json", str(js), "--csv", str(cs)]) == 0
    hands = json.loads(js.read_text())["hands"]
    rows = list(csv.DictReader(cs.open()))
    assert len(hands) == len(rows) == 64
    for rec, row in zip(hands, rows, strict=True):
        assert sum(rec["tricks"]) == 5 and sum(rec["team_points"]) in (25, 30)
        assert [int(row["points_team_0"]), int(row["points_team_1"])] == rec["team_points"]
