"""The ``DeckDeals`` capability: a hand from a chosen order of the pack (card by card chance)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from spoilfive_jax.core.cards import NUM_CARDS
from spoilfive_jax.core.deal import deck_with_hands, first_state


def deck_size(env: Any) -> int:
    return NUM_CARDS


def deal_length(env: Any) -> int:
    """Five cards a seat and the turn-up; the rest of the pack is never seen."""
    return 5 * env.num_players + 1


def init_from_deck(env: Any, deck: np.ndarray, dealer: int) -> Any:
    return env.init_from_deck(np.asarray(deck, np.int32), dealer)


def deck_of(env: Any, state: Any) -> np.ndarray:
    """An order of the pack that deals ``state``'s hand: the hands as dealt, the turn-up."""
    first = first_state(env, state)
    return deck_with_hands(
        env, sys.modules[__name__], first, int(state.dealer), [int(state.turnup)]
    )


def reward_bounds(env: Any) -> tuple[float, float]:
    """A seat antes and may pay a jinker's bonus, or takes the pot (every ante, nothing carried
    into a hand dealt so) and the bonus from every other seat."""
    ante, bonus, n = env.rules.ante, env.rules.bonus, env.num_players
    return float(-(ante + bonus)), float((n - 1) * (ante + bonus))
