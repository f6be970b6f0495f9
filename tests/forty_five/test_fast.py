"""The Forty-Five family's rollout kernel (``games.forty_five.fast``) against the public step.

Each case deals a batch on the kernel with a traced run (every decision recorded in public
action ids), deals the same decks through ``game.deal_from_deck`` and replays the kernel's
choices through ``FortyFive.step``: same player, same legal set at every decision, the
greedy/heuristic seats choosing what ``greedy_policy``/``heuristic_policy`` choose on the public
``State``, and the same outcome (points, tricks, decisions, rob, jink, bid).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import load_script

import spoilfive_jax as sf
from spoilfive_jax.games.forty_five import fast, game
from spoilfive_jax.games.forty_five.policies import greedy_policy, heuristic_policy
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams

R, G, H = fast.RANDOM, fast.GREEDY, fast.HEURISTIC
PRESETS = {
    "forty_five": FortyFiveRules(),
    "twenty_five_hoyle": FortyFiveRules.twenty_five(scoring="hoyle", rob="forced"),
    "joker_jink_deal": FortyFiveRules(joker=True, jink="announced", renege="deal"),
    "joker_above_seed_trick": FortyFiveRules(
        joker=True,
        joker_rank="above_AH",
        follow="seed",
        renege="trick",
        rob="off",
        deal_packets=(3, 2),
        jink="wins_game",
    ),
    "auction": FortyFiveRules.auction_forty_fives(),
    "auction_joker": FortyFiveRules.auction_forty_fives(joker=True, follow="seed"),
}
SEATINGS = {"random": (R,), "mixed": (R, G, H), "greedy": (G,), "heuristic": (H,)}
FAST_CASES = [  # (each preset at a small table by default; the larger ones, 2 to 10, -m slow)
    (4, "forty_five", "mixed"),
    (3, "twenty_five_hoyle", "mixed"),
    (2, "joker_jink_deal", "random"),
    (3, "joker_above_seed_trick", "mixed"),  # (three seats: random, greedy and heuristic)
]  # (Auction's kernel against the public step: by default in test_view.py, here -m slow)
SLOW_CASES = [
    (n, p, s)
    for n in (2, 3, 4, 5, 6, 7, 8, 9, 10)
    for p in PRESETS
    for s in ("random", "mixed")
    if (n, p, s) not in FAST_CASES
]


@functools.cache
def _kernel(n: int, rules: FortyFiveRules, kinds: frozenset[int]):
    def run(seed, ids, dealer, seat_kinds):
        return fast.play_hands(seed, ids, dealer, seat_kinds, n, rules, kinds, trace=True)

    return jax.jit(run)


@functools.cache
def _public(n: int, rules: FortyFiveRules):
    env = sf.forty_five.FortyFive(n, rules)
    t = num_teams(n)
    deal = jax.jit(
        jax.vmap(lambda d, dl: game.deal_from_deck(d, dl, jnp.zeros(t, jnp.int32), n, rules))
    )

    def masked_step(state, action, valid):
        after = jax.vmap(env.step)(state, action)
        return jax.tree.map(
            lambda a, b: jnp.where(valid.reshape(valid.shape + (1,) * (a.ndim - 1)), a, b),
            after,
            state,
        )

    keys = jax.random.split(jax.random.PRNGKey(0), 1)[0]
    policies = (greedy_policy(rules), heuristic_policy(rules))

    def choices(state):
        player = jnp.maximum(state.current_player, 0)
        return tuple(jax.vmap(lambda s, p, f=f: f(keys, s, p))(state, player) for f in policies)

    deck = jax.jit(
        lambda seed, ids: fast.random_deck(seed, ids, game.deck_prefix(n, rules), rules.deck_size).T
    )
    return deal, jax.jit(masked_step), jax.jit(choices), deck


def _replay(n: int, preset: str, seating: str, b: int = 64, seed: int = 11) -> None:
    rules = PRESETS[preset]
    cycle = SEATINGS[seating]
    per_seat = [cycle[s % len(cycle)] for s in range(n)]
    kinds = frozenset(per_seat)
    ids = jnp.arange(b, dtype=jnp.uint32) + 1000
    dealer = (jnp.arange(b, dtype=jnp.int32) * 7) % n
    seed_u = jnp.uint32(seed)
    out, rec = _kernel(n, rules, kinds)(seed_u, ids, dealer, jnp.int32(fast.pack_kinds(per_seat)))
    deal, step, choices, deck = _public(n, rules)
    state = deal(deck(seed_u, ids), dealer)
    valid, player = np.asarray(rec.valid), np.asarray(rec.player)
    legal, action = fast.public_trace(rec, rules)
    kind_of = np.asarray(per_seat)
    checked = 0
    for d in range(valid.shape[0]):
        v = valid[d]
        if not v.any():
            continue
        assert not np.asarray(state.terminated)[v].any(), (preset, d)
        np.testing.assert_array_equal(np.asarray(state.current_player)[v], player[d][v])
        lo, hi = (np.asarray(x, np.uint64) for x in state.legal_set)
        np.testing.assert_array_equal((lo | hi << np.uint64(32))[v], legal[d][v])
        greedy, heuristic = (np.asarray(x) for x in choices(state))
        seat_kind = kind_of[player[d]]
        for k, ref in ((G, greedy), (H, heuristic)):
            mine = v & (seat_kind == k)
            np.testing.assert_array_equal(action[d][mine], ref[mine], err_msg=f"{preset} {k} {d}")
        checked += int(v.sum())
        state = step(state, jnp.asarray(action[d]), jnp.asarray(v))
    assert checked > 0
    assert np.asarray(state.terminated).all() and not np.asarray(state.illegal).any()
    np.testing.assert_array_equal(np.asarray(out.team_points), np.asarray(state.hand_points))
    np.testing.assert_array_equal(np.asarray(out.tricks_won), np.asarray(state.tricks_won))
    np.testing.assert_array_equal(np.asarray(out.decisions), np.asarray(state._step_count))
    np.testing.assert_array_equal(np.asarray(out.robbed), np.asarray(state.robbed))
    np.testing.assert_array_equal(np.asarray(out.robber), np.asarray(state.robber))
    np.testing.assert_array_equal(np.asarray(out.bid), np.asarray(state.bid))
    np.testing.assert_array_equal(np.asarray(out.bidder), np.asarray(state.bidder))
    np.testing.assert_array_equal(np.asarray(out.jinked), np.asarray(state.jinker) >= 0)


@pytest.mark.parametrize(
    ("n", "preset", "seating"),
    FAST_CASES + [pytest.param(*c, marks=pytest.mark.slow) for c in SLOW_CASES],
)
def test_kernel_matches_public_step(n: int, preset: str, seating: str) -> None:
    """Same deals, the kernel's choices replayed: same legal sets, choices and outcomes."""
    _replay(n, preset, seating)


def _public_heuristic(key, state, player):
    """The family heuristic called as an arbitrary user policy (forces the public path)."""
    return heuristic_policy(state.rules)(key, state, player)


def _public_greedy(key, state, player):
    return greedy_policy(state.rules)(key, state, player)


FIELDS = ("rewards", "team_points", "tricks_won", "decisions", "robbed", "robber", "bid", "bidder")


@pytest.mark.parametrize(
    "env",
    [
        sf.forty_five.FortyFive(4),
        pytest.param(sf.forty_five.AuctionFortyFives(4), marks=pytest.mark.slow),
    ],
    ids=["forty_five", "auction"],
)
def test_builtins_same_on_kernel_and_public_paths(env: sf.forty_five.FortyFive) -> None:
    """The heuristic and greedy seats on the kernel and on the public State choose alike, and
    both paths deal the same cards: identical hands for the same key."""
    kernel = sf.rollout(3, env, ["heuristic", "greedy"] * 2, num_hands=256, batch_size=256)
    public = [_public_heuristic, _public_greedy] * 2
    other = sf.rollout(3, env, public, num_hands=256, batch_size=256)
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(kernel, field), getattr(other, field), field)
    # The kernel keeps the record the public path keeps (``FortyFive.outcome``), field for field.
    assert kernel.fields.keys() == other.fields.keys()
    for field, value in kernel.fields.items():
        assert value.dtype == other.fields[field].dtype, field
        assert value.shape == other.fields[field].shape, field
        np.testing.assert_array_equal(value, other.fields[field], field)


def test_the_family_answers_the_kernel_hook() -> None:
    """``FortyFive.rollout_kernel``: the kernel for the family's built-in names only."""
    env = sf.forty_five.FortyFive(4)
    assert env.policy_names == ("random", "greedy", "heuristic")
    assert (
        env.capability(sf.capabilities.RolloutKernel).rollout_kernel(
            env, ("greedy", "heuristic", "random")
        )
        is not None
    )
    assert (
        env.capability(sf.capabilities.RolloutKernel).rollout_kernel(env, ("random", "smart"))
        is None
    )


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_scorer_same_on_kernel_and_public_paths() -> None:
    """``score_hands`` with built-in policies plays its deals on the kernel: the same deals and
    choices as the public path (the greedy and heuristic players are deterministic)."""
    env = sf.forty_five.FortyFive(4)
    hands = [[30, 36, 39, 26, 1], [2, 3, 15, 28, 41]]  # 5H JH AS AH 2C; 3C 4C 3D 3H 3S
    query = {"hands": hands, "turnup": 33, "seat": [1, 2], "env": env, "num_rollouts": 128}
    kernel = sf.score_hands(4, policy=["heuristic", "greedy"] * 2, **query)
    public = sf.score_hands(4, policy=[_public_heuristic, _public_greedy] * 2, **query)
    np.testing.assert_array_equal(kernel.expected_points, public.expected_points)
    np.testing.assert_array_equal(kernel.expected_tricks, public.expected_tricks)
    again = sf.score_hands(4, policy="random", **query)
    np.testing.assert_array_equal(
        again.reach_prob, sf.score_hands(4, policy="random", **query).reach_prob
    )


def test_kernel_rollout_does_not_depend_on_the_batch() -> None:
    env = sf.forty_five.FortyFive(4, FortyFiveRules(joker=True))
    big = sf.rollout(5, env, "heuristic", num_hands=300, batch_size=256)
    small = sf.rollout(5, env, "heuristic", num_hands=300, batch_size=64)
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(big, field), getattr(small, field), field)
    assert (big.team_points.sum(1) >= 25).all() and big.robbed.any()


@pytest.mark.slow
def test_heuristic_beats_greedy() -> None:
    res = sf.evaluate(
        1, sf.forty_five.FortyFive(4), {"heuristic": "heuristic", "greedy": "greedy"}, 20_000
    )
    h, g = res.mean_reward
    assert h - g > res.ci95[0] + res.ci95[1]


def test_benchmark_rollout_rows() -> None:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "fortyfive_throughput.py"
    module = load_script(path)
    argv = ["--configs", "forty_five_4", "--no-step", "--rollout", "--policies", "random"]
    result = module.main([*argv, "--rollout-hands", "256", "--reps", "1", "--no-peers"])
    (row,) = result["rollout_rows"]
    assert row["policy"] == "random" and row["hands_per_s"] > 0
    assert 20 <= row["decisions_per_hand"] <= 21 and result["rows"] == []


@pytest.mark.parametrize("make", [greedy_policy, heuristic_policy])
def test_cached_policy_made_inside_a_trace_serves_later_traces(make: Any) -> None:
    """The policy closures are cached per rules; one first built while a jit is being traced
    (as ``sf.analyze`` does) must hold no tracer, so a second compile (another batch size) works."""
    rules = FortyFiveRules()
    env = sf.forty_five.FortyFive(4, rules)
    make.cache_clear()
    try:

        def act(states: Any) -> jax.Array:
            keys = jax.random.split(jax.random.PRNGKey(1), states.trump.shape[0])
            return jax.vmap(make(rules))(keys, states, states.current_player)

        first = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 4))
        a = jax.jit(act)(first)
        b = jax.jit(act)(jax.tree.map(lambda x: x[:2], first))  # a new shape: a second trace
        np.testing.assert_array_equal(np.asarray(a)[:2], np.asarray(b))
    finally:
        make.cache_clear()  # later tests rebuild it outside any trace
