"""Lockstep differential test against OpenSpiel's C++ ``oh_hell`` (pyspiel).

For each table (N seats, T tricks, the options) a batch of games is dealt by pyspiel's chance
nodes, each resolved uniformly at random: the first picks T (one outcome: ``num_tricks_fixed``),
the second the dealer, the next N*T the cards dealt (card i to seat i % N), the last the trump
card.  The deal read from pyspiel's history starts our hands (``init_from_deal``); then at every
decision the seat to act, the exact legal action ids and the rewards are compared, the same
random legal action is applied to both, and at the end our ``rewards`` must equal pyspiel's
``returns()``.  Our side steps the whole batch at once (``jit(vmap(step))``).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import jax
import numpy as np
import pytest
from spoilfive_oh_hell import OhHell, OhHellRules

pyspiel = pytest.importorskip("pyspiel")


@dataclasses.dataclass
class Tally:
    games: int = 0
    decisions: int = 0
    mismatches: int = 0  # decisions (or final scores) that disagree
    bad_games: int = 0
    first: str = ""  # the first mismatch, in words
    seconds: float = 0.0

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.decisions += other.decisions
        self.mismatches += other.mismatches
        self.bad_games += other.bad_games
        self.first = self.first or other.first
        self.seconds += other.seconds


def _view(state: Any) -> tuple[Any, ...]:
    """What the comparison reads of a batch, computed with the step (one compiled call)."""
    return state, (state.current_player, state.legal_action_mask, state.rewards, state.terminated)


def _steppers(env: OhHell) -> tuple[Any, Any]:
    init = jax.jit(lambda *deal: _view(jax.vmap(env.init_from_deal)(*deal)))
    step = jax.jit(lambda state, action: _view(jax.vmap(env.step)(state, action)))
    return init, step


def lockstep(n: int, t: int, penalty: bool, ppt: int, games: int, seed: int) -> Tally:
    """Play ``games`` random games of one table in both engines; count the disagreements."""
    start = time.perf_counter()
    params = {"players": n, "num_tricks_fixed": t, "off_bid_penalty": penalty}
    params["points_per_trick"] = ppt
    spiel = pyspiel.load_game("oh_hell", params)
    env = OhHell(n, OhHellRules(num_tricks=t, off_bid_penalty=penalty, points_per_trick=ppt))
    assert env.num_actions == spiel.num_distinct_actions()
    init, step = _steppers(env)
    rng = np.random.default_rng(seed)
    states, hands, trumps, dealers = [], np.zeros((games, n, t), np.int32), [], []
    for g in range(games):
        s = spiel.new_initial_state()
        while s.is_chance_node():
            outcomes = [a for a, _ in s.chance_outcomes()]
            s.apply_action(int(outcomes[rng.integers(len(outcomes))]))
        history = s.history()
        assert history[0] == t and len(history) == n * t + 3
        dealt = np.asarray(history[2 : 2 + n * t])
        hands[g] = dealt.reshape(t, n).T  # card i went to seat i % N
        trumps.append(history[-1])
        dealers.append(history[1])
        states.append(s)
    state, view = init(hands, np.asarray(trumps, np.int32), np.asarray(dealers, np.int32))
    tally = Tally(games=games)
    bad = np.zeros(games, bool)

    def mismatch(g: int, what: str) -> None:
        tally.mismatches += 1
        if not bad[g] and not tally.first:
            tally.first = f"N={n} T={t} penalty={penalty} ppt={ppt} game {g}: {what}"
        bad[g] = True

    for _ in range(env.max_decisions + 1):
        cur, mask, rewards, over = jax.device_get(view)
        actions = np.zeros(games, np.int32)
        for g, s in enumerate(states):
            if not np.allclose(rewards[g], s.rewards()):
                mismatch(g, f"rewards {rewards[g]} vs {s.rewards()}")
            if s.is_terminal() or over[g]:
                if not (s.is_terminal() and over[g]):
                    mismatch(g, f"terminal: ours {over[g]}, pyspiel {s.is_terminal()}")
                elif not np.array_equal(rewards[g], np.asarray(s.returns(), np.float32)):
                    mismatch(g, f"returns {rewards[g]} vs {s.returns()}")
                continue
            tally.decisions += 1
            legal = s.legal_actions()
            if s.current_player() != cur[g]:
                mismatch(g, f"player to act {cur[g]} vs {s.current_player()}")
            if np.flatnonzero(mask[g]).tolist() != legal:
                mismatch(g, f"legal {np.flatnonzero(mask[g]).tolist()} vs {legal}")
            actions[g] = legal[rng.integers(len(legal))]
            s.apply_action(int(actions[g]))
        if all(s.is_terminal() for s in states) and over.all():
            break
        state, view = step(state, actions)
    tally.bad_games = int(bad.sum())
    tally.seconds = time.perf_counter() - start
    return tally


OPTIONS = ((False, 1), (True, 1), (False, 2), (True, 3))  # (off_bid_penalty, points_per_trick)


def tables(sizes: dict[int, tuple[int, ...]]) -> list[tuple[int, int, bool, int]]:
    """(N, T, off_bid_penalty, points_per_trick) for each N and T of ``sizes`` (0: the most
    tricks the table allows, 11 at most), the options in turn."""
    out = []
    for n, ts in sizes.items():
        for t in ts:
            out.append((n, t or min(11, 51 // n), *OPTIONS[len(out) % len(OPTIONS)]))
    return out


FEW = {3: (1,), 5: (0,), 6: (5,), 7: (0,)}  # 4 tables: each option once
QUICK = {3: (1, 0), 4: (2, 0), 5: (3, 0), 6: (5, 0), 7: (4, 0)}  # 10 tables
MANY = {n: (1, 2, 3, 5, 0) for n in range(3, 8)}  # 25 tables


def run(sizes: dict[int, tuple[int, ...]], games: int, seed: int = 0) -> Tally:
    total = Tally()
    for i, (n, t, penalty, ppt) in enumerate(tables(sizes)):
        total.add(lockstep(n, t, penalty, ppt, games, seed + i))
    print(
        f"lockstep: {total.games} games, {total.decisions} decisions, {total.mismatches} "
        f"mismatches ({total.bad_games} games) in {total.seconds:.1f} s"
    )
    return total


@pytest.mark.parametrize(  # (a table is a compile: -m slow plays the ten)
    ("sizes", "at_least"),
    [
        pytest.param(FEW, 400, id="4-tables"),
        pytest.param(QUICK, 1000, id="10-tables", marks=pytest.mark.slow),
    ],
)
def test_lockstep_against_openspiel(sizes: dict[int, tuple[int, ...]], at_least: int) -> None:
    total = run(sizes, games=100)
    assert total.games >= at_least
    assert total.mismatches == 0, total.first


@pytest.mark.slow
def test_lockstep_against_openspiel_many() -> None:
    total = run(MANY, games=400, seed=1000)  # every option on every N
    assert total.games >= 10_000
    assert total.mismatches == 0, total.first


def test_a_mismatch_is_seen() -> None:
    """The test can fail: a different points_per_trick on our side is caught at the end."""
    spiel = pyspiel.load_game("oh_hell", {"players": 3, "num_tricks_fixed": 2})
    env = OhHell(3, OhHellRules(num_tricks=2, points_per_trick=2))
    s = spiel.new_initial_state()
    rng = np.random.default_rng(0)
    while s.is_chance_node():
        s.apply_action(int(rng.choice([a for a, _ in s.chance_outcomes()])))
    h = s.history()
    state = env.init_from_deal(np.asarray(h[2:8]).reshape(2, 3).T, h[-1], h[1])
    while not s.is_terminal():
        assert env.legal_actions(state) == s.legal_actions()
        a = s.legal_actions()[0]
        s.apply_action(a)
        state = env.step(state, a)
    assert not np.array_equal(np.asarray(state.rewards), np.asarray(s.returns(), np.float32))
