"""The ``DeckDeals`` capability: a hand from a chosen order of the pack (card by card chance)."""

from __future__ import annotations

from typing import Any

import numpy as np

from spoilfive_jax.games.forty_five.state import deck_prefix


def deck_size(env: Any) -> int:
    """52 cards, 53 with the joker."""
    return int(env.rules.deck_size)


def deal_length(env: Any) -> int:
    """The hands, the turn-up (and the card turned after a joker) or, in Auction, the stock."""
    return int(deck_prefix(env.num_players, env.rules))


def init_from_deck(env: Any, deck: np.ndarray, dealer: int) -> Any:
    return env.init_from_deck(np.asarray(deck, np.int32), dealer)


def reward_bounds(env: Any) -> tuple[float, float]:
    """A team's points for the hand: all five tricks (and the best trump), doubled by a made
    jink announcement or a made bid of 30; an Auction side that fails its bid loses it (30 at
    most)."""
    rules = env.rules
    top = 10 if rules.scoring == "hoyle" else 5 * 5 + (5 if rules.bonus else 0)
    if rules.jink == "announced" or rules.auction:
        top *= 2
    return (-30.0 if rules.auction else 0.0), float(top)
