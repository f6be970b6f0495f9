"""The ``DeckDeals`` capability: a hand dealt from a chosen order of the pack, one card to each
seat in turn from the dealer's left, then the trump card turned up."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from spoilfive_jax.core.deal import deck_with_hands, first_state
from spoilfive_oh_hell.rules import BONUS, NUM_CARDS


def deck_size(env: Any) -> int:
    return NUM_CARDS


def deal_length(env: Any) -> int:
    return env.num_players * env.rules.num_tricks + 1


def init_from_deck(env: Any, deck: np.ndarray, dealer: int) -> Any:
    n, t = env.num_players, env.rules.num_tricks
    order = np.asarray(deck, np.int32)
    by_turn = order[: n * t].reshape(t, n)  # round r gives card r*n + i to the i-th seat left
    seats = (dealer + 1 + np.arange(n)) % n
    hands = np.empty((n, t), np.int32)
    hands[seats] = by_turn.T
    return env.init_from_deal(hands, order[n * t], dealer)


def deck_of(env: Any, state: Any) -> np.ndarray:
    """An order of the pack that deals ``state``'s hand: the hands as dealt, the trump card."""
    first = first_state(env, state)
    head = [int(state.trump_card)]
    return deck_with_hands(env, sys.modules[__name__], first, int(state.dealer), head)


def reward_bounds(env: Any) -> tuple[float, float]:
    """Every trick and the bonus for the bid made; off the bid, a point lost a trick of the
    difference (``off_bid_penalty``) or nothing."""
    ppt, t = env.rules.points_per_trick, env.rules.num_tricks
    low = -ppt * t if env.rules.off_bid_penalty else 0
    return float(low), float(ppt * t + BONUS)
