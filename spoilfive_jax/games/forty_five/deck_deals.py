"""The ``DeckDeals`` capability: a hand from a chosen order of the pack (card by card chance)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from spoilfive_jax.core.deal import deck_with_hands, first_state
from spoilfive_jax.games.forty_five.rules import num_teams
from spoilfive_jax.games.forty_five.state import JOKER, deck_prefix


def deck_size(env: Any) -> int:
    """52 cards, 53 with the joker."""
    return int(env.rules.deck_size)


def deal_length(env: Any) -> int:
    """The hands, the turn-up (and the card turned after a joker) or, in Auction, the stock."""
    return int(deck_prefix(env.num_players, env.rules))


def init_from_deck(env: Any, deck: np.ndarray, dealer: int) -> Any:
    return env.init_from_deck(np.asarray(deck, np.int32), dealer)


def deck_of(env: Any, state: Any) -> np.ndarray:
    """An order of the pack that deals ``state``'s hand: the hands as dealt, then the joker and
    the turn-up (or the turn-up) or, in Auction, the stock with the draws where they were."""
    first = first_state(env, state)
    if env.rules.auction:
        head = np.asarray(first.stock).tolist()
    elif bool(state.joker_up):
        head = [JOKER, int(state.turnup)]
    else:
        head = [int(state.turnup)]
    return deck_with_hands(env, sys.modules[__name__], first, int(state.dealer), head)


def reward_bounds(env: Any) -> tuple[float, float]:
    """A team's points for the hand: all five tricks (and the best trump), doubled by a made
    jink announcement or a made bid of 30; an Auction side that fails its bid loses it (30 at
    most)."""
    rules = env.rules
    top = 10 if rules.scoring == "hoyle" else 5 * 5 + (5 if rules.bonus else 0)
    if rules.jink == "announced" or rules.auction:
        top *= 2
    return (-30.0 if rules.auction else 0.0), float(top)


PLAIN_CARDS = 39  # the three plain suits: a table dealing more holds (and plays) a trump


def utility_sum(env: Any) -> float | None:
    """The one value every hand's returns sum to, or None (general-sum); read by the OpenSpiel
    games (an optional member of ``DeckDeals``).  Teams score 5 a trick, 25 together, and the
    best-trump bonus (5 to the team that played the highest trump) is claimed in every hand
    where a trump is played: in every hand once the seats hold more cards than the plain suits
    have (from 8 seats), while with fewer the hands may hold none.  Each seat's return is its
    team's points, so the returns sum to 25 (no bonus: Twenty-Five) or 30 times a team's size.
    A doubled announced jink, ``hoyle`` scoring and Auction's bids make any table general-sum."""
    rules, n = env.rules, env.num_players
    if rules.jink == "announced" or rules.scoring != "best_trump" or rules.auction:
        return None
    if rules.bonus and 5 * n <= PLAIN_CARDS:
        return None
    team_size = n / num_teams(n)
    return (30.0 if rules.bonus else 25.0) * team_size
