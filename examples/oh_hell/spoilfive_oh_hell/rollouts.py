"""The ``Rollouts`` capability: the base class's (``core.generic``), with each hand's bids kept
and the share of bids made in the summary."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from spoilfive_jax.core import generic
from spoilfive_jax.core.stats import RunStats, Values
from spoilfive_jax.core.validate import as_key

score_unit = generic.score_unit
rollout_deal = generic.rollout_deal
deal_states = generic.deal_states
hand_keys = generic.hand_keys
hands_won = generic.hands_won


def rollout_keys(env: Any, key: jax.Array) -> Any:
    """The run's key (the base's), refusing anything but a PRNG key or an int seed by name."""
    return generic.rollout_keys(env, as_key(key))


def deal_options(env: Any, dealer: Any = 0, carried: Any = 0, **options: Any) -> dict[str, int]:
    """``dealer`` deals every hand.  ``carried`` (Spoil Five's pot, which ``spoilfive rollout``
    passes to every game) must be 0: Oh Hell has no pot."""
    if isinstance(carried, bool) or not isinstance(carried, (int, np.integer)) or carried:
        raise ValueError(
            f"oh_hell has no pot to carry chips into: carried must be 0, got {carried!r}"
        )
    return generic.deal_options(env, dealer, **options)


def outcome(env: Any, state: Any, rewards: jax.Array) -> dict[str, jax.Array]:
    """The base record (rewards, tricks won, decisions) and the bids."""
    return {**generic.outcome(env, state, rewards), "bids": state.bids}


def hand_values(env: Any, record: dict[str, Any]) -> Values:
    """The base values, the bids (counted) and whether each seat made its bid (averaged)."""
    averaged, counted = generic.hand_values(env, record)
    made = record["bids"] == record["tricks_won"]
    return {**averaged, "bid_made": made}, {**counted, "bids": record["bids"]}


def summary_from_stats(env: Any, stats: RunStats, seconds: float) -> dict[str, Any]:
    """The base summary, and each seat's mean bid and share of bids made (with its s.e.)."""
    return {
        **generic.summary_from_stats(env, stats, seconds),
        "mean_bid": stats.share("bids"),
        "bid_made_rate": stats.mean("bid_made"),
        "bid_made_rate_se": stats.se("bid_made"),
    }
