"""Hands of the OpenSpiel games played through pyspiel, for the tests of this directory: random
hands, and hands whose returns sum to different values where a game is general-sum."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pyspiel

from spoilfive_jax.games.forty_five.rules import FortyFiveRules


def play(game, rng: np.random.Generator, deal: Sequence[int] = ()) -> pyspiel.State:
    """A hand to its end: chance deals ``deal`` first, then random cards; random decisions."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            k = len(state.history())
            outcomes = [a for a, _ in state.chance_outcomes()]
            state.apply_action(int(deal[k]) if k < len(deal) else int(rng.choice(outcomes)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def no_trump_deal(game, rng: np.random.Generator) -> list[int] | None:
    """A Forty-Five deal (turn-up rules, no joker) whose hands hold no trump and whose turn-up
    is a two, so nobody can rob: no trump is played and the best-trump bonus goes unclaimed.
    None where the hands need more cards than the plain suits have, or for another game."""
    env = game.env
    rules = env.rules
    hands = 5 * env.num_players
    if not isinstance(rules, FortyFiveRules) or rules.auction or rules.joker or hands > 39:
        return None
    trump = int(rng.integers(4))
    plain = [c for c in range(52) if c // 13 != trump]
    assert all(env.action_str(c)[-1] != env.action_str(13 * trump)[-1] for c in plain)
    return [*rng.permutation(plain)[:hands].tolist(), 13 * trump + 1]  # the two of trumps


def two_sums(game, seed: int, tries: int = 60) -> Iterator[pyspiel.State]:
    """Two finished hands whose returns sum to different values: random hands first, then a
    hand where no trump is played (``no_trump_deal``); ``AssertionError`` if none are found."""
    rng = np.random.default_rng(seed)
    first = play(game, rng)
    for _ in range(tries):
        deal = no_trump_deal(game, rng) or ()
        other = play(game, rng, deal)
        if sum(other.returns()) != sum(first.returns()):
            yield from (first, other)
            return
    raise AssertionError(f"{game}: every hand's returns sum to {sum(first.returns())}")
