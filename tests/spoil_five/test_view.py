"""Any policy on Spoil Five's rollout kernel (``view``): the public ``State`` read from the
kernel's layout is the public step's, leaf by leaf, at every decision; a rollout of any lineup
on the kernel plays the same hands as on the public step (``tools.policies.play_batch``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.bits import lowest
from spoilfive_jax.games.spoil_five import fast, rollouts, view
from spoilfive_jax.tools import policies

R = sf.spoil_five.Rules
CASES = [
    (5, R()),
    (3, R.traditional()),
    (2, R(renege="trick", rob="forced", ante_after_spoil="dealer", jink_bonus=3)),
    (7, R(renege="led", rob="off", jink=False, deal_packets=(3, 2), illegal_penalty=4)),
]


def _deal(env, seed: int, b: int):
    """A batch of rollout deals, each hand with its own dealer and a carried pot."""
    keys = rollouts.rollout_keys(env, jax.random.PRNGKey(seed))
    ids = jnp.arange(b, dtype=jnp.uint32)
    deal = rollouts.rollout_deal(env, keys, ids, {"dealer": 0, "carried": 2})
    return keys, ids, deal._replace(dealer=ids.astype(jnp.int32) % env.num_players)


# (-m slow: the default rules at five seats, which the rollouts below play on the kernel; the
# others hold every other option)
VIEW_CASES = [pytest.param(*CASES[0], id="n5", marks=pytest.mark.slow)] + [
    pytest.param(n, rules, id=f"n{n}") for n, rules in CASES[1:]
]


@pytest.mark.parametrize(("n", "rules"), VIEW_CASES)
def test_view_is_the_public_state_at_every_decision(n, rules):
    """Random play with a few illegal actions (ids outside 0..54 too), both engines stepped
    together: every leaf of every live hand's view equals the public step's state."""
    env = sf.make("spoil_five", num_players=n, rules=rules)
    b = 96
    _keys, _ids, deal = _deal(env, n, b)
    state = rollouts.deal_states(env, deal)
    table, h = fast.deal_cards(deal.cards, deal.dealer, deal.carried, n, rules, deal.positions)
    x = jax.vmap(lambda c, d: view.first_extras(c, d, n))(
        deal.cards[5 * n], view.dealt_ids(deal.cards, deal.dealer, n, rules)
    )
    views = jax.jit(jax.vmap(lambda h1, t1, x1: view.public_state(h1, t1, x1, n, rules)))
    step = jax.jit(jax.vmap(env.step))

    @jax.jit
    def kernel_step(h, x, v, a):
        live = ~v.terminated
        ok = live & jax.vmap(lambda s, b: sf.core.env.is_legal(s, b, 55))(v.legal_set, a)
        bad = live & ~ok
        status = jnp.where(bad, fast.put(h.status, fast._F_PHASE, fast.DONE), h.status)
        pos = view.action_position(a, table.trump)
        h = fast.apply(h._replace(status=status), table, pos, n, rules)
        nxt = jax.vmap(lambda v1, x1, a1, o, bd: view.next_extras(v1, x1, a1, o, bd, rules))
        return h, nxt(v, x, a, ok, bad)

    rng = np.random.default_rng(n)
    seen_illegal = seen_rob = 0
    for t in range(5 * n + 2):
        v = views(h, table, x)
        live = ~np.asarray(state.terminated)
        assert_live_leaves_equal(state, v, live, t)
        a, foul = random_actions(rng, np.asarray(state.legal_action_mask), live)
        seen_illegal += foul
        seen_rob += int((live & (np.asarray(state.phase) == 0)).sum())
        state, (h, x) = step(state, jnp.asarray(a)), kernel_step(h, x, v, jnp.asarray(a))
    assert seen_illegal > 0 and (seen_rob > 0 or rules.rob == "off")


def assert_live_leaves_equal(want, got, live: np.ndarray, t: int) -> None:
    """Every leaf of the batched states ``got`` equals ``want``'s in every ``live`` hand (the
    first difference named with decision ``t``)."""
    flat = jax.tree_util.tree_flatten_with_path(want)[0]
    for (path, a), b in zip(flat, jax.tree.leaves(got), strict=True):
        a, b = np.asarray(a), np.asarray(b)
        differ = (a != b).reshape(live.shape[0], -1).any(1) & live
        assert not differ.any(), (t, jax.tree_util.keystr(path), int(np.flatnonzero(differ)[0]))


def random_actions(
    rng: np.random.Generator, mask: np.ndarray, live: np.ndarray
) -> tuple[np.ndarray, int]:
    """(a random legal action of each hand of ``mask`` bool[B, A], 3% of them replaced by any
    id from -2 to A + 2; how many of those are illegal in a live hand)."""
    b, width = mask.shape
    a = (rng.random(mask.shape) * mask).argmax(1)
    foul = rng.random(b) < 0.03
    a = np.where(foul, rng.integers(-2, width + 3, b), a).astype(np.int32)
    return a, int((foul & live & ~mask[np.arange(b), np.clip(a, 0, width - 1)]).sum())


def _user_random(key, state, player):
    """A user's random legal choice that plays an illegal action about 1% of the time."""
    mask = state.legal_action_mask
    a = jnp.argmax(jnp.where(mask, jax.random.uniform(key, mask.shape), -1.0))
    return jnp.where(jax.random.uniform(jax.random.fold_in(key, 9)) < 0.01, 60, a)


def _first_bit(key, state, player):
    """The lowest legal action, from the bitset (reads one leaf, draws nothing)."""
    return lowest(state.legal_set)


@pytest.mark.parametrize(
    ("n", "rules", "spec"),
    [  # (-m slow: mixed lineups; by default a mixed one plays in the next test)
        pytest.param(
            5,
            R(),
            [_user_random, "random", _first_bit, "heuristic", _user_random],
            id="mixed5",
            marks=pytest.mark.slow,
        ),
        pytest.param(3, R.traditional(), _user_random, id="user3"),
        pytest.param(
            4,
            R(rob="forced", jink=False),
            [_first_bit, "heuristic"] * 2,
            id="bits4",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_any_lineup_plays_the_public_steps_hands(n, rules, spec):
    """``play_deals`` of a lineup with callables runs on the kernel (``view.play``) and returns
    the public step's records hand by hand: rewards, winners, decisions, illegal endings."""
    env = sf.make("spoil_five", num_players=n, rules=rules)
    assert_lineup_plays_the_public_steps_hands(env, spec, *_deal(env, 11 + n, 512), _user_random)


def assert_lineup_plays_the_public_steps_hands(env, spec, keys, ids, deal, fouler) -> None:
    """The game offers a kernel for the lineup ``spec`` (``RolloutKernel``), and ``play_deals``
    of ``deal`` on it returns ``play_public``'s records, field by field, hand by hand; where the
    lineup has ``fouler`` (a policy that plays an illegal action now and then), some hand ended
    on one."""
    lineup, seat_policy = policies.lineup(env, spec)
    assert env.capability(caps.RolloutKernel).rollout_kernel(env, lineup.names, lineup.policies)
    sp = jnp.asarray(seat_policy)
    on_kernel = jax.jit(lambda: policies.play_deals(env, lineup, keys, ids, deal, sp))()
    public = jax.jit(lambda: policies.play_public(env, lineup, keys, ids, deal, sp))()
    assert sorted(on_kernel) == sorted(public)
    for field, want in public.items():
        np.testing.assert_array_equal(np.asarray(on_kernel[field]), np.asarray(want), field)
    if fouler in (spec if isinstance(spec, list) else [spec]):
        assert np.asarray(public["illegal"]).any()


def test_the_builtin_seats_of_a_mixed_lineup_choose_on_the_kernel():
    """In a lineup with a user's policy, the seats of the built-in ``"heuristic"`` and
    ``"random"`` choose on the kernel itself, never through their callables on the public view
    (which would rebuild the kernel's view from it at every decision): a lineup whose built-in
    names carry callables that fail when called still plays, the public step's hands with the
    real built-ins."""
    env = sf.make("spoil_five", num_players=4)

    def never(key, state, player):
        raise AssertionError("a built-in seat was asked through its callable")

    names = (None, "heuristic", "random")
    real = policies.Lineup((_first_bit, *(env.builtin_policy(x) for x in names[1:])), names)
    stand_ins = policies.Lineup((_first_bit, never, never), names)
    sp = jnp.asarray([0, 1, 2, 1])
    keys, ids, deal = _deal(env, 5, 256)
    got = jax.jit(lambda: policies.play_deals(env, stand_ins, keys, ids, deal, sp))()
    want = jax.jit(lambda: policies.play_public(env, real, keys, ids, deal, sp))()
    for field, value in want.items():
        np.testing.assert_array_equal(np.asarray(got[field]), np.asarray(value), field)


def test_only_read_zeroes_what_a_policy_does_not_read():
    """A policy gets zeros for every leaf it does not read and for keys it does not use; its
    actions are unchanged."""
    env = sf.make("spoil_five", num_players=4)
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 8))
    keys = jax.random.split(jax.random.PRNGKey(1), 8)
    given, seen = policies.only_read(_first_bit, keys, states)
    assert not np.asarray(given).any()
    for path, leaf in jax.tree_util.tree_flatten_with_path(seen)[0]:
        name = jax.tree_util.keystr(path)
        assert np.asarray(leaf).any() == name.startswith(".legal_set"), name
    given, seen = policies.only_read(_user_random, keys, states)
    np.testing.assert_array_equal(np.asarray(given), np.asarray(keys))
    typed = jax.random.split(jax.random.key(1), 8)  # new-style keys are zeroed as keys
    assert jax.dtypes.issubdtype(
        policies.only_read(_first_bit, typed, states)[0].dtype, jax.dtypes.prng_key
    )
    for policy in (_first_bit, _user_random):
        k, s = policies.only_read(policy, keys, states)
        np.testing.assert_array_equal(
            np.asarray(jax.vmap(policy)(k, s, states.current_player)),
            np.asarray(jax.vmap(policy)(keys, states, states.current_player)),
        )


@pytest.mark.parametrize("n", [pytest.param(n, marks=pytest.mark.slow) for n in (2, 9)] + [5])
def test_the_builtin_random_as_a_callable_plays_the_kernels_hands(n):
    """The loops hand a policy counter keys (``core.keys``) whose first number at decision t is
    the kernel's own draw, and the built-in random picks as the kernel does (the k-th legal
    action by strength): called as a function on the public ``State`` it plays the very hands
    of the kernel's random, field by field."""
    env = sf.make("spoil_five", num_players=n)

    def as_callable(key, state, player):
        return sf.spoil_five.policies.RANDOM(key, state, player)

    kernel = sf.rollout(7, env, "random", num_hands=2048, batch_size=1024)
    called = sf.rollout(7, env, as_callable, num_hands=2048, batch_size=1024)
    for field in kernel.fields:
        np.testing.assert_array_equal(getattr(called, field), getattr(kernel, field), field)


@pytest.mark.parametrize(
    ("n", "rules"),
    [  # (-m slow: n3's rules step on the kernel by default in the view test above)
        pytest.param(*CASES[0], marks=pytest.mark.slow, id="n5"),
        pytest.param(*CASES[1], marks=pytest.mark.slow, id="n3"),
        pytest.param(*CASES[2], id="n2"),
    ],
)
def test_playouts_from_mid_hand_on_the_kernel_are_the_public_steps(n, rules):
    """``view.play_on`` (an analysis's playouts with a policy of the user's) plays states taken
    at every depth of random hands, and states already over, to the same rewards and winners
    as ``core.resample.play_out`` through the public step, hand by hand."""
    from spoilfive_jax.core.resample import play_out
    from spoilfive_jax.core.transition import transition

    env = sf.make("spoil_five", num_players=n, rules=rules)
    b = 64
    step = jax.jit(jax.vmap(env.step))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(n), b))
    starts = []
    for t in range(5 * n + 2):
        starts.append(state)
        keys = jax.random.split(jax.random.PRNGKey(100 + t), b)
        state = step(state, jax.vmap(sf.random_legal)(keys, state))
    starts.append(state)  # (every hand over)
    states = jax.tree.map(lambda *x: jnp.concatenate(x), *starts)
    keys = jax.random.split(jax.random.PRNGKey(7), states.turnup.shape[0])

    def public(keys, states):
        final, total = play_out(keys, states, _user_random, lambda s, a: transition(env, s, a))
        return total, final.winner

    kernel = jax.jit(lambda k, s: view.play_on(s, k, _user_random, n, rules))
    got, want = kernel(keys, states), jax.jit(public)(keys, states)
    np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(want[0]))
    np.testing.assert_array_equal(np.asarray(got[1]), np.asarray(want[1]))
