"""The strategy study's building blocks (examples/study) on tiny runs: shapes and sane ranges.

The numbers themselves come from ``examples/strategy_study.py``; these runs are far too small
to say anything about the game.  The questions that analyse positions of their own (the rob,
the renege and the jink in Spoil Five; the five of trumps and the partner's suit in the
family) are marked slow, each adds 20-50 s of compiling: ``pytest -m slow
tests/project/test_study.py`` runs them; ``test_paired_values_share_worlds`` keeps the
analysis path in the default run."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

import strategy_study
from study import common, family
from study import spoil_five as s5

import spoilfive_jax as sf


def _in_unit(x: float) -> bool:
    return 0.0 <= x <= 1.0


def test_mean_and_proportion_intervals() -> None:
    m = common.mean_ci([1.0, 2.0, 3.0, 4.0])
    assert m["mean"] == pytest.approx(2.5)
    assert m["ci95"] == pytest.approx(1.96 * np.std([1, 2, 3, 4], ddof=1) / 2)
    p = common.prop_ci([True] * 30 + [False] * 70)
    assert p["mean"] == pytest.approx(0.3)
    assert p["lo"] < 0.3 < p["hi"] and p["n"] == 100
    assert common.prop_ci([])["n"] == 0 and math.isnan(common.mean_ci([])["mean"])


def test_jink_break_even_formula() -> None:
    assert s5.jink_break_even(5, 1, 5) == pytest.approx(5 / 9)
    assert s5.jink_break_even(5, 1, 5, carried_share=0.2) == pytest.approx(0.5)
    assert s5.jink_break_even(25, 1, 5) == pytest.approx(25 / 29)
    table = s5.break_even_table([4, 5], [0, 10])
    assert len(table) == 4 and all(_in_unit(r["p_lost"]) for r in table)
    assert all(r["p_shared"] < r["p_lost"] for r in table)


def test_win_by_holding_shapes() -> None:
    res = s5.win_by_holding(1, 4, 512)
    assert [r["group"] for r in res["by_top"]] == [0, 1, 2, 3]
    assert len(res["by_trumps"]) == 6 and len(res["by_seat"]) == 4
    assert len(res["by_top_and_trumps"]) == 4 and len(res["by_top_and_trumps"][0]) == 6
    assert _in_unit(res["overall"]["mean"])
    assert sum(r["n"] for r in res["by_top"]) == res["hands"] // 2


def test_family_heuristic_is_its_own_player() -> None:
    # The study hands the family heuristic itself to sf.analyze and pimc (the full run was made
    # when the library still read the family's *name* "heuristic" as greedy there).
    env = sf.forty_five.FortyFive(4)
    assert getattr(common.policy_of(env, "heuristic"), "policy_name", None) == "heuristic"
    assert getattr(common.policy_of(env, "greedy"), "policy_name", None) == "greedy"
    assert common.policy_of(sf.spoil_five.SpoilFive(4), "heuristic") is sf.spoil_five.HEURISTIC
    assert getattr(common.pimc_of(env, 2).rollout_policy, "policy_name", None) == "heuristic"


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_paired_values_share_worlds() -> None:
    got = common.collect(2, sf.spoil_five.SpoilFive(4), "heuristic", 64, s5._is_rob)
    pos = common.take(got.positions, np.arange(6))
    same = np.full((6, 2), sf.spoil_five.PASS)
    v = common.paired_values(
        1, sf.spoil_five.SpoilFive(4), pos, same, "heuristic", num_worlds=2, batch=4
    )
    assert v.shape == (6, 2)
    np.testing.assert_array_equal(v[:, 0], v[:, 1])  # one world, one key: the same playout
    assert np.all(np.abs(v) <= 4 * 20)


@pytest.mark.slow  # an analysis compile of its own positions
def test_rob_value_shapes() -> None:
    res = s5.rob_value(1, 4, 64, 4, check="heuristic", check_positions=5)
    assert res["check"]["positions"] == min(5, res["positions"])
    assert math.isfinite(res["check"]["gain"]["mean"])
    assert res["check"]["groups"][0]["group"] == "decline better"
    assert 0 < res["positions"] <= 64
    assert math.isfinite(res["gain_best"]["mean"])
    # the best rob is chosen on one analysis and valued on an independent one, so on a tiny run
    # it may come out a little below the heuristic's discard, never far
    assert res["gain_best"]["mean"] >= res["gain_heuristic_discard"]["mean"] - 0.5
    assert _in_unit(res["decline_better"]["mean"])
    assert sum(res["best_discard"].values()) == pytest.approx(1.0)


@pytest.mark.slow  # an analysis compile of its own positions
def test_renege_value_shapes() -> None:
    res = s5.renege_value(1, 4, 2048, 4)
    assert res["positions"] > 0
    assert len(res["by_trick"]) == 5 and len(res["by_card"]) == 3
    assert _in_unit(res["withhold_better"]["mean"])
    assert abs(res["gain_withhold"]["mean"]) < 10


def test_spoiler_plays_legal_cards() -> None:
    got = common.collect(3, sf.spoil_five.SpoilFive(4), "heuristic", 2048, s5._is_renege)
    actions = common.policy_actions(s5.spoiler, got.positions)
    legal = np.asarray(jax.vmap(lambda s: s.legal_action_mask)(got.positions))
    assert got.led.shape == (actions.size, 4)
    assert legal[np.arange(actions.size), actions].all()


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_spoil_vs_win_shapes() -> None:
    res = s5.spoil_vs_win(1, 4, 384, carried=(0, 8), seats=(1,), extra={"again": s5.spoiler})
    assert len(res["d_value"]) == 9 and len(res["d_win"]) == 9
    again = res["extra_vs_heuristic"]["again"]  # the same seat policy on the same deals
    assert again["all_d_value"]["mean"] == pytest.approx(res["all_d_value"]["mean"])
    assert set(res["weak_rates"]) == {"heuristic", "spoiler", "again"}
    assert all(_in_unit(r["win"]["mean"]) for r in res["weak_rates"].values())
    assert [r["carried"] for r in res["weak_value_by_carried"]] == [0, 8]
    assert all(abs(r["mean"]) <= 1 for r in res["d_win"] if r["n"])
    assert _in_unit(res["weak_share"])


@pytest.mark.slow  # an analysis compile of its own positions
def test_jink_decisions_and_rates() -> None:
    res = s5.jink_decisions(1, 4, 1024, 4, [0, 10])
    assert res["positions"] > 0 and sum(res["p_hist"]) == res["positions"]
    assert _in_unit(res["p_jink_wins"]["mean"])
    assert [r["carried"] for r in res["jink_right_by_carried"]] == [0, 10]
    rates = s5.jink_rates(1, 4, 512, "heuristic")
    assert _in_unit(rates["jink_rate"]["mean"])


def test_seat_advantage_adds_up() -> None:
    res = s5.seat_advantage(1, 4, 2048)
    total = sum(r["mean"] for r in res["win_by_seat"]) + res["spoil_rate"]["mean"]
    assert total == pytest.approx(1.0)
    assert len(res["chips_by_seat"]) == 4


@pytest.mark.slow  # two more compiles (collect and analyze on Forty-Five): run with -m slow
def test_five_of_trumps_shapes() -> None:
    res = family.five_of_trumps(1, 128, 4, check="greedy", check_positions=4)
    assert res["check"]["positions"] == min(4, res["positions"])
    assert len(res["check"]["groups"]) == 3
    assert res["positions"] > 0 and len(res["by_situation"]) == 3
    assert sum(r["n"] for r in res["by_situation"]) == res["positions"]
    assert abs(res["gain_keep_five"]["mean"]) <= 60


@pytest.mark.slow
def test_partner_suit_shapes() -> None:
    res = family.partner_suit(1, 512, 4)
    assert res["positions"] > 0 and _in_unit(res["same_card_share"])
    assert abs(res["true_gain"]["mean"]) <= 60 and abs(res["analysis_gain"]["mean"]) <= 60


def test_merge_meta_flags_mixed_runs() -> None:
    run = {"size": "quick", "seed": 1, "commit": "abc", "seconds": 1.0}
    results = {"q1": {}, "q2": {}, "meta": {"questions": {"q1": run}}}
    assert strategy_study.merge_meta(results, {"q2": run})["consistent"]
    mixed = strategy_study.merge_meta(results, {"q2": {**run, "size": "full"}})
    assert not mixed["consistent"] and set(mixed["sizes"]) == {"quick", "full"}


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_auction_make_rates_shapes() -> None:
    res = family.auction_make_rates(1, 512)
    assert res["bids"] == 512
    assert [r["group"] for r in res["by_bid"]] == [15, 20, 25, 30]
    reach = [res["reach_any_bidder"][str(b)]["mean"] for b in (15, 20, 25, 30)]
    assert reach == sorted(reach, reverse=True) and all(_in_unit(x) for x in reach)
    assert all(_in_unit(r["mean"]) for r in res["by_holding"])
