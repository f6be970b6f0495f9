"""Any policy on the Forty-Five family's play kernel (``forty_five.view``): the public ``State``
read from the kernel's layout is the public step's, leaf by leaf, at every decision of the play;
a rollout of any lineup and an analysis's playouts with a user's policy play the same hands as
on the public step (``tools.policies.play_public``, ``infer.public_playout``)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core.bits import lowest
from spoilfive_jax.core.transition import transition
from spoilfive_jax.games.forty_five import game, infer, rollouts, view
from tests.forty_five.test_fast_playout import _after
from tests.spoil_five.test_view import (
    assert_lineup_plays_the_public_steps_hands,
    assert_live_leaves_equal,
    random_actions,
)

R = sf.forty_five.FortyFiveRules
CASES = [  # every variant, the joker, each rob, jink, renege and follow reading
    (4, R()),  # (the plain defaults: under -m slow where the other cases cover every reading)
    (2, R(joker=True, jink="announced", illegal_penalty=7)),
    (5, R(variant="twenty_five", rob="forced", renege="trick", follow="seed")),
    (6, R(variant="auction", joker=True, renege="deal")),
    (3, R(joker=True, joker_rank="above_AH", jink="wins_game", scoring="hoyle")),
]


def _id(case: tuple[int, R]) -> str:
    n, r = case
    return f"{r.variant}{n}-j{int(r.joker)}-{r.jink}"


SLOW = pytest.mark.slow
SLOW_FIRST = pytest.param(CASES[0], marks=SLOW, id=_id(CASES[0]))
# (Auction's six seats compile the largest programs: by default only the view at every play
# and the step before the play take Auction's rules, at two seats; the six seats, as every
# other test's Auction, under -m slow.)
AUCTION2 = (2, CASES[3][1])


def _deal(env: sf.Env, seed: int, b: int):
    """A batch of rollout deals, each hand with its own dealer."""
    keys = rollouts.rollout_keys(env, jax.random.PRNGKey(seed))
    ids = jnp.arange(b, dtype=jnp.uint32)
    deal = rollouts.rollout_deal(env, keys, ids, {"dealer": 0})
    return keys, ids, deal._replace(dealer=ids.astype(jnp.int32) % env.num_players)


def _user_random(key, state, player):
    """A user's random legal choice that plays an illegal action about 1% of the time (an id
    outside 0..63 now and then)."""
    mask = state.legal_action_mask
    a = jnp.argmax(jnp.where(mask, jax.random.uniform(key, mask.shape), -1.0))
    odd = jax.random.uniform(jax.random.fold_in(key, 9))
    return jnp.where(odd < 0.01, jnp.where(odd < 0.004, 70, 52), a)


def _first_bit(key, state, player):
    """The lowest legal action, from the bitset (reads one leaf, draws nothing)."""
    return lowest(state.legal_set)


@pytest.mark.parametrize(
    "case", [SLOW_FIRST, *CASES[1:3], pytest.param(CASES[3], marks=SLOW), AUCTION2], ids=_id
)
def test_view_is_the_public_state_at_every_play(case):
    """Random play with a few illegal actions from the first lead, both engines stepped
    together: every leaf of every live hand's view equals the public step's state."""
    n, rules = case
    env = sf.forty_five.FortyFive(n, rules)
    b = 96
    _, _, deal = _deal(env, n, b)
    keys = jax.random.split(jax.random.PRNGKey(5), b)
    random = view.one_policy(env.builtin_policy("random"))
    step_one = functools.partial(transition, env)
    state, _ = jax.jit(
        lambda d: view._before_the_play(
            rollouts.deal_states(env, d), keys, random, jnp.zeros(1, jnp.int32), step_one, rules
        )
    )(deal)
    table, p = view.to_kernel(state, rules)
    start = state
    x = jax.vmap(view.extras_of)(state)
    views = jax.jit(jax.vmap(lambda p1, t1, x1, s1: view.public_state(p1, t1, x1, s1, rules)))
    step = jax.jit(jax.vmap(env.step))
    advance = jax.jit(lambda p, x, v, a: view._advance(p, table, x, v, a, rules))
    rng = np.random.default_rng(n)
    seen_illegal = 0
    for t in range(5 * n):
        v = views(p, table, x, start)
        live = ~np.asarray(state.terminated)
        assert (np.asarray(state.phase)[live] == game.PHASE_PLAY).all()
        assert_live_leaves_equal(state, v, live, t)
        a, foul = random_actions(rng, np.asarray(state.legal_action_mask), live)
        seen_illegal += foul
        state, (p, x) = step(state, jnp.asarray(a)), advance(p, x, v, jnp.asarray(a))
    assert seen_illegal > 0


@pytest.mark.parametrize(
    ("case", "spec"),
    [
        pytest.param(
            CASES[0], [_user_random, "heuristic", "random", _first_bit], marks=pytest.mark.slow
        ),
        (CASES[1], _user_random),
        pytest.param(
            CASES[2], [_first_bit, "greedy", _user_random, "heuristic", "random"], marks=SLOW
        ),
        pytest.param(CASES[3], [_user_random, "heuristic"] * 3, marks=SLOW),
        # (a lineup of callables and built-ins: by default in the mixed lineup's test below)
        pytest.param(CASES[4], [_first_bit, _user_random, "random"], marks=SLOW),
    ],
    ids=[_id(c) for c in CASES],
)
def test_any_lineup_plays_the_public_steps_hands(case, spec):
    """``play_deals`` of a lineup with callables plays its tricks on the kernel
    (``view.finish``) and returns the public step's records hand by hand: points, tricks,
    decisions, jinks, robs, bids, illegal endings."""
    n, rules = case
    env = sf.forty_five.FortyFive(n, rules)
    assert_lineup_plays_the_public_steps_hands(env, spec, *_deal(env, 11 + n, 384), _user_random)


# (One table by default, the rest with -m slow: each compiles a playout of its own.)
@pytest.mark.parametrize("case", [CASES[1], pytest.param(CASES[3], marks=SLOW)], ids=_id)
def test_playouts_with_a_users_policy_are_the_public_steps(case):
    """An analysis's playouts with a policy of the user's (``infer._playout``, on the kernel)
    from random positions of every phase, half of them resampled worlds and some already over,
    give ``infer.public_playout``'s values hand by hand."""
    n, rules = case
    env = sf.forty_five.FortyFive(n, rules)

    @jax.jit
    def run():
        after, player, keys = _after(env, 96, 3)
        step = functools.partial(transition, env)
        kernel = infer._playout(keys, after, player, _user_random, rules, step)
        public = infer.public_playout(keys, after, player, _user_random, rules, step)
        return kernel, public, after.phase, after.terminated

    kernel, public, phase, over = jax.device_get(run())
    assert len(set(phase.tolist())) >= 3 and over.any()
    for field in infer.FIELDS:
        np.testing.assert_array_equal(kernel[field], public[field], field)


def test_an_analysis_hands_a_users_policy_counter_keys():
    """``infer.playout`` with a user's policy: the playouts of each state share one counter key
    drawn from its analysis key (``core.keys.as_counter``), the same values as the public
    step's playouts handed those keys."""
    from spoilfive_jax.core.keys import as_counter

    env = sf.forty_five.FortyFive(4, R())

    @jax.jit
    def run():
        states, player, keys = _after(env, 32, 5)
        actions = jax.vmap(lambda s: lowest(s.legal_set))(states)[:, None]  # (a legal one)
        got = infer.playout(env, keys, states, actions, player, _user_random)
        step = functools.partial(transition, env)
        moved = jax.vmap(step)(states, actions[:, 0])
        want = infer.public_playout(as_counter(keys), moved, player, _user_random, env.rules, step)
        return got, want

    got, want = jax.device_get(run())
    for field in infer.FIELDS:
        np.testing.assert_array_equal(got[field][:, 0], want[field], field)


@pytest.mark.parametrize(
    "case",
    [CASES[1], *(pytest.param(c, marks=SLOW) for c in (CASES[3], CASES[4]))],
    ids=_id,
)
def test_the_finished_states_are_the_public_steps(case):
    """``view.finish`` from random positions of every phase, at game scores near the target
    (``_after``): every leaf of every final state equals ``core.resample.play_out``'s through
    the public step (the game settled: scores, its end and winner, a failed jink or a slam),
    but the reward fields, which the public step zeroes on the steps after a hand's end; the
    summed rewards equal."""
    from spoilfive_jax.core.resample import play_out

    n, rules = case
    env = sf.forty_five.FortyFive(n, rules)

    @jax.jit
    def run():
        states, _, keys = _after(env, 96, 8)
        step = functools.partial(transition, env)
        got = view.finish(
            states, keys, view.one_policy(_user_random), jnp.zeros(1, jnp.int32), step, rules
        )
        return got, play_out(keys, states, _user_random, step)

    (final, total), (want, want_total) = jax.device_get(run())
    np.testing.assert_array_equal(total, want_total)
    assert want.game_over.any()
    flat = jax.tree_util.tree_flatten_with_path(want)[0]
    for (path, a), b in zip(flat, jax.tree.leaves(final), strict=True):
        name = jax.tree_util.keystr(path)
        if not name.endswith("rewards"):
            np.testing.assert_array_equal(np.asarray(b), np.asarray(a), name)


@pytest.mark.parametrize(
    "case",
    [
        SLOW_FIRST,
        CASES[1],
        pytest.param(CASES[2], marks=SLOW),
        pytest.param(CASES[3], marks=SLOW),
        pytest.param(CASES[4], marks=SLOW),
        AUCTION2,
    ],
    ids=_id,
)
def test_the_step_before_the_play_is_the_public_steps(case):
    """``view.step_before_play`` (the play's outcome left out, for ``finish``'s decisions
    before the first lead) leaves every hand before its first lead exactly as the public step
    does, leaf by leaf, legal actions and illegal ones (an id outside the legal set ends the
    hand the same way), at every decision until each hand's first lead, once its legal set
    (which it leaves stale) is settled as ``finish`` settles it."""
    n, rules = case
    env = sf.forty_five.FortyFive(n, rules)
    full = jax.jit(jax.vmap(functools.partial(transition, env)))
    step = view.step_before_play(env)
    early = jax.jit(jax.vmap(lambda s, a: game.with_legal(step(s, a), rules)))
    b = 512
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(n), b), jnp.arange(b) % n)
    rng = np.random.default_rng(n)
    fouls = checked = 0
    for t in range(40):
        before = np.asarray(~states.terminated & (states.phase != game.PHASE_PLAY))
        if not before.any():
            break
        actions, foul = random_actions(rng, np.asarray(states.legal_action_mask), before)
        want, got = full(states, actions), early(states, actions)
        assert_live_leaves_equal(want, got, before, t)
        fouls, checked = fouls + foul, checked + int(before.sum())
        states = want
    assert checked > b // 4 and fouls > 0, (checked, fouls)  # (the cases were reached)


@pytest.mark.parametrize(
    "case", [SLOW_FIRST, CASES[1], pytest.param(CASES[3], marks=SLOW)], ids=_id
)
def test_the_builtin_seats_of_a_mixed_lineup_choose_on_the_kernel(case):
    """In the tricks of a lineup with a user's policy, the built-in random, greedy and heuristic
    seats choose on the kernel itself (the random from the hand's counter key, the kernel's
    draw): with stand-ins that fail if asked during the tricks (they still choose before the
    first lead, on the public step), the lineup plays the public step's hands with the real
    built-ins."""
    from spoilfive_jax.tools import policies

    n, rules = case
    env = sf.forty_five.FortyFive(n, rules)
    builtins = tuple(env.builtin_policy(x) for x in ("heuristic", "greedy", "random"))

    def before_the_play_only(real):
        def policy(key, state, player):
            asked = (state.phase == game.PHASE_PLAY) & ~state.terminated
            return jnp.where(asked, 99, real(key, state, player))  # (99: never legal)

        return policy

    names = (None, "heuristic", "greedy", "random")
    real = policies.Lineup((_first_bit, *builtins), names)
    stand_ins = policies.Lineup((_first_bit, *map(before_the_play_only, builtins)), names)
    sp = jnp.asarray([0, 1, 2, 3, 3, 1][:n])
    keys, ids, deal = _deal(env, 3, 256)
    got = jax.jit(lambda: policies.play_deals(env, stand_ins, keys, ids, deal, sp))()
    want = jax.jit(lambda: policies.play_public(env, real, keys, ids, deal, sp))()
    assert not np.asarray(want["illegal"]).any()
    for field, value in want.items():
        np.testing.assert_array_equal(np.asarray(got[field]), np.asarray(value), field)


@pytest.mark.parametrize(
    "case",
    [
        CASES[1],  # (announced jinks, robs: by default)
        pytest.param(CASES[3], marks=SLOW),  # (the auction, the joker, six seats)
        pytest.param(CASES[4], marks=pytest.mark.slow),
    ],
    ids=_id,
)
def test_the_builtin_random_as_a_callable_plays_the_kernels_hands(case):
    """The loops hand a policy counter keys (``core.keys``) whose first number at decision t
    is the kernel's own draw, and the family's built-in random picks as the kernel does (the
    k-th legal action, cards by strength position): called as a function on the public
    ``State`` it plays the very hands of the kernel's random, field by field, through every
    phase (robs, the joker, announcements, the auction, discards)."""
    n, rules = case
    env = sf.forty_five.FortyFive(n, rules)
    random = env.builtin_policy("random")

    def as_callable(key, state, player):
        return random(key, state, player)

    kernel = sf.rollout(7, env, "random", num_hands=1024, batch_size=512)
    called = sf.rollout(7, env, as_callable, num_hands=1024, batch_size=512)
    for field in kernel.fields:
        np.testing.assert_array_equal(getattr(called, field), getattr(kernel, field), field)
