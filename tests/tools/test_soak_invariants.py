"""Ten million hands of each game, every hand checked: the invariants a rule or kernel defect
would break somewhere in a long run (slow; the per-hand fields arrive chunk by chunk through a
``writer=``, so memory stays flat).

Spoil Five (5 players, seed rules, heuristic and random seats): a pot is won or carried,
never both; chips are conserved (what the seats lose is the pot carried out); a winner holds
three tricks or more; no more than five tricks; the decisions stay within ``max_decisions``.
Forty-Five (4 players, heuristic against greedy): all five tricks are played; the two teams'
points add up to 30 (5 a trick, and 5 for the best trump; 25 when no trump fell); a seat
scores its team's points.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import spoilfive_jax as sf

HANDS = 10**7


class Checker:
    """A writer that checks each chunk's hands with ``check`` and counts them."""

    def __init__(self, check: Any) -> None:
        self.check, self.hands = check, 0

    def describe(self) -> dict[str, str]:
        return {"format": "invariant checks"}

    def open(self, position: Any) -> None:
        pass

    def write(self, start: int, fields: dict[str, np.ndarray]) -> None:
        assert start == self.hands  # the chunks come in order, none twice
        self.check(fields)
        self.hands += len(fields["rewards"])

    def sync(self) -> dict[str, int]:
        return {"hands": self.hands}

    def finish(self, complete: bool) -> None:
        return None

    def close(self) -> None:
        pass


def _spoil_five(env: sf.Env) -> Any:
    def check(f: dict[str, np.ndarray]) -> None:
        won, carried = f["winner"] >= 0, f["carried_out"]
        assert np.all(won == (carried == 0))
        np.testing.assert_array_equal(f["rewards"].sum(1), -carried)
        tricks = f["tricks_won"]
        assert np.all(tricks.sum(1) <= 5)
        assert np.all(tricks[np.arange(len(tricks)), np.maximum(f["winner"], 0)][won] >= 3)
        assert np.all((f["decisions"] > 0) & (f["decisions"] <= env.max_decisions))

    return check


def _forty_five(env: sf.Env) -> Any:
    def check(f: dict[str, np.ndarray]) -> None:
        assert np.all(f["tricks_won"].sum(1) == 5)
        assert np.all(np.isin(f["team_points"].sum(1), (25, 30)))  # 25: no trump fell
        teams = np.arange(env.num_players) % env.num_teams
        np.testing.assert_array_equal(f["rewards"], f["team_points"][:, teams])

    return check


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "policies", "check"),
    [
        ("spoil_five", ["heuristic", "random", "heuristic", "random", "heuristic"], _spoil_five),
        ("forty_five", ["heuristic", "greedy", "heuristic", "greedy"], _forty_five),
    ],
)
def test_ten_million_hands_keep_the_invariants(game: str, policies: list[str], check: Any) -> None:
    env = sf.make(game)
    checker = Checker(check(env))
    out = sf.rollout(2026, env, policies, HANDS, per_hand=False, writer=checker)
    assert checker.hands == HANDS == out.summary()["hands"]
