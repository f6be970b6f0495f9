"""Shared helpers for the engine tests.

- Compiled functions are cached per ``SpoilFive`` (hashable: num_players + rules), so every
  test module that plays the same table reuses one compile (pgx style).  The batched ``step``
  counts its traces, so tests can prove one compile per (N, rules).
- ``Table``: a hand-built deal driven through ``env.checked_step`` and mirrored, step by step,
  through the pure-Python reference engine (``tests/reference.py``).
- Small host-side converters: bitsets to card sets, rules to reference rules, text to actions.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Iterable, Sequence

import jax
import numpy as np

import spoilfive_jax as sf
from spoilfive_jax.games.spoil_five.game import PHASE_NAMES

try:  # tests/ on sys.path (rootdir-relative, no __init__.py) or the package ``tests``
    import reference as ref
except ImportError:  # pragma: no cover
    from tests import reference as ref

# ---------------------------------------------------------------------------- compiled functions

TRACES: collections.Counter[tuple[str, sf.SpoilFive]] = collections.Counter()


@functools.cache
def batched_init(env: sf.SpoilFive):
    """``jit(vmap(env.init_from_deck))``: decks int32[B, 52], dealers int32[B], carried int32[B]."""

    def init(decks, dealers, carried):
        TRACES["init", env] += 1
        return env.init_from_deck(decks, dealers, carried)

    return jax.jit(jax.vmap(init))


@functools.cache
def batched_step(env: sf.SpoilFive):
    """``jit(vmap(env.step))``: states [B], actions int32[B]; counts its traces in ``TRACES``."""

    def step(state, action):
        TRACES["step", env] += 1
        return env.step(state, action)

    return jax.jit(jax.vmap(step))


@functools.cache
def jit_step(env: sf.SpoilFive):
    """``jit(env.step)`` for one hand (illegal actions end the hand instead of raising)."""
    return jax.jit(env.step)


# ---------------------------------------------------------------------------- conversions


def to_ref_rules(rules: sf.Rules) -> ref.RefRules:
    return ref.RefRules(
        follow=rules.follow,
        renege=rules.renege,
        rob=rules.rob,
        jink=rules.jink,
        deal_packets=tuple(rules.deal_packets),
        ante=rules.ante,
        jink_bonus=rules.jink_bonus,
        ante_after_spoil=rules.ante_after_spoil,
    )


def bits_to_cards(lo, hi) -> set[int]:
    """The positions set in a (lo, hi) pair of uint32 words (one set, host values)."""
    word = int(lo) | (int(hi) << 32)
    return {i for i in range(64) if word >> i & 1}


def hands_of(state: sf.State) -> list[set[int]]:
    """Card ids held by each seat of one (unbatched) hand."""
    lo, hi = np.asarray(state.hands.lo), np.asarray(state.hands.hi)
    return [bits_to_cards(lo[s], hi[s]) for s in range(lo.shape[0])]


def phase_name(state: sf.State) -> str:
    return PHASE_NAMES[int(state.phase)]


def action_id(action: str | int) -> int:
    """An action from text: a card (``"5H"``), ``"PASS"``, ``"JINK"`` or ``"CLAIM"``."""
    if isinstance(action, (int, np.integer)):
        return int(action)
    named = {"PASS": sf.PASS, "JINK": sf.JINK, "CLAIM": sf.CLAIM}
    return named[action.upper()] if action.upper() in named else sf.card_id(action)


def cards(text: str) -> set[str]:
    """A set of normalised card texts, for comparing legal sets: ``cards("jd 10c")``."""
    return {sf.card_str(c) for c in sf.parse_cards(text)}


def legal_strs(env: sf.SpoilFive, state: sf.State) -> set[str]:
    """Machine texts of the legal actions: cards as ``card_str`` (``"TC"``), else their names."""
    return {sf.card_str(a) if a < 52 else sf.action_str(a) for a in env.legal_actions(state)}


# ---------------------------------------------------------------------------- a hand-built table


class Table:
    """A hand-built deal played through ``env.checked_step`` (the compiled path), with the
    reference engine played alongside: after every decision both must agree on the player to
    act, the phase, the legal actions, the hands, the tricks, the pot and, at the end, the
    result.  ``hands`` are card texts by seat (``"5D JD 2C 3S 4H"``)."""

    def __init__(
        self,
        env: sf.SpoilFive,
        hands: Sequence[str],
        turnup: str,
        dealer: int = 0,
        carried: int = 0,
    ) -> None:
        ids = [sf.parse_cards(h) for h in hands]
        self.env = env
        self.state = env.init_from_deal(np.array(ids), sf.card_id(turnup), dealer, carried)
        self.ref = ref.RefHand(
            env.num_players, to_ref_rules(env.rules), ids, sf.card_id(turnup), dealer, carried
        )
        self.check()

    # -- queries
    @property
    def player(self) -> int:
        return int(self.state.current_player)

    @property
    def phase(self) -> str:
        return phase_name(self.state)

    def legal(self) -> set[str]:
        """The legal actions of the player to act, as text (cards, PASS, JINK, CLAIM)."""
        return legal_strs(self.env, self.state)

    def hand(self, seat: int) -> set[str]:
        return {sf.card_str(c) for c in hands_of(self.state)[seat]}

    @property
    def rewards(self) -> list[float]:
        return np.asarray(self.state.rewards).tolist()

    @property
    def tricks(self) -> list[int]:
        return np.asarray(self.state.tricks_won).tolist()

    # -- decisions
    def act(self, action: str | int) -> None:
        a = action_id(action)
        self.state = self.env.checked_step(self.state, a)
        self.ref.step(a)
        self.check()

    def play(self, actions: str | Iterable[str]) -> None:
        """Take each action of ``"5D 3D PASS JINK ..."`` in turn."""
        for a in actions.split() if isinstance(actions, str) else actions:
            self.act(a)

    # -- the mirror
    def check(self) -> None:
        s, r = self.state, self.ref
        assert int(s.current_player) == r.current_player
        assert phase_name(s) == r.phase
        assert bool(s.terminated) == r.terminated
        assert self.env.legal_actions(s) == r.legal_actions()
        assert hands_of(s) == [set(h) for h in r.hands]
        assert np.asarray(s.tricks_won).tolist() == r.tricks_won
        assert int(s.pot) == r.pot
        assert bool(s.robbed) == r.robbed
        assert int(s.discard) == (-1 if r.discard is None else r.discard)
        assert int(s.winner) == r.winner
        assert int(s.jinker) == r.jinker
        assert int(s.carried_out) == r.carried_out
        assert np.asarray(s.rewards).tolist() == r.rewards
        assert not bool(s.illegal)
