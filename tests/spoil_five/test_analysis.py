"""Position analysis, Spoil Five: the information-state record, consistent
resampling (every sampled world replays the public history legally; uniform against an exhaustive
enumeration), ``analyze`` (independent of hidden cards and of the batch size, exact against
enumerated random play, SE ~ 1/sqrt(K)) and the ``pimc`` bot."""

from __future__ import annotations

import functools
import itertools

import jax
import numpy as np
import pytest
from conftest import batched_step

import spoilfive_jax as sf
from spoilfive_jax.core import bits
from spoilfive_jax.games.spoil_five import game

try:
    import reference as ref
except ImportError:  # pragma: no cover
    from tests import reference as ref

RULESETS = {
    "seed": sf.spoil_five.Rules(),
    "traditional": sf.spoil_five.Rules.traditional(),
    "trick_forced": sf.spoil_five.Rules(renege="trick", rob="forced"),
}


def card_set(lo, hi) -> set[int]:
    word = int(lo) | int(hi) << 32
    return {c for c in range(52) if word >> c & 1}


def pick(batch, i):
    return jax.tree.map(lambda x: np.asarray(x)[i], batch)


@functools.cache
def played_games(n: int, rules_name: str, games: int = 32, seed: int = 1):
    """Random games: (list of batched host states by decision, actions [T, B], players [T, B])."""
    env = sf.spoil_five.SpoilFive(n, RULESETS[rules_name])
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(seed), games))
    step = batched_step(env)
    rng = np.random.default_rng(seed)
    states, actions, players = [], [], []
    for _ in range(5 * n + 2):
        host = jax.device_get(state)
        mask = np.asarray(host.legal_action_mask)
        act = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int32)
        states.append(host)
        actions.append(act)
        players.append(np.asarray(host.current_player))
        state = step(state, act)
    return states, np.array(actions), np.array(players)


def ref_rules(rules: sf.spoil_five.Rules) -> ref.RefRules:
    return ref.RefRules(
        follow=rules.follow,
        renege=rules.renege,
        rob=rules.rob,
        jink=rules.jink,
        deal_packets=rules.deal_packets,
    )


def replay(env: sf.spoil_five.SpoilFive, world, history: list[tuple[int, int, int]]) -> ref.RefHand:
    """The initial deal implied by a sampled ``world`` and the public history (seat, action,
    phase), replayed through the reference engine (``ValueError`` on an illegal play)."""
    n = env.num_players
    hands = [card_set(world.hands.lo[s], world.hands.hi[s]) for s in range(n)]
    turnup = int(world.turnup)
    for seat, action, phase in history:
        if phase == game.PHASE_PLAY:
            hands[seat].add(action)
    if bool(world.robbed):
        r = int(world.robber)
        hands[r].discard(turnup)
        hands[r].add(int(world.discard))
    if any(len(h) != 5 for h in hands):
        raise ValueError(f"hand sizes {[len(h) for h in hands]}")
    rr = ref_rules(env.rules)
    hand = ref.RefHand(n, rr, [sorted(h) for h in hands], turnup, int(world.dealer))
    # A declined rob is hidden: the world decides who (if anyone) was entitled and declined.
    moves = [
        (a, ph) for _s, a, ph in history if not (ph == game.PHASE_ROB and a == sf.spoil_five.PASS)
    ]
    for action, phase in moves:
        if hand.phase == "rob" and phase != game.PHASE_ROB:
            hand.step(sf.spoil_five.PASS)
        if phase == game.PHASE_ROB:  # the discard is the world's (hidden)
            action = int(world.discard)
        hand.step(int(action))
    if hand.phase == "rob" and int(world.phase) != game.PHASE_ROB:
        hand.step(sf.spoil_five.PASS)
    return hand


def history_of(states, actions, players, b: int, t: int) -> list[tuple[int, int, int]]:
    return [
        (int(players[i, b]), int(actions[i, b]), int(np.asarray(states[i].phase)[b]))
        for i in range(t)
    ]


_resample = {}


def resampler(env: sf.spoil_five.SpoilFive):
    if env not in _resample:
        _resample[env] = jax.jit(
            jax.vmap(
                functools.partial(env.capability(sf.capabilities.Analysis).resample_hidden, env),
                in_axes=(0, None, None),
            ),
            static_argnums=(),
        )
    return _resample[env]


# ---------------------------------------------------------------------------- the record


@pytest.mark.parametrize("rules_name", list(RULESETS))
def test_cannot_hold_matches_the_reference_legality(rules_name):
    """Each card in a seat's ``cannot_hold`` would have made one of its plays illegal, and every
    card outside it could have been held at each of its plays (reference engine's legality)."""
    n = 4
    env = sf.spoil_five.SpoilFive(n, RULESETS[rules_name])
    states, actions, players = played_games(n, rules_name)
    # (the state after the last decision: ``states`` holds those before each, and a hand with a
    # rob and a jink takes all 5N + 2; stepping a finished hand leaves it as it is)
    final = jax.device_get(batched_step(env)(states[-1], actions[-1]))
    rr = ref_rules(env.rules)
    checked = 0
    for b in range(actions.shape[1]):
        hist = history_of(states, actions, players, b, actions.shape[0])
        hist = [(s, a) for s, a, _ in hist if s >= 0]
        start = pick(states[0], b)
        hands0 = [sorted(card_set(start.hands.lo[s], start.hands.hi[s])) for s in range(n)]
        hand = ref.RefHand(n, rr, hands0, int(start.turnup), int(start.dealer))
        shown = [set() for _ in range(n)]
        for seat, action in hist:
            if hand.terminated:
                break
            if hand.phase == "play" and hand.trick:
                previous = hand.played[: len(hand.played) - len(hand.trick)]
                for c in range(52):  # holding c as well: would ``action`` still be legal?
                    if c in hand.hands[seat] or c == action:
                        continue
                    legal = ref.legal_plays(
                        [*hand.hands[seat], c], hand.trick_cards, hand.trump, rr, previous
                    )
                    if action not in legal:
                        shown[seat].add(c)
            hand.step(action)
        got = [card_set(final.cannot_hold.lo[b][s], final.cannot_hold.hi[b][s]) for s in range(n)]
        assert got == shown, (b, got, shown)
        checked += sum(map(len, shown))
    assert checked > 0


# ---------------------------------------------------------------------------- resampling


@pytest.mark.parametrize(
    "rules_name",
    [
        "seed",
        pytest.param("traditional", marks=pytest.mark.slow),
        pytest.param("trick_forced", marks=pytest.mark.slow),
    ],
)
def test_every_sampled_world_replays_the_history(rules_name):
    n = 4
    env = sf.spoil_five.SpoilFive(n, RULESETS[rules_name])
    states, actions, players = played_games(n, rules_name)
    sample = resampler(env)
    rng = np.random.default_rng(0)
    worlds_checked = 0
    voids = 0
    for t in (3, 9, 14):
        for b in rng.choice(actions.shape[1], 6, replace=False):
            state = pick(states[t], b)
            if bool(state.terminated):
                continue
            p = int(state.current_player)
            worlds = sample(jax.random.split(jax.random.PRNGKey(t * 100 + int(b)), 16), state, p)
            worlds = jax.device_get(worlds)
            hist = history_of(states, actions, players, b, t)
            voids += int(np.asarray(state.cannot_hold.lo).any() or state.cannot_hold.hi.any())
            for i in range(16):
                w = pick(worlds, i)
                assert card_set(w.hands.lo[p], w.hands.hi[p]) == card_set(
                    state.hands.lo[p], state.hands.hi[p]
                )
                for s in range(n):  # hand sizes are public
                    assert len(card_set(w.hands.lo[s], w.hands.hi[s])) == len(
                        card_set(state.hands.lo[s], state.hands.hi[s])
                    )
                hand = replay(env, w, hist)
                for s in range(n):
                    assert set(hand.hands[s]) == card_set(w.hands.lo[s], w.hands.hi[s])
                worlds_checked += 1
    assert worlds_checked > 100 and voids > 0


def _rob_position(
    n: int, rules: sf.spoil_five.Rules, want_bound: bool, seed: int = 0, min_trick: int = 2
):
    """A live state at trick >= 2 in which another seat robbed (a non-ace turn-up) and the ace
    of trumps is unseen by the player to act, found along random games."""
    env = sf.spoil_five.SpoilFive(n, rules)
    step = jax.jit(env.step)
    rng = np.random.default_rng(seed)
    for g in range(400):
        s = env.init(jax.random.PRNGKey(1000 + g))
        hist = []
        if int(s.robber) < 0 or int(s.turnup) % 13 == 0:
            continue
        while not bool(s.terminated):
            legal = np.flatnonzero(np.asarray(s.legal_action_mask))
            a = int(legal[0]) if int(s.phase) == game.PHASE_ROB else int(rng.choice(legal))
            hist.append((int(s.current_player), a, int(s.phase)))
            s = step(s, a)
            p = int(s.current_player)
            ace = int(s.trump) * 13
            mine = card_set(s.hands.lo[p], s.hands.hi[p]) if p >= 0 else set()
            played = card_set(s.played.lo, s.played.hi)
            if (
                not bool(s.terminated)
                and bool(s.robbed)
                and p != int(s.robber)
                and int(s.trick_num) >= (min_trick if want_bound else 0)
                and ace not in mine | played
            ):
                return env, s, hist
    raise AssertionError("no position found")


def enumerate_worlds(env: sf.spoil_five.SpoilFive, state, history) -> list[tuple]:
    """Every consistent assignment of the unseen cards to the other hands (and the robber's
    discard), by brute force through the reference engine: [(hands tuple, discard)]."""
    n = env.num_players
    p = int(state.current_player)
    mine = card_set(state.hands.lo[p], state.hands.hi[p])
    played = card_set(state.played.lo, state.played.hi)
    turnup = int(state.turnup)
    robbed, robber = bool(state.robbed), int(state.robber)
    own_discard = {int(state.discard)} if robbed and robber == p else set()
    unseen = sorted(set(range(52)) - mine - played - {turnup} - own_discard)
    sizes = {}
    for s in range(n):
        if s != p:
            k = len(card_set(state.hands.lo[s], state.hands.hi[s]))
            sizes[s] = k - (1 if robbed and s == robber and turnup not in played else 0)
    others = sorted(sizes)
    out = []
    need_discard = robbed and robber != p

    def rec(i, left, chosen):
        if i == len(others):
            discards = left if need_discard else [int(state.discard)]
            for d in discards:
                hands = [set(chosen.get(s, mine if s == p else set())) for s in range(n)]
                if robbed and turnup not in played:
                    hands[robber] = hands[robber] | {turnup}
                w = state.replace(
                    hands=bits.Bits(
                        np.array([sum(1 << c for c in h if c < 32) for h in hands], np.uint32),
                        np.array(
                            [sum(1 << c - 32 for c in h if c >= 32) for h in hands], np.uint32
                        ),
                    ),
                    discard=np.int32(d),
                )
                try:
                    replay(env, w, history)
                except (ValueError, AssertionError):
                    continue
                out.append((tuple(frozenset(h) for h in hands), d))
            return
        s = others[i]
        for combo in itertools.combinations(left, sizes[s]):
            rest = [c for c in left if c not in combo]
            rec(i + 1, rest, {**chosen, s: set(combo)})

    rec(0, unseen, {})
    return out


@pytest.mark.parametrize("trick", [3, pytest.param(2, marks=pytest.mark.slow)])
def test_resampling_is_uniform_over_consistent_deals_with_a_rob(trick):
    """2 players, another seat robbed: the sampled opponent hands (and the discard) follow the
    exact distribution of the enumerated consistent deals (each card's marginal within 4 SE),
    one world a call (``resample_hidden``) and pooled (``resample_hidden_many``, in blocks).
    One test for both samplers: enumerating the consistent deals (in Python) is most of its
    time, so it is done once.  From the third trick on (84 consistent deals here, 3 s of
    enumeration); from the second (2,709 deals, 70 s) in the slow run."""
    env, state, hist = _rob_position(2, sf.spoil_five.Rules(), want_bound=True, min_trick=trick)
    worlds = enumerate_worlds(env, state, hist)
    p = int(state.current_player)
    opp = 1 - p
    exact = np.zeros(53)
    for hands, d in worlds:
        for c in hands[opp]:
            exact[c] += 1
        exact[52] += d == int(state.trump) * 13  # the ace discarded
    exact /= len(worlds)
    k = 12000
    keys = jax.random.split(jax.random.PRNGKey(5), k)
    for pooled in (False, True):
        if pooled:
            many = jax.jit(
                jax.vmap(
                    lambda key: env.capability(sf.capabilities.Analysis).resample_hidden_many(
                        env, key, state, p, 64
                    )
                ),
                static_argnums=(),
            )
            ws = many(jax.random.split(jax.random.PRNGKey(5), -(-k // 64)))
            ws = jax.device_get(jax.tree.map(lambda x: x.reshape((-1, *x.shape[2:]))[:12000], ws))
        else:
            ws = jax.device_get(resampler(env)(keys, state, p))
        got = np.zeros(53)
        lo, hi = np.asarray(ws.hands.lo)[:, opp], np.asarray(ws.hands.hi)[:, opp]
        for c in range(52):
            word, shift = (lo, c) if c < 32 else (hi, c - 32)
            got[c] = ((word >> np.uint32(shift)) & 1).mean()
        got[52] = (np.asarray(ws.discard) == int(state.trump) * 13).mean()
        se = np.sqrt(np.maximum(exact * (1 - exact), 1e-12) / k)
        assert np.all(np.abs(got - exact) <= 4 * se + 1e-9), np.abs(got - exact) / se
    assert exact[52] > 0 or exact[int(state.trump) * 13] > 0


# ---------------------------------------------------------------------------- analyze


def _late_position(n: int, rules: sf.spoil_five.Rules, trick: int, seed: int = 0):
    """A live play decision at ``trick`` (0-based tricks completed) with another seat's
    ``cannot_hold`` non-empty, from random games (with its history)."""
    env = sf.spoil_five.SpoilFive(n, rules)
    step = jax.jit(env.step)
    rng = np.random.default_rng(seed)
    for g in range(500):
        s = env.init(jax.random.PRNGKey(7000 + g))
        hist = []
        while not bool(s.terminated):
            legal = np.flatnonzero(np.asarray(s.legal_action_mask))
            a = int(rng.choice(legal))
            hist.append((int(s.current_player), a, int(s.phase)))
            s = step(s, a)
            p = int(s.current_player)
            if bool(s.terminated) or int(s.phase) != game.PHASE_PLAY or int(s.trick_num) < trick:
                continue
            others = [q for q in range(n) if q != p]
            shown = any(int(s.cannot_hold.lo[q]) | int(s.cannot_hold.hi[q]) for q in others)
            if shown and (len(env.legal_actions(s)) >= 2 or trick >= 4):
                return env, s, hist
            break
    raise AssertionError("no position found")


def exact_random_values(
    env: sf.spoil_five.SpoilFive, state, history
) -> dict[int, tuple[float, float]]:
    """{action: (expected chips, win prob)} of the player to act under uniformly random play,
    averaged over every consistent deal (exhaustive)."""
    p = int(state.current_player)
    worlds = enumerate_worlds(env, state, history)
    assert worlds

    def value(hand: ref.RefHand) -> np.ndarray:
        if hand.terminated:
            return np.array([hand.rewards[p], float(hand.winner == p)])
        acts = hand.legal_actions()
        total = np.zeros(2)
        for a in acts:
            h = hand.clone()
            h.step(a)
            total += value(h)
        return total / len(acts)

    out = {}
    for a in env.legal_actions(state):
        acc = np.zeros(2)
        for hands, d in worlds:
            w = state.replace(
                hands=bits.Bits(
                    np.array([sum(1 << c for c in h if c < 32) for h in hands], np.uint32),
                    np.array([sum(1 << (c - 32) for c in h if c >= 32) for h in hands], np.uint32),
                ),
                discard=np.int32(d),
            )
            h = replay(env, w, history)
            h.step(a)
            acc += value(h)
        out[a] = tuple(acc / len(worlds))
    return out


@pytest.mark.parametrize("n,trick", [(2, 3), pytest.param(3, 4, marks=pytest.mark.slow)])
def test_analysis_matches_exhaustive_enumeration(n, trick):
    env, state, hist = _late_position(n, sf.spoil_five.Rules(), trick)
    exact = exact_random_values(env, state, hist)
    res = sf.analyze(
        jax.random.PRNGKey(0), env, state, num_samples=4000, policy="random", batch_size=1536
    )
    for a, (chips, win) in exact.items():
        assert res.legal[a]
        assert abs(res.expected_chips[a] - chips) <= 4 * res.expected_chips_se[a] + 1e-4
        assert abs(res.win_prob[a] - win) <= 4 * res.win_prob_se[a] + 1e-4
    assert res.legal.sum() == len(exact)
    assert np.isnan(res.expected_chips[~res.legal]).all()


@pytest.mark.parametrize(
    "rules_name", ["seed", pytest.param("traditional", marks=pytest.mark.slow)]
)
def test_analysis_ignores_hidden_information(rules_name):
    """Two states that differ only in cards the player cannot see give identical results."""
    n = 4
    env = sf.spoil_five.SpoilFive(n, RULESETS[rules_name])
    states, _, _ = played_games(n, rules_name)
    batch = pick(states[9], np.arange(8))
    live = ~np.asarray(batch.terminated)
    batch = pick(batch, np.flatnonzero(live)[:4])
    other = jax.jit(  # (op by op, the vmapped resampling took seconds)
        jax.vmap(functools.partial(env.capability(sf.capabilities.Analysis).resample_hidden, env))
    )(jax.random.split(jax.random.PRNGKey(9), 4), batch, batch.current_player)
    other = jax.device_get(other)
    assert any(
        (np.asarray(batch.hands.lo) != np.asarray(other.hands.lo)).any(axis=-1)
    )  # they do differ
    # (random playouts: what the analysis sees of the deal, not the playout policy, is checked)
    a = sf.analyze(jax.random.PRNGKey(3), env, batch, num_samples=64, policy="random")
    b = sf.analyze(jax.random.PRNGKey(3), env, other, num_samples=64, policy="random")
    for f in a.fields:
        np.testing.assert_array_equal(a.values[f], b.values[f])
        np.testing.assert_array_equal(a.ses[f], b.ses[f])
    np.testing.assert_array_equal(a.best, b.best)


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_batch_size_and_batching_do_not_change_results():
    n = 4
    env = sf.spoil_five.SpoilFive(n)
    states, _, _ = played_games(n, "seed")
    batch = pick(states[6], np.arange(3))
    batch = pick(batch, np.flatnonzero(~np.asarray(batch.terminated)))
    # (random playouts: the chunking, not the playout policy, is what this checks)
    whole = sf.analyze(1, env, batch, num_samples=64, policy="random")
    chunked = sf.analyze(1, env, batch, num_samples=64, batch_size=60, policy="random")
    one = sf.analyze(1, env, pick(batch, 0), num_samples=64, policy="random")
    np.testing.assert_array_equal(whole.expected_chips, chunked.expected_chips)
    np.testing.assert_array_equal(whole.expected_chips[0], one.expected_chips)
    assert one.expected_chips.shape == (sf.spoil_five.NUM_ACTIONS,)
    assert whole.expected_chips.shape == (batch.turnup.shape[0], sf.spoil_five.NUM_ACTIONS)
    text = one.table()
    assert "chips" in text and "win %" in text
    assert sf.spoil_five.action_str(int(one.best)) in text.splitlines()[1]


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_a_small_call_compiles_one_shape_whatever_its_number_of_legal_actions():
    """One position (a hint) tries every slot of the game's width, so the positions of a game,
    with 2 to 5 legal actions, share one compiled chunk (each count had compiled its own); the
    values are those of the grouped chunks (``batch_size`` small enough to group them)."""
    from spoilfive_jax.tools.analysis import _chunk

    env = sf.spoil_five.SpoilFive(4)
    states, _, _ = played_games(4, "seed")
    positions = [(t, i) for t in range(2, 14, 2) for i in range(3)]
    live = [pick(states[t], i) for t, i in positions if not bool(states[t].terminated[i])]
    counts = {int(s.legal_action_mask.sum()) for s in live}
    assert len(counts - {1}) >= 3  # (several counts of legal actions)
    before = _chunk._cache_size()
    hints = [sf.analyze(2, env, s, num_samples=32, policy="random") for s in live]
    assert _chunk._cache_size() - before <= 1  # (32 samples: a block no other test compiles)
    for s, one in zip(live, hints, strict=True):
        grouped = sf.analyze(2, env, s, num_samples=32, policy="random", batch_size=64)
        np.testing.assert_array_equal(one.expected_chips, grouped.expected_chips)


def test_chunks_cover_every_block_once_and_the_last_is_sized_to_what_is_left():
    from spoilfive_jax.tools.analysis import _chunk_spans

    # 146 blocks of 2 actions: full chunks of 128 blocks, then 32 (not another 128)
    assert _chunk_spans(2, 64, 146, None) == [(0, 128), (128, 32)]
    assert _chunk_spans(1, 64, 3, None) == [(0, 4)]  # the smallest chunk: 256 samples
    for width, blocks, batch_size in [(1, 214, None), (3, 104, None), (5, 64, None), (2, 9, 512)]:
        spans = _chunk_spans(width, 64, blocks, batch_size)
        starts = [first for first, _ in spans]
        sizes = [size for _, size in spans]
        assert starts == [sum(sizes[:i]) for i in range(len(spans))]  # contiguous, in order
        assert starts[-1] < blocks <= sum(sizes)  # every block once, no empty chunk
        assert all(size == sizes[0] for size in sizes[:-1]) and sizes[-1] <= sizes[0]
        assert sum(sizes) - blocks < max(4, sizes[-1])  # padding only in the last chunk
    # (that a position's values do not depend on its chunk: the test above)


def test_standard_errors_shrink_like_one_over_sqrt_k():
    env = sf.spoil_five.SpoilFive(4)
    state = env.init(jax.random.PRNGKey(11))
    small = sf.analyze(0, env, state, num_samples=100, batch_size=1536, policy="random")
    big = sf.analyze(0, env, state, num_samples=1600, batch_size=1536, policy="random")
    legal = small.legal & (small.expected_chips_se > 0)
    ratio = small.expected_chips_se[legal] / big.expected_chips_se[legal]
    assert legal.any()
    assert np.all((ratio > 2.8) & (ratio < 5.7)), ratio


def test_pimc_plays_a_legal_action():
    env = sf.spoil_five.SpoilFive(4)
    bot = sf.pimc(env, num_samples=8)
    states, _, _ = played_games(4, "seed")
    for t in (0, 5):
        state = pick(states[t], 0)
        a = jax.jit(bot)(jax.random.PRNGKey(t), state, state.current_player)
        assert bool(state.legal_action_mask[int(a)])


@pytest.mark.slow
def test_pimc_in_a_rollout_and_a_tournament():
    env = sf.spoil_five.SpoilFive(3)
    bot = sf.pimc(env, num_samples=4)
    out = sf.rollout(0, env, [bot, "heuristic", "heuristic"], num_hands=8)
    assert out.rewards.shape == (8, 3)
    res = sf.evaluate(0, env, {"pimc": bot, "heuristic": "heuristic"}, num_hands=8)
    assert res.names == ("pimc", "heuristic")
