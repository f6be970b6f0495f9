"""Rollouts, the fast kernel's equivalence with the public step, sessions and auto-reset."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.games.spoil_five import fast

PRESETS = {
    "seed": sf.spoil_five.Rules(),
    "traditional": sf.spoil_five.Rules.traditional(),
    "trick-norob-nojink": sf.spoil_five.Rules(
        renege="trick", rob="off", jink=False, deal_packets=(3, 2)
    ),
    "forced-dealer-ante": sf.spoil_five.Rules(
        rob="forced", ante_after_spoil="dealer", ante=2, jink_bonus=3
    ),
}


@functools.cache
def _fast_fns(n: int, rules: sf.spoil_five.Rules):
    """Jitted deal / legal / apply of the fast kernel for a batch (one compile per config)."""
    deal = jax.jit(lambda deck, dealer, carried: fast.deal(deck, dealer, carried, n, rules))
    legal = jax.jit(lambda h, table: fast.legal(h, table, rules))
    apply = jax.jit(lambda h, table, pos: fast.apply(h, table, pos, n, rules))
    outcome = jax.jit(lambda h, table: fast.outcome(h, table, n, rules))
    return deal, legal, apply, outcome


@functools.cache
def _public_fns(n: int, rules: sf.spoil_five.Rules):
    env = sf.spoil_five.SpoilFive(n, rules)
    init = jax.jit(jax.vmap(env.init_from_deck))
    step = jax.jit(jax.vmap(env.step))
    return env, init, step


def _positions_to_cards(lo, hi, trump):
    """Card/action ids of a strength-position set, per hand (numpy only)."""
    shifts = np.arange(32, dtype=np.uint32)
    member = np.concatenate([(lo[:, None] >> shifts) & 1, (hi[:, None] >> shifts) & 1], axis=1)
    return [
        sorted(int(fast.CARD[trump[b], p]) for p in np.flatnonzero(member[b]))
        for b in range(len(trump))
    ]


# (the traditional preset steps on the kernel by default in test_view.py's n3 case)
FAST_CASES = [
    (2, "seed"),
    (3, "forced-dealer-ante"),
]
SLOW_CASES = [
    (n, p) for n in (2, 3, 4, 5, 6, 7, 8, 9, 10) for p in PRESETS if (n, p) not in FAST_CASES
]


@pytest.mark.parametrize(
    ("n", "preset"),
    FAST_CASES + [pytest.param(n, p, marks=pytest.mark.slow) for n, p in SLOW_CASES],
)
def test_fast_kernel_matches_public_step(n, preset):
    """Same deals, same (random) choices: same legal sets at every decision, same results."""
    rules = PRESETS[preset]
    b = 48
    rng = np.random.default_rng(n * 7 + len(preset))
    decks = np.stack([rng.permutation(52) for _ in range(b)]).astype(np.int32)
    dealer = rng.integers(0, n, b).astype(np.int32)
    carried = rng.integers(0, 4, b).astype(np.int32)
    deal, legal, apply, outcome = _fast_fns(n, rules)
    _env, init, step = _public_fns(n, rules)
    table, h = deal(jnp.asarray(decks), jnp.asarray(dealer), jnp.asarray(carried))
    state = init(jnp.asarray(decks), jnp.asarray(dealer), jnp.asarray(carried))
    trump = np.asarray(table.trump)
    total = np.zeros((b, n), np.float32)
    for _ in range(5 * n + 2):
        lo, hi = (np.asarray(x) for x in legal(h, table))
        fast_legal = _positions_to_cards(lo, hi, trump)
        live = ~np.asarray(state.terminated)
        mask = np.asarray(state.legal_action_mask)
        for i in np.flatnonzero(live):
            assert fast_legal[i] == np.flatnonzero(mask[i]).tolist(), (i, preset)
        cur = np.asarray(fast.get(h.status, fast._F_CUR))
        assert (cur[live] == np.asarray(state.current_player)[live]).all()
        # A random legal choice per hand, fed to both engines.
        count = np.array([max(len(x), 1) for x in fast_legal])
        pick = (rng.random(b) * count).astype(int)
        positions = np.zeros(b, np.int32)
        actions = np.zeros(b, np.int32)
        for i in range(b):
            if fast_legal[i]:
                actions[i] = fast_legal[i][pick[i]]
                positions[i] = (
                    fast.POSITION[trump[i], actions[i]]
                    if actions[i] < 52
                    else {
                        sf.spoil_five.PASS: fast.P_PASS,
                        sf.spoil_five.JINK: fast.P_JINK,
                        sf.spoil_five.CLAIM: fast.P_CLAIM,
                    }[actions[i]]
                )
        h = apply(h, table, jnp.asarray(positions))
        state = step(state, jnp.asarray(actions))
        total += np.asarray(state.rewards)
    out = outcome(h, table)
    assert np.asarray(state.terminated).all() and np.asarray(out.done).all()
    np.testing.assert_array_equal(np.asarray(out.rewards), total)
    np.testing.assert_array_equal(np.asarray(out.tricks_won), np.asarray(state.tricks_won))
    np.testing.assert_array_equal(np.asarray(out.winner), np.asarray(state.winner))
    np.testing.assert_array_equal(np.asarray(out.decisions), np.asarray(state._step_count))
    np.testing.assert_array_equal(np.asarray(out.robbed), np.asarray(state.robbed))
    np.testing.assert_array_equal(np.asarray(out.carried_out), np.asarray(state.carried_out))
    np.testing.assert_array_equal(np.asarray(out.jinked), np.asarray(state.jinker) >= 0)


def _public_heuristic(key, state, player):
    """The built-in heuristic called as an arbitrary user policy (forces the public path)."""
    return sf.spoil_five.HEURISTIC(key, state, player)


@pytest.mark.parametrize(
    "rules",
    [
        sf.spoil_five.Rules(),
        pytest.param(sf.spoil_five.Rules.traditional(), marks=pytest.mark.slow),
    ],
    ids=["seed", "trad"],
)
def test_heuristic_same_on_fast_and_public_paths(rules):
    """The heuristic on the fast kernel and on the public State choose identically, so the two
    rollout paths give identical hands for the same key."""
    env = sf.spoil_five.SpoilFive(4, rules)
    fast_out = sf.rollout(3, env, "heuristic", num_hands=1024, batch_size=1024)
    public_out = sf.rollout(3, env, _public_heuristic, num_hands=1024, batch_size=1024)
    for field in ("rewards", "tricks_won", "winner", "decisions", "robbed", "jinked"):
        np.testing.assert_array_equal(getattr(fast_out, field), getattr(public_out, field))


def test_rollout_contract_shapes_and_dtypes():
    env = sf.spoil_five.SpoilFive(5)
    out = sf.rollout(jax.random.PRNGKey(0), env, policy="random", num_hands=1000)
    assert out.rewards.shape == (1000, 5) and out.rewards.dtype == np.float32
    assert out.tricks_won.shape == (1000, 5) and out.tricks_won.dtype == np.int32
    assert out.winner.shape == (1000,) and out.winner.dtype == np.int32
    assert out.decisions.shape == (1000,) and out.decisions.dtype == np.int32
    assert out.jinked.dtype == np.bool_ and out.robbed.dtype == np.bool_
    # Every hand ends by the rules: a winner with 3+ tricks, or nobody (spoil / failed jink).
    w = out.winner
    has = w >= 0
    assert (out.tricks_won[has, w[has]] >= 3).all()
    assert ((out.tricks_won < 3).all(1) | out.jinked)[~has].all()
    # Chips: the pot (5 antes) goes to the winner; a spoil costs everyone the ante.
    expect = np.where(np.arange(5) == w[:, None], 4.0, -1.0)
    plain = has & ~out.jinked
    np.testing.assert_array_equal(out.rewards[plain], expect[plain])
    np.testing.assert_array_equal(out.rewards[~has & ~out.jinked], -1.0)
    assert (out.decisions >= 15).all() and (out.decisions <= 27).all()


def test_rollout_deal_is_a_uniform_shuffle_with_consistent_positions():
    """``random_cards`` (the rollout deal, drawn in strength-position space once the turn-up
    fixes trumps): 26 distinct cards per hand, positions = POSITION[trump, card], and each
    deck position's card uniform given the trump suit (chi-square over 20,000 hands)."""
    hands = 20_000
    cards, positions = jax.jit(lambda ids: fast.random_cards(jnp.uint32(99), ids, 26))(
        jnp.arange(hands, dtype=jnp.uint32)
    )
    cards, positions = np.stack(cards, 1), np.stack(positions, 1)  # [H, 26], turn-up last
    assert ((cards >= 0) & (cards < 52)).all()
    assert (np.sort(cards, 1)[:, 1:] != np.sort(cards, 1)[:, :-1]).all()  # distinct
    trump = cards[:, -1] // 13
    np.testing.assert_array_equal(positions, fast.POSITION[trump[:, None], cards])
    suit = np.arange(52) // 13
    for k in (0, 7, 24):
        stat = 0.0
        for t in range(4):
            drawn = cards[trump == t, k]
            # P(card c | trump t) = P(the turn-up is not c) / 51.
            expect = len(drawn) / 51 * np.where(suit == t, 12 / 13, 1.0)
            stat += float((((np.bincount(drawn, minlength=52) - expect) ** 2) / expect).sum())
        assert stat < 300, (k, stat)  # 204 degrees of freedom: p < 1e-5 above 300
    turn = np.bincount(cards[:, -1], minlength=52)
    assert (((turn - hands / 52) ** 2) / (hands / 52)).sum() < 110  # 51 dof


def test_rollout_deterministic_and_batch_independent():
    env = sf.spoil_five.SpoilFive(5)
    a = sf.rollout(7, env, "random", num_hands=1000)  # one batch of 1024
    b = sf.rollout(7, env, "random", num_hands=1000, batch_size=256)  # four calls' worth
    c = sf.rollout(8, env, "random", num_hands=1000)
    np.testing.assert_array_equal(a.rewards, b.rewards)
    np.testing.assert_array_equal(a.winner, b.winner)
    assert (a.winner != c.winner).any()


def test_rollout_progress_and_summary():
    env = sf.spoil_five.SpoilFive(5)
    seen = []
    out = sf.rollout(
        1, env, "random", num_hands=2500, batch_size=1024, progress=lambda d, t: seen.append((d, t))
    )
    assert seen[-1] == (2500, 2500) and len(seen) >= 1
    s = out.summary()
    assert s["hands"] == 2500
    assert (
        abs(s["win_rate"].sum() + s["spoil_rate"] + np.mean((out.winner < 0) & out.jinked) - 1)
        < 1e-9
    )
    assert (s["mean_chips_se"] > 0).all()


def test_rollout_mixed_seat_policies_and_heuristic_beats_random():
    env = sf.spoil_five.SpoilFive(5)
    mixed = sf.rollout(
        2, env, ["heuristic", "random", "random", "random", "random"], num_hands=8192
    )
    s = mixed.summary()
    others = s["mean_chips"][1:].mean()
    assert s["mean_chips"][0] > others + 5 * s["mean_chips_se"][0]


def test_rollout_validation():
    env = sf.spoil_five.SpoilFive(5)
    with pytest.raises(ValueError, match="num_hands"):
        sf.rollout(0, env, num_hands=0)
    with pytest.raises(ValueError, match="policy"):
        sf.rollout(0, env, policy="clever", num_hands=10)
    with pytest.raises(ValueError, match="one per seat"):
        sf.rollout(0, env, policy=["random"] * 4, num_hands=10)
    with pytest.raises(ValueError, match="dealer"):
        sf.rollout(0, env, num_hands=10, dealer=5)
    with pytest.raises(ValueError, match="env"):
        sf.rollout(0, "spoilfive", num_hands=10)


def test_rollout_carried_pot_and_dealer_antes():
    rules = sf.spoil_five.Rules(ante_after_spoil="dealer")
    env = sf.spoil_five.SpoilFive(4, rules)
    out = sf.rollout(4, env, "random", num_hands=2048, dealer=2, carried=6)
    # Only the dealer (seat 2) antes when chips are carried in: pot = 6 + 1.
    w = out.winner
    plain = (w >= 0) & ~out.jinked
    rows = np.flatnonzero(plain)
    paid = np.where(np.arange(4) == 2, 1.0, 0.0)
    expect = np.where(np.arange(4) == w[rows, None], 7.0, 0.0) - paid
    np.testing.assert_array_equal(out.rewards[rows], expect)
    assert (out.carried_out[w < 0] == 7).all()


SHARD_SCRIPT = textwrap.dedent(
    """
    import sys, numpy as np, jax, spoilfive_jax as sf
    table = sf.spoil_five.SpoilFive(4)
    out = sf.rollout(11, table, "heuristic", num_hands=2048, batch_size=1024)
    sc = sf.score_hands(5, [[30, 36, 26, 38, 1]], 47, 1, num_rollouts=512, env=table)
    np.savez(sys.argv[1], r=out.rewards, w=out.winner, s=sc.expected_chips,
             n=jax.device_count())
    """
)


@pytest.mark.slow
def test_sharded_over_four_devices_gives_same_results(tmp_path):
    """Same key -> same results on 4 (forced host) devices as on this process's one device."""
    script = tmp_path / "shard.py"
    script.write_text(SHARD_SCRIPT)
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4")
    path = tmp_path / "out4.npz"
    subprocess.run([sys.executable, str(script), str(path)], env=env, check=True)
    four = np.load(path)
    assert int(four["n"]) == 4 and jax.device_count() == 1
    table = sf.spoil_five.SpoilFive(4)
    out = sf.rollout(11, table, "heuristic", num_hands=2048, batch_size=1024)
    sc = sf.score_hands(5, [[30, 36, 26, 38, 1]], 47, 1, num_rollouts=512, env=table)
    np.testing.assert_array_equal(out.rewards, four["r"])
    np.testing.assert_array_equal(out.winner, four["w"])
    np.testing.assert_array_equal(sc.expected_chips, four["s"])


# ------------------------------------------------------------------------ sessions


def test_sessions_conserve_chips_and_stop_on_bust():
    env = sf.spoil_five.SpoilFive(4, sf.spoil_five.Rules(ante_after_spoil="dealer"))
    res = sf.play_sessions(0, env, "heuristic", num_sessions=200, max_hands=60, stack=8)
    total = res.stacks.sum(1) + res.pot
    assert (total == 4 * 8).all()  # chips plus the carried pot are conserved exactly
    assert (res.hands_played <= 60).all() and (res.hands_played >= 1).all()
    busted = (res.stacks <= 0).any(1)
    np.testing.assert_array_equal(busted, res.busted)
    # After the session ends no more chips move.
    for s in range(20):
        k = res.hands_played[s]
        assert (res.chips_by_hand[s, k:] == 0).all()
        np.testing.assert_array_equal(res.chips_by_hand[s].sum(0).astype(int) + 8, res.stacks[s])
    # Sessions that hit the limit without a bust played every hand.
    assert (res.hands_played[~res.busted] == 60).all()


def test_sessions_rotate_the_dealer_and_carry_the_pot():
    env = sf.spoil_five.SpoilFive(3)
    res = sf.play_sessions(1, env, "random", num_sessions=50, max_hands=12, stack=100)
    # With "all" antes, a hand after a spoil has a pot of 3 + carried: some win more than 2.
    wins = res.chips_by_hand[res.chips_by_hand > 0]
    assert (wins == 2).any() and (wins > 2).any()


# ------------------------------------------------------------------------ auto reset


def test_auto_reset_starts_a_new_hand_and_keeps_final_rewards():
    env = sf.spoil_five.SpoilFive(3)
    auto = sf.auto_reset(env.step, env.init)

    @jax.jit
    def play(state, key):
        k1, k2 = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        return auto(state, jax.random.categorical(k1, logits).astype(jnp.int32), k2)

    state = env.init(jax.random.PRNGKey(0))
    ends, total = 0, 0.0
    for key in jax.random.split(jax.random.PRNGKey(1), 150):
        state = play(state, key)
        if bool(state.terminated):
            ends += 1
            total += float(state.rewards.sum())
            assert int(state._step_count) == 0  # already the next hand
            assert not bool(state.legal_action_mask.all())
        else:
            assert float(jnp.abs(state.rewards).sum()) == 0.0
    assert ends >= 5
    assert total <= 0  # spoils lose the antes; wins are zero-sum
