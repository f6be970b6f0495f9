"""The family's analysis playouts on the rollout kernel (``forty_five.fast_playout``) against
the public-step playouts they replace (``infer.public_playout``): the SAME values for the
deterministic built-in policies on random mid-hand positions of every phase (bidding, naming
trump, discarding, rob, jink announcements, play; resampled worlds; game scores at which
Auction's lowest bid is 20), and for ``"random"`` legal play with the same mean values."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core.transition import transition
from spoilfive_jax.games.forty_five import fast_play, fast_playout, game, infer
from spoilfive_jax.games.forty_five.rules import FortyFiveRules

R = FortyFiveRules
CONFIGS = [  # (players, rules): every table size and the joker, rob and jink options
    (4, R()),
    (2, R(joker=True, jink="announced")),
    (3, R(rob="forced", renege="deal", follow="seed")),
    (5, R(joker=True, joker_rank="above_AH", rob="off", jink="wins_game")),
    (6, R(jink="announced", scoring="hoyle", renege="trick")),
    (4, R(variant="twenty_five", joker=True, rob="forced", jink="announced")),
    (3, R(variant="twenty_five", deal_packets=(3, 2))),
    (4, R(variant="auction")),
    (2, R(variant="auction", joker=True)),
    (5, R(variant="auction", min_bid_at_100=False)),
    (6, R(variant="auction", joker=True, renege="deal")),
]


def _ids(config: tuple[int, FortyFiveRules]) -> str:
    n, r = config
    return f"{r.variant}{n}-j{int(r.joker)}-{r.rob}-{r.jink}"


def _after(env: sf.Env, count: int, seed: int) -> tuple[game.State, jax.Array, jax.Array]:
    """(``count`` states just after a random legal action at a random point of a random hand,
    half of them resampled worlds of the player to act; that player; a PRNG key each)."""
    n, rules = env.num_players, env.rules
    k_init, k_scores, k_moves, k_world, k_play = jax.random.split(jax.random.PRNGKey(seed), 5)
    state = jax.vmap(env.init)(jax.random.split(k_init, count))
    low = jnp.where(jnp.arange(count)[:, None] % 2 == 0, 0, rules.goal - 20)  # (Auction: 100+)
    scores = jax.random.randint(k_scores, (count, game.num_teams(n)), low, rules.goal)
    state = state.replace(scores=scores.astype(jnp.int32))
    state = state.replace(legal_set=jax.vmap(lambda s: game.legal_set(s, rules))(state))
    stop = jax.random.randint(k_moves, (count,), 0, game.max_decisions(n, rules))
    act = jax.vmap(env.builtin_policy("random"))
    step = jax.vmap(functools.partial(transition, env))

    def decide(t: jax.Array, state: game.State) -> game.State:
        keys = jax.random.split(jax.random.fold_in(k_moves, t), count)
        new = step(state, act(keys, state, jnp.maximum(state.current_player, 0)))
        move = (t < stop) & ~new.terminated
        return jax.tree.map(lambda a, b: jnp.where(_wide(move, a), a, b), new, state)

    state = jax.lax.fori_loop(0, game.max_decisions(n, rules), decide, state)
    player = jnp.maximum(state.current_player, 0)
    resample = jax.vmap(functools.partial(infer.resample_hidden, env))
    world = resample(jax.random.split(k_world, count), state, player)
    half = jnp.arange(count) % 2 == 1
    state = jax.tree.map(lambda w, s: jnp.where(_wide(half, w), w, s), world, state)
    keys = jax.random.split(k_play, count)
    action = act(keys, state, player)
    return step(state, action), player, jax.random.split(jax.random.fold_in(k_play, 1), count)


def _wide(m: jax.Array, a: jax.Array) -> jax.Array:
    return m.reshape(m.shape + (1,) * (a.ndim - 1))


@functools.cache
def _paths(n: int, rules: FortyFiveRules, kind: str, count: int, seed: int):
    """(public values, kernel values, phases before the playout): numpy."""
    env = sf.forty_five.FortyFive(n, rules)

    @jax.jit
    def run():
        after, player, keys = _after(env, count, seed)
        step = functools.partial(transition, env)
        old = infer.public_playout(keys, after, player, kind, rules, step)
        new = fast_playout.playout_kernel(keys, after, player, kind, rules)
        return old, new, after.phase

    return jax.device_get(run())


def _cases() -> list:
    """Every config with the heuristic and greedy; by default the heuristic on Auction, the
    rest slow (each case compiles its own table: the default run has a time budget).  The
    heuristic's Forty-Five playouts are checked by default in ``test_endgame``, whose play up to
    the solve is theirs; the rollout kernel's greedy and heuristic choices, and its play with
    the joker, jinks and Twenty-Five, against the public step by default in ``test_fast``."""
    default = {(7, "heuristic")}
    cases = []
    for kind in ("heuristic", "greedy"):
        for i, c in enumerate(CONFIGS):
            marks = [] if (i, kind) in default else [pytest.mark.slow]
            cases.append(pytest.param(c, kind, id=f"{kind}-{_ids(c)}", marks=marks))
    return cases


@pytest.mark.parametrize("config,kind", _cases())
def test_kernel_playout_equals_public_playout(config, kind) -> None:
    n, rules = config
    old, new, phases = _paths(n, rules, kind, 256, seed=n)
    for field in infer.FIELDS:
        np.testing.assert_array_equal(new[field], old[field], err_msg=field)
    seen = set(np.unique(phases).tolist())
    assert game.PHASE_PLAY in seen and game.PHASE_DONE in seen
    if rules.auction:
        assert {game.PHASE_BID, game.PHASE_DISCARD} <= seen
    if rules.jink == "announced":
        assert game.PHASE_ANNOUNCE in seen


@pytest.mark.slow
def test_random_kernel_playouts_are_legal_and_agree_in_mean() -> None:
    """Random playouts: the mean points (and Auction's made bids) agree with the public
    path's within the noise."""
    for n, rules in [(4, R(variant="auction")), (3, R(joker=True, jink="announced"))]:
        old, new, _ = _paths(n, rules, "random", 4096, seed=7)
        a, b = np.asarray(old["expected_points"]), np.asarray(new["expected_points"])
        se = np.sqrt(a.var() / a.size + b.var() / b.size)
        assert abs(a.mean() - b.mean()) < 5 * se + 1e-6, (a.mean(), b.mean(), se)
        assert np.isfinite(b).all()
        if rules.auction:
            ma, mb = np.asarray(old["make_prob"]), np.asarray(new["make_prob"])
            assert abs(ma.mean() - mb.mean()) < 0.05


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_random_kernel_choices_are_legal() -> None:
    """Random playouts on the kernel from resumed Auction positions (bidding, discards,
    play): every hand ends after five tricks, having played exactly the cards its seats held
    after the discards (each choice drawn from the kernel's legal sets)."""
    n, rules = 4, R(variant="auction")
    env = sf.forty_five.FortyFive(n, rules)
    after, _, keys = jax.jit(lambda: _after(env, 512, 3))()
    r = fast_playout.resume(after, fast_playout.chooser_of(keys, "random", n), rules)
    p = fast_playout.finish(r, n, rules)
    tricks = np.stack(
        [(np.asarray(p.tricks) >> (fast_play._TRICK_BITS * s)) & 7 for s in range(n)], -1
    )
    assert (tricks.sum(-1) == game.NUM_TRICKS).all()
    # every card held at the resumed point was played, each by its holder's legal choice
    held_lo = np.bitwise_or.reduce(np.stack([np.asarray(x) for x in r.table.held_lo]), 0)
    held_hi = np.bitwise_or.reduce(np.stack([np.asarray(x) for x in r.table.held_hi]), 0)
    live = ~np.asarray(after.terminated)
    np.testing.assert_array_equal(np.asarray(p.removed_lo)[live], held_lo[live])
    np.testing.assert_array_equal(np.asarray(p.removed_hi)[live], held_hi[live])
