"""Streaming (``per_hand=False``): every run tool can summarise its hands in memory that does not
grow with their number, and gives the summary of the same hands played per hand: counts and
means exactly (integer values, sums exact in float32 per batch), standard errors to float32
rounding (``SE_RTOL``); hand ``i`` is keyed by ``i`` alone, past 2**32 too.

Small tables, and one batch size (``B``, which divides no run size here) for every run of a game,
so each tool compiles once per game and path.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.stats import NoPerHand, merge_stats
from spoilfive_jax.tools.chunks import EPOCH, epoch_key, hand_chunks, run_keys
from spoilfive_jax.tools.conformance import summary_differences
from spoilfive_jax.tools.rollout import rollout_range

SE_RTOL = 1e-5
B = 16  # the batch of every run: 300 hands are 2 calls (16 batches a call), the last one partial
HANDS = 300
ENVS = {
    "spoil_five": sf.make("spoil_five", num_players=2),
    "forty_five": sf.make("forty_five", num_players=2),
    "auction_forty_fives": sf.make("auction_forty_fives", num_players=2),
}
GAMES = list(ENVS)


# Random play at every seat in every run, evaluate's two entrants too (playing alike): one
# lineup, so each game's rollouts compile once.
ENTRANTS = {"first": "random", "second": "random"}


def assert_same_summary(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Standard errors to ``SE_RTOL``; everything else (counts, rates, means) exactly."""
    assert summary_differences(a, b, rtol=SE_RTOL) == []
    for k in a:
        if not (k.endswith("_se") or k.endswith("_per_s")):
            x, y = np.asarray(a[k]), np.asarray(b[k])
            same = np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
            assert same, (k, a[k], b[k])


@pytest.mark.parametrize("game", GAMES)
def test_rollout_streamed_summary_is_the_per_hand_one(game: str) -> None:
    env = ENVS[game]
    whole = sf.rollout(3, env, "random", HANDS, B)
    streamed = sf.rollout(3, env, "random", HANDS, B, per_hand=False)
    assert not streamed.per_hand and streamed.fields == {} and streamed.num_hands == HANDS
    assert_same_summary(whole.summary(), streamed.summary())
    # chunking: two ranges of the run (cut inside a batch), pooled, are the whole run
    head = rollout_range(3, env, "random", 0, 137, B, per_hand=False)
    tail = rollout_range(3, env, "random", 137, HANDS, B, per_hand=False)
    pooled = sf.RolloutResult({}, env, stats=merge_stats(head.stats, tail.stats))
    assert_same_summary(whole.summary(), pooled.summary())
    # the state kept does not grow with the hands: the same shapes for a run of 40
    small = sf.rollout(3, env, "random", 40, B, per_hand=False)
    shapes = [np.shape(x) for x in jax.tree.leaves(streamed.stats)]
    assert shapes == [np.shape(x) for x in jax.tree.leaves(small.stats)]
    assert all(HANDS not in s for s in shapes)


def test_streamed_rollout_independent_of_the_batch() -> None:
    env = ENVS["spoil_five"]
    a = sf.rollout(3, env, "random", HANDS, B, per_hand=False)
    b = sf.rollout(3, env, "random", HANDS, 64, per_hand=False)  # one call, other batches
    assert_same_summary(a.summary(), b.summary())


def test_a_call_reduces_only_the_batches_its_hands_fill(monkeypatch: pytest.MonkeyPatch) -> None:
    """A streamed call's statistics are reduced over the batches that hold its hands, not over
    all 16 of the call (a run of one batch spent about a tenth of its time reducing 15 empty
    ones), rounded up to a power of two (a program each): 300 hands of batch 16 are a call of
    16 batches and one of 4 (44 hands fill 3)."""
    from spoilfive_jax.tools import rollout as rollout_module

    used = [rollout_module.batches_used(16, 16, 16 * n - 1) for n in range(1, 17)]
    assert used == [1, 2, 4, 4] + [8] * 4 + [16] * 8
    assert rollout_module.batches_used(16, 16, 44) == 4
    assert rollout_module.batches_used(16, 16, 256) == 16
    assert rollout_module.batches_used(16, 16384, 16384) == 1
    reduced: list[tuple[int, int]] = []
    real = rollout_module._chunk_stats

    def spy(env: Any, k: int, used: int, records: Any, count: Any) -> Any:
        out = real(env, k, used, records, count)
        reduced.append((used, int(np.shape(out["hands"])[0])))
        return out

    monkeypatch.setattr(rollout_module, "_chunk_stats", spy)
    env = ENVS["spoil_five"]
    streamed = sf.rollout(3, env, "random", HANDS, B, per_hand=False)
    assert reduced == [(16, 16), (4, 4)]
    assert_same_summary(sf.rollout(3, env, "random", HANDS, B).summary(), streamed.summary())


def test_per_hand_fields_of_a_streamed_result_raise() -> None:
    env = ENVS["spoil_five"]
    streamed = sf.rollout(3, env, "random", HANDS, B, per_hand=False)
    with pytest.raises(NoPerHand, match=r"'rewards'.*per_hand=False.*pass per_hand=True"):
        _ = streamed.rewards
    with pytest.raises(AttributeError, match="per_hand=True"):  # NoPerHand is one
        streamed.hands_won()
    assert not hasattr(streamed, "winner")
    sessions = sf.play_sessions(0, env, "random", 20, max_hands=6, batch_size=B, per_hand=False)
    for name in ("stacks", "chips_by_hand", "winner"):
        with pytest.raises(NoPerHand, match="pass per_hand=True"):
            getattr(sessions, name)
    family = ENVS["forty_five"]
    games = sf.play_sessions(0, family, "random", 20, max_hands=6, batch_size=B, per_hand=False)
    with pytest.raises(NoPerHand, match="pass per_hand=True"):
        _ = games.points_by_hand


@pytest.mark.parametrize("game", GAMES)
def test_evaluate_streamed_is_the_per_hand_one(game: str) -> None:
    env = ENVS[game]
    a = sf.evaluate(5, env, ENTRANTS, 150, B)
    b = sf.evaluate(5, env, ENTRANTS, 150, B, per_hand=False)
    assert (a.names, a.hands, a.rotations, a.unit) == (b.names, b.hands, b.rotations, b.unit)
    np.testing.assert_array_equal(a.win_rate, b.win_rate)
    np.testing.assert_allclose(a.mean_reward, b.mean_reward, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(a.ci95, b.ci95, rtol=SE_RTOL)


SCORE_HANDS = np.array([[0, 1, 2, 3, 4], [10, 11, 25, 40, 51]], np.int32)


@pytest.mark.parametrize("game", GAMES)
def test_score_hands_streamed_is_the_per_hand_one(game: str) -> None:
    env = ENVS[game]
    turnup = None if game == "auction_forty_fives" else 20
    kw: dict[str, Any] = {"env": env, "policy": "random", "num_rollouts": 90, "batch_size": B}
    a = sf.score_hands(2, SCORE_HANDS, turnup, [1, 0], **kw)
    b = sf.score_hands(2, SCORE_HANDS, turnup, [1, 0], per_hand=False, **kw)
    assert type(a) is type(b)
    for name, x in vars(a).items():
        y = getattr(b, name)
        if name.endswith("_se"):
            np.testing.assert_allclose(x, y, rtol=SE_RTOL, atol=1e-7)
        else:
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("game", GAMES)
def test_play_sessions_streamed_is_the_per_hand_one(game: str) -> None:
    env = ENVS[game]
    kw: dict[str, Any] = {"max_hands": 6, "batch_size": B}
    a = sf.play_sessions(4, env, "random", 37, **kw)
    b = sf.play_sessions(4, env, "random", 37, per_hand=False, **kw)
    assert_same_summary(a.summary(), b.summary())
    more = sf.play_sessions(4, env, "random", 70, per_hand=False, **kw)
    assert {k: np.shape(v) for k, v in b.totals.items()} == {
        k: np.shape(v) for k, v in more.totals.items()
    }


@pytest.mark.parametrize("bad", [0, 1, None, "no", 1.0])
def test_per_hand_must_be_a_bool(bad: Any) -> None:
    env = ENVS["spoil_five"]
    match = "per_hand must be True or False"
    with pytest.raises(ValueError, match=match):
        sf.rollout(0, env, "random", 8, per_hand=bad)
    with pytest.raises(ValueError, match=match):
        sf.evaluate(0, env, ["random", "heuristic"], 8, per_hand=bad)
    with pytest.raises(ValueError, match=match):
        sf.score_hands(0, SCORE_HANDS, 20, 1, env=env, num_rollouts=4, per_hand=bad)
    with pytest.raises(ValueError, match=match):
        sf.play_sessions(0, env, "random", 4, per_hand=bad)


def test_per_hand_runs_stay_below_2_32_hands() -> None:
    env = ENVS["spoil_five"]
    with pytest.raises(ValueError, match=r"below 2\*\*32 with per_hand=True"):
        sf.rollout(0, env, "random", EPOCH)


# ---------------------------------------------------------------------------- keys past 2**32


def test_hand_chunks_cut_at_every_epoch() -> None:
    chunks = list(hand_chunks(EPOCH - 5, EPOCH + 20, 16))
    assert [(c.start, c.epoch, c.first, c.hands) for c in chunks] == [
        (EPOCH - 5, 0, EPOCH - 5, 5),
        (EPOCH, 1, 0, 16),
        (EPOCH + 16, 1, 16, 4),
    ]
    assert sum(c.hands for c in hand_chunks(0, 10**12, 1 << 28)) == 10**12
    # sessions of 2**30 hands: four sessions an epoch
    chunks = list(hand_chunks(0, 7, 3, epoch_size=4))
    assert [(c.epoch, c.first, c.hands) for c in chunks] == [(0, 0, 3), (0, 3, 1), (1, 0, 3)]
    key = jax.random.PRNGKey(9)
    assert epoch_key(key, 0) is key  # hands below 2**32 keep their keys
    one, two = epoch_key(key, 1), epoch_key(key, 2)
    assert np.array_equal(one, epoch_key(key, 1)) and not np.array_equal(one, two)
    # a counter no 32-bit fold_in reaches: not the key of any hand id, nor a split of the key
    assert not np.array_equal(one, jax.random.fold_in(key, 0))
    typed = epoch_key(jax.random.key(9), 1)
    assert np.array_equal(jax.random.key_data(typed), one)


@pytest.mark.parametrize("game", ["spoil_five", "forty_five"])
def test_hands_past_2_32_are_new_and_keyed_by_their_index(game: str) -> None:
    """Hands 2**32 - 8 .. 2**32 + 7 (16: the batch of the other runs) straddle the end of the
    first epoch: no hand repeats an earlier one, and they are the same hands when the range is
    cut elsewhere."""
    env = ENVS[game]
    start = EPOCH - 8
    out = rollout_range(1, env, "random", start, start + 16, B)
    shifted = rollout_range(1, env, "random", start - 2, start + 14, B)  # other call boundaries
    for name, x in out.fields.items():
        np.testing.assert_array_equal(x[:14], shifted.fields[name][2:], err_msg=name)
    # the deals themselves: hands 2**32 + j are not hands j (a wrapped uint32 id would be)
    rollouts = env.capability(caps.Rollouts)
    opts = {k: jnp.full(8, v, jnp.int32) for k, v in rollouts.deal_options(env).items()}
    ids = jnp.arange(8, dtype=jnp.uint32)
    key = jax.random.PRNGKey(1)
    deal = jax.jit(rollouts.rollout_deal, static_argnums=0)
    deals = [
        deal(env, run_keys(env, key, 0), ids + jnp.uint32(EPOCH - 8), opts),
        deal(env, run_keys(env, key, 1), ids, opts),
        deal(env, run_keys(env, key, 0), ids, opts),
    ]
    decks = np.concatenate([_decks(d) for d in deals])  # hands 2**32-8.., 2**32.., 0..
    assert len({row.tobytes() for row in decks}) == 24
    again = deal(env, run_keys(env, key, 1), ids, opts)
    np.testing.assert_array_equal(_decks(again), decks[8:16])


def _decks(deal: Any) -> np.ndarray:
    """int[B, K]: every card array of a batch of deals, side by side."""
    leaves = [np.asarray(x) for x in jax.tree.leaves(deal)]  # [B], or [K, B] (the family's deck)
    return np.column_stack([x if x.ndim == 1 else x.T for x in leaves])
