"""A policy that plays illegal actions is counted and reported: every rollout record has
``illegal``, every summary ``illegal_rate``, and the run warns (``RuntimeWarning``) when it is
above zero, so statistics of hands cut short by an illegal action are never silent."""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf


def lowest_legal(key, state, player):
    return jnp.argmax(state.legal_action_mask).astype(jnp.int32)


def out_of_range(key, state, player):
    return jnp.int32(999)


# (Spoil Five's hands are counted and warned of, per hand and streamed, by default below, with
# a bad seat: its case here runs under -m slow; the family's record of ``illegal`` is seen here)
@pytest.mark.parametrize("game", [pytest.param("spoil_five", marks=pytest.mark.slow), "forty_five"])
def test_illegal_hands_are_counted_and_warned_of(game: str) -> None:
    env = sf.make(game, 3)
    for per_hand in (True, False):  # (one compile serves both)
        with pytest.warns(RuntimeWarning, match=r"256 of 256 hands \(100.00%\) ended on an illeg"):
            out = sf.rollout(0, env, out_of_range, 256, batch_size=128, per_hand=per_hand)
        assert out.summary()["illegal_rate"] == 1.0
    one = sf.rollout(0, env, out_of_range, 8, batch_size=128)
    assert one.illegal.dtype == bool and one.illegal.all()


def test_only_the_hands_a_bad_seat_spoils_are_counted() -> None:
    env = sf.make("spoil_five", 3)

    def bad_seat_two(key, state, player):  # seat 2 is illegal on its first decision
        return jnp.where(player == 2, jnp.int32(999), lowest_legal(key, state, player))

    with pytest.warns(RuntimeWarning, match="ended on an illegal action"):
        out = sf.rollout(0, env, [lowest_legal, lowest_legal, bad_seat_two], 512)
    # a hand ends on seat 2's first decision unless it is over before seat 2 acts
    assert 0.9 < out.summary()["illegal_rate"] <= 1.0
    assert out.summary()["illegal_rate"] == pytest.approx(np.mean(out.illegal))
    streamed = sf.rollout(0, env, [lowest_legal, lowest_legal, bad_seat_two], 512, per_hand=False)
    assert streamed.summary()["illegal_rate"] == out.summary()["illegal_rate"]


@pytest.mark.parametrize("policy", ["heuristic", lowest_legal], ids=["kernel", "public step"])
def test_legal_play_has_no_illegal_hands_and_no_warning(policy) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = sf.rollout(0, sf.make("spoil_five", 4), policy, 300)
    assert out.summary()["illegal_rate"] == 0.0 and not out.illegal.any()
