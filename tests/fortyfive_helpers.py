"""Shared helpers for the Forty-Five tests (``test_fortyfive_*.py``).

- Compiled functions cached per ``FortyFive`` (hashable: num_players + rules), so test modules
  playing the same table reuse one compile; the batched ``init``/``step`` count their traces.
- ``Table45``: a hand-built deal driven through ``env.checked_step`` (the compiled path) and
  mirrored, decision by decision, through the reference engine (``reference_fortyfive.py``).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
from collections.abc import Iterable, Sequence

import jax
import numpy as np

from spoilfive_jax.games import forty_five as ff

try:  # tests/ on sys.path (rootdir-relative, no __init__.py) or the package ``tests``
    import reference_fortyfive as ref45
except ImportError:  # pragma: no cover
    from tests import reference_fortyfive as ref45

TRACES: collections.Counter[tuple[str, ff.FortyFive]] = collections.Counter()


@functools.cache
def batched_init(env: ff.FortyFive):
    """``jit(vmap(env.init_from_deck))``: decks [B, D], dealers [B], scores [B, T] (int32)."""

    def init(decks, dealers, scores):
        TRACES["init", env] += 1
        return env.init_from_deck(decks, dealers, scores)

    return jax.jit(jax.vmap(init))


@functools.cache
def batched_step(env: ff.FortyFive):
    """``jit(vmap(env.step))``; counts its traces in ``TRACES``."""

    def step(state, action):
        TRACES["step", env] += 1
        return env.step(state, action)

    return jax.jit(jax.vmap(step))


@functools.cache
def jit_step(env: ff.FortyFive):
    return jax.jit(env.step)


def to_ref_rules(rules: ff.FortyFiveRules) -> ref45.RefRules45:
    fields = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    return ref45.RefRules45(**fields)


def bits_to_cards(lo, hi) -> set[int]:
    word = int(lo) | (int(hi) << 32)
    return {i for i in range(64) if word >> i & 1}


def hands_of(state: ff.State) -> list[set[int]]:
    lo, hi = np.asarray(state.hands.lo), np.asarray(state.hands.hi)
    return [bits_to_cards(lo[s], hi[s]) for s in range(lo.shape[0])]


def discards_of(state: ff.State) -> list[set[int]]:
    lo, hi = np.asarray(state.discards.lo), np.asarray(state.discards.hi)
    return [bits_to_cards(lo[s], hi[s]) for s in range(lo.shape[0])]


def phase_name(state: ff.State) -> str:
    return ff.PHASE_NAMES[int(state.phase)]


def action_text(action: int) -> str:
    """Machine text of an action: a card as ``card_str`` (``"TC"``, ``"JK"``), else its name."""
    return ff.card_text(action) if 0 <= action <= ff.JOKER else ff.action_str(action)


def texts(actions: Iterable[int]) -> set[str]:
    return {action_text(a) for a in actions}


def cards(text: str) -> set[str]:
    """A set of normalised action texts: ``cards("jd 10c jk")`` -> {"JD", "TC", "JK"}."""
    return {action_text(ff.action_id(t)) for t in text.split()}


class Table45:
    """A hand-built deal played through ``env.checked_step``, with the reference engine played
    alongside: after every decision both must agree on everything public and hidden, and at
    the end on the points, scores and game result.  Cards are texts (``"5D JD 2C 3S JK"``)."""

    def __init__(
        self,
        env: ff.FortyFive,
        hands: Sequence[str],
        turnup: str | None = None,
        dealer: int = 0,
        scores: Sequence[int] | None = None,
        stock: str = "",
    ) -> None:
        ids = [ff.parse_cards(h) for h in hands]
        up = None if turnup is None else ff.card_id(turnup)
        st = ff.parse_cards(stock)
        self.env = env
        self.state = env.init_from_deal(
            np.array(ids),
            up,
            dealer,
            None if scores is None else np.array(scores),
            np.array(st, np.int32) if st else None,
        )
        ref_stock = st
        if env.rules.auction:  # the engine draws the given cards, then the rest in id order
            dealt = {c for h in ids for c in h} | set(st)
            ref_stock = st + [c for c in range(env.rules.deck_size) if c not in dealt]
        self.ref = ref45.RefHand45(
            env.num_players, to_ref_rules(env.rules), ids, up, dealer, scores, ref_stock
        )
        self.check()

    @property
    def player(self) -> int:
        return int(self.state.current_player)

    @property
    def phase(self) -> str:
        return phase_name(self.state)

    def legal(self) -> set[str]:
        return texts(self.env.legal_actions(self.state))

    def hand(self, seat: int) -> set[str]:
        return texts(hands_of(self.state)[seat])

    @property
    def rewards(self) -> list[float]:
        return np.asarray(self.state.rewards).tolist()

    @property
    def scores(self) -> list[int]:
        return np.asarray(self.state.scores).tolist()

    @property
    def tricks(self) -> list[int]:
        return np.asarray(self.state.tricks_won).tolist()

    def act(self, action: str | int) -> None:
        a = ff.action_id(action)
        self.state = self.env.checked_step(self.state, a)
        self.ref.step(a)
        self.check()

    def play(self, actions: str | Iterable[str]) -> None:
        for a in actions.split() if isinstance(actions, str) else actions:
            self.act(a)

    def finish(self) -> None:
        """Play the lowest legal action until the hand is over (the reference mirrors it)."""
        while not bool(self.state.terminated):
            self.act(self.env.legal_actions(self.state)[0])

    def check(self) -> None:
        s, r = self.state, self.ref
        assert int(s.current_player) == r.current_player
        assert phase_name(s) == r.phase
        assert bool(s.terminated) == r.terminated
        assert self.env.legal_actions(s) == r.legal_actions()
        assert hands_of(s) == [set(h) for h in r.hands]
        assert discards_of(s) == [set(d) for d in r.discards]
        assert np.asarray(s.tricks_won).tolist() == r.tricks_won
        assert int(s.trump) == r.trump and int(s.turnup) == r.turnup
        assert bool(s.robbed) == r.robbed and bool(s.joker_up) == r.joker_up
        assert int(s.jinker) == r.jinker
        assert int(s.bid) == r.bid and int(s.bidder) == r.bidder
        assert np.asarray(s.passed).tolist() == r.passed
        assert np.asarray(s.scores).tolist() == r.scores
        assert np.asarray(s.hand_points).tolist() == r.hand_points
        assert np.asarray(s.rewards).tolist() == r.rewards
        assert np.asarray(s.game_rewards).tolist() == r.game_rewards
        assert bool(s.game_over) == r.game_over and int(s.game_winner) == r.game_winner
        assert not bool(s.illegal)
