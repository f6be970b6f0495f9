"""The resampler's worlds are uniform over the deals consistent with what the seat knows: on
small positions (the other seat of a 2-player hand holds two unseen cards), its frequencies
match an exhaustive enumeration of the consistent deals (a chi-square test).

A candidate deal gives the other seat any two unseen cards (and, when it robbed, any other
unseen card as its discard); it is consistent when its own deal, replayed through its own
record, takes the same actors, phases and public actions, each action legal, and gives the
seat the same information state at every step (``tools.knowledge_check.replay``).  Positions
cover each kind of rob evidence: the other seat robbed, declined, or had no rob decision.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

import spoilfive_jax as sf
import spoilfive_jax.core.bits as bits
import spoilfive_jax.games.forty_five.infer as ff_infer
import spoilfive_jax.games.spoil_five.infer as sf_infer
from spoilfive_jax.core import knowledge
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.resample import HiddenDeal
from spoilfive_jax.tools.knowledge_check import replay

SAMPLES = 40_000


def _world(env: Any, state: Any, p: int, hand: jax.Array, discard: jax.Array) -> Any:
    """The candidate world: the other seat holds ``hand`` int32[2] (besides a robbed turn-up
    it holds), ``discard`` its hidden discard (-1: none)."""
    n = env.num_players
    q_bits = bits.from_positions(hand)
    seats = jnp.arange(n)
    zero = jnp.uint32(0)
    hidden = Bits(jnp.where(seats == p, zero, q_bits.lo), jnp.where(seats == p, zero, q_bits.hi))
    deal = HiddenDeal(hidden, jnp.int32(discard), Bits(zero, zero), jnp.bool_(True))
    if env.id == "spoil_five":
        spec, known = sf_infer.hidden_spec(state, jnp.int32(p), env.rules)
        return sf_infer._world(state, spec, known, deal, env.rules)
    spec, known = ff_infer.hidden_spec(state, jnp.int32(p), env.rules)
    key = jax.random.PRNGKey(0)
    return ff_infer._world(key, state, jnp.int32(p), spec, known, deal, env.rules)


def _consistent(env: Any, state: Any, p: int) -> Any:
    """Jitted: (hands int32[W, 2], discards int32[W]) -> bool[W], each candidate consistent."""
    real = replay(env, knowledge.hooks(env).dealt_state(env, state), state.moves, jnp.int32(p))

    def one(hand: jax.Array, discard: jax.Array) -> jax.Array:
        world = _world(env, state, p, hand, discard)
        got = replay(env, knowledge.hooks(env).dealt_state(env, world), world.moves, jnp.int32(p))
        ok = got["legal"].all()
        for k in ("actor", "phase", "info"):
            ok &= jnp.array_equal(got[k], real[k])
        return ok

    return jax.jit(jax.vmap(one))


def _unseen(env: Any, state: Any, p: int) -> list[int]:
    """The cards seat ``p`` has not seen (its own dealt ones, the played ones, the turn-up)."""
    seen = np.asarray(env.observe_private(state, p)).reshape(-1, 64).any(0)
    held = np.asarray(bits.to_bool(state.hands, 64))
    played = np.asarray(bits.to_bool(state.played, 64))
    mine = held[p] | seen | played
    mine[int(state.turnup)] = True
    deck = 53 if env.id != "spoil_five" and env.rules.joker else 52
    return [c for c in range(deck) if not mine[c]]


@functools.cache
def _position(game: str, case: str) -> tuple[Any, Any, int]:
    """(env, a 2-player position at the start of trick 4 with its leader ``p`` to act, p)
    whose other seat robbed / declined / had no rob decision (``case``)."""
    env = sf.make(game, 2)
    policy = env.builtin_policy("random")
    for seed in range(400):
        state = env.init(jax.random.PRNGKey(seed))
        turned_ace = int(state.turnup) % 13 == 0
        robber = int(state.robber)
        key = jax.random.PRNGKey(1000 + seed)
        while not bool(state.terminated) and int(state.trick_num) < 3:
            key, k = jax.random.split(key)
            state = env.step(state, policy(k, state, state.current_player))
        if bool(state.terminated) or turned_ace:
            continue
        p = int(state.current_player)
        q = 1 - p
        kind = "robbed" if bool(state.robbed) and robber == q else None
        kind = kind or ("declined" if robber == q and not bool(state.robbed) else None)
        kind = kind or ("none" if robber < 0 else None)
        if kind == case:
            return env, state, p
    raise AssertionError(f"no {case} position found")


SLOW = pytest.mark.slow


@pytest.mark.parametrize(
    ("game", "case"),
    [
        ("spoil_five", "none"),
        pytest.param("forty_five", "declined", marks=SLOW),
        pytest.param("spoil_five", "robbed", marks=SLOW),
        pytest.param("spoil_five", "declined", marks=SLOW),
        pytest.param("forty_five", "robbed", marks=SLOW),
        pytest.param("forty_five", "none", marks=SLOW),
    ],
)
def test_worlds_are_uniform_over_the_consistent_deals(game: str, case: str) -> None:
    env, state, p = _position(game, case)
    q = 1 - p
    unseen = _unseen(env, state, p)
    robbed = bool(state.robbed) and int(state.robber) == q
    holds_turnup = robbed and not bool(bits.has(state.played, state.turnup))
    k = int(bits.count(Bits(state.hands.lo[q], state.hands.hi[q]))) - int(holds_turnup)
    assert k == 2
    pairs = list(itertools.combinations(unseen, 2))
    discards = [[d for d in unseen if d not in pr] if robbed else [-1] for pr in pairs]
    hands = np.array([pr for pr, ds in zip(pairs, discards, strict=True) for _ in ds], np.int32)
    flat = np.array([d for ds in discards for d in ds], np.int32)
    ok = np.asarray(_consistent(env, state, p)(jnp.asarray(hands), jnp.asarray(flat)))
    expected = Counter(tuple(h) for h in hands[ok])
    assert 10 < len(expected) < len(pairs) + 1
    analysis = env.capability(sf.core.capabilities.Analysis)
    worlds = analysis.resample_hidden_many(env, jax.random.PRNGKey(3), state, jnp.int32(p), SAMPLES)
    held = np.asarray(bits.to_bool(Bits(worlds.hands.lo[:, q], worlds.hands.hi[:, q]), 64))
    if holds_turnup:
        held[:, int(state.turnup)] = False
    got = Counter(tuple(np.flatnonzero(h).tolist()) for h in held)
    assert set(got) <= set(expected), "a world outside the consistent deals"
    cells = sorted(expected)
    total = sum(expected.values())
    f_exp = np.array([expected[c] / total * SAMPLES for c in cells])
    f_obs = np.array([got.get(c, 0) for c in cells])
    result = stats.chisquare(f_obs, f_exp)
    assert result.pvalue > 1e-4, (len(cells), result)
