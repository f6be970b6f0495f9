"""Equivalence with the pure-Python reference engine (``tests/reference.py``) over random games.

For each (N, rules), a batch of games is dealt from numpy-shuffled decks with
``env.init_from_deck`` (vmapped, jitted once) and ``RefHand.from_deck`` from the same decks, then
stepped together with random legal actions through ``jit(vmap(env.step))`` (compiled once per
(N, rules), shared via ``conftest``).  At every step both engines must agree on the player to
act, the phase, the legal action set, every hand, the cards played, the current trick, the
tricks won, the pot, rob/jink bookkeeping and, at the end, the result (rewards, winner,
carried_out).  Cheap invariants are checked on the way (cards conserved, zero rewards before the
end, a terminated hand comes back unchanged).
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from conftest import TRACES, batched_init, batched_step, ref, to_ref_rules

import spoilfive_jax as sf
from spoilfive_jax.games.spoil_five.game import PHASE_NAMES

BATCH = 64  # one batch shape for every run, so each (N, rules) compiles exactly once

R = sf.spoil_five.Rules
RULE_SETS = {
    "seed": R(),
    "traditional": R.traditional(),
    "trick_robless_nojink": R(renege="trick", rob="off", jink=False),
    "packets32_led_forced": R(deal_packets=(3, 2), renege="led", rob="forced"),
    "dealer_ante_traditional_follow": R(ante_after_spoil="dealer", follow="traditional"),
    "ante2_bonus3": R(ante=2, jink_bonus=3),
}
ALL_N = range(2, 11)
# The default run: every rule set, from two seats to ten (each case is a compile and 64 games
# against the Python engine: ~3 s); -m slow adds the presets at four more sizes.  The slow soak
# plays every rule set at every N, ten batches each.
SLOW = pytest.mark.slow
DEFAULT_CASES = [
    ("seed", 2),
    pytest.param("seed", 5, marks=SLOW),
    pytest.param("seed", 8, marks=SLOW),
    pytest.param("traditional", 3, marks=SLOW),
    pytest.param("traditional", 6, marks=SLOW),
    ("traditional", 10),
    ("trick_robless_nojink", 4),
    ("packets32_led_forced", 7),
    ("dealer_ante_traditional_follow", 9),
    ("ante2_bonus3", 2),
]
SLOW_CASES = [(name, n) for name in RULE_SETS for n in ALL_N]


def unpack(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """bool[..., 64]: the members of (lo, hi) uint32 bitsets, position i at index i."""
    words = np.stack([lo, hi], -1).astype("<u4")
    return np.unpackbits(words.view(np.uint8), axis=-1, bitorder="little").astype(bool)


class Where:
    """Failure context for one game, formatted only when an assert fails."""

    def __init__(self, game: int, step: int, hand: ref.RefHand) -> None:
        self.game, self.step, self.hand = game, step, hand

    def __repr__(self) -> str:
        return f"game {self.game} step {self.step}: {self.hand!r}"


def _carried_choices(rules: sf.spoil_five.Rules) -> list[int]:
    # Under ante_after_spoil="dealer" most hands start with chips carried in.
    return [0, 3, 5, 7] if rules.ante_after_spoil == "dealer" else [0, 0, 0, 4]


def play_and_compare(env: sf.spoil_five.SpoilFive, seed: int) -> dict[str, int]:
    """Play BATCH random games in both engines, comparing after every decision.  Returns
    counts of notable events (to check the games exercised the rules)."""
    n, rules = env.num_players, env.rules
    rng = np.random.default_rng(seed)
    decks = np.stack([rng.permutation(52) for _ in range(BATCH)]).astype(np.int32)
    dealers = rng.integers(0, n, BATCH).astype(np.int32)
    carried = rng.choice(_carried_choices(rules), BATCH).astype(np.int32)
    traced = TRACES["init", env], TRACES["step", env]  # other tests may share the cache
    state = batched_init(env)(decks, dealers, carried)
    refs = [
        ref.RefHand.from_deck(n, to_ref_rules(rules), decks[b].tolist(), dealers[b], carried[b])
        for b in range(BATCH)
    ]
    stock = [set(decks[b, 5 * n + 1 :].tolist()) for b in range(BATCH)]
    ended_at = np.full(BATCH, -1)
    stats = dict(robbed=0, passed=0, jinked=0, jink_won=0, claimed=0, spoiled=0, won=0)
    previous = None
    step_fn = batched_step(env)

    for t in range(5 * n + 3):
        s = jax.device_get(state)
        mask = np.asarray(state.legal_action_mask)
        hands = unpack(s.hands.lo, s.hands.hi)[..., :52]  # [B, N, 52]
        played = unpack(s.played.lo, s.played.hi)[..., :52]  # [B, 52]
        actions = np.zeros(BATCH, np.int32)
        for b, r in enumerate(refs):
            where = Where(b, t, r)
            assert int(s.terminated[b]) == r.terminated, where
            assert int(s.current_player[b]) == r.current_player, where
            assert PHASE_NAMES[int(s.phase[b])] == r.phase, where
            assert s.tricks_won[b].tolist() == r.tricks_won, where
            assert int(s.pot[b]) == r.pot, where
            assert bool(s.robbed[b]) == r.robbed, where
            assert int(s.discard[b]) == (-1 if r.discard is None else r.discard), where
            assert int(s.jinker[b]) == r.jinker, where
            assert int(s.winner[b]) == r.winner, where
            assert int(s.turnup[b]) == r.turnup and int(s.trump[b]) == r.trump, where
            assert not bool(s.illegal[b]), where
            for seat in range(n):
                assert set(np.flatnonzero(hands[b, seat]).tolist()) == set(r.hands[seat]), where
            assert set(np.flatnonzero(played[b]).tolist()) == set(r.played), where
            # Every card exactly once: hands + played + the card aside (the rob discard, or
            # the turn-up when not robbed) + the undealt stock.
            aside = r.discard if r.robbed else r.turnup
            counts = hands[b].sum(0) + played[b]
            counts[aside] += 1
            counts[list(stock[b])] += 1
            assert (counts == 1).all(), where
            if r.trick:
                on_table = {i: int(c) for i, c in enumerate(s.trick_cards[b]) if c >= 0}
                assert on_table == dict(r.trick), where
            if not r.terminated:
                legal = r.legal_actions()
                assert np.flatnonzero(mask[b]).tolist() == legal, where
                assert 0 <= r.current_player < n and legal, where
                assert (s.rewards[b] == 0).all(), where  # rewards only on the final step
                if r.phase != "jink":
                    assert int(s.leader[b]) == r.leader, where
                actions[b] = legal[rng.integers(len(legal))]
            else:
                assert mask[b].all(), where  # pgx convention once terminated
                assert int(s.carried_out[b]) == r.carried_out, where
                if ended_at[b] < 0:
                    ended_at[b] = t
                    assert s.rewards[b].tolist() == r.rewards, where
                    assert sum(r.rewards) == r.carried - r.carried_out, where
                    stats["robbed"] += r.robbed
                    stats["passed"] += r.robber >= 0 and not r.robbed
                    stats["jinked"] += r.jinked
                    stats["jink_won"] += r.jinked and r.winner >= 0
                    stats["claimed"] += r.winner >= 0 and sum(r.tricks_won) == 3
                    stats["spoiled"] += r.winner < 0 and not r.jinked
                    stats["won"] += r.winner >= 0
                else:
                    # Stepping a terminated hand returns it unchanged, with zero rewards.
                    assert (s.rewards[b] == 0).all(), where
                    for old, new in zip(jax.tree.leaves(previous), jax.tree.leaves(s), strict=True):
                        if old.shape[1:] == s.rewards.shape[1:] and old.dtype == np.float32:
                            continue  # the rewards
                        assert np.array_equal(old[b], new[b]), where
                actions[b] = rng.integers(0, sf.spoil_five.NUM_ACTIONS)  # anything: ignored
        if all(r.terminated for r in refs):
            break
        for b, r in enumerate(refs):
            if not r.terminated:
                r.step(int(actions[b]))
        previous = s
        state = step_fn(state, actions)

    assert all(r.terminated for r in refs)
    # A hand ends within 5N+2 decisions (a rob, 5 tricks of N plays, a jink decision).
    assert ended_at.max() <= 5 * n + 2
    assert all(r.decisions == ended_at[b] for b, r in enumerate(refs))
    # One compile per (N, rules, batch), whatever the states and actions: at most one trace
    # here (none when another test already compiled this batch shape).
    assert TRACES["init", env] - traced[0] <= 1 and TRACES["step", env] - traced[1] <= 1
    return stats


@pytest.mark.parametrize(("name", "n"), DEFAULT_CASES)
def test_matches_reference(name, n):
    env = sf.spoil_five.SpoilFive(n, RULE_SETS[name])
    stats = play_and_compare(env, seed=1000 * n + list(RULE_SETS).index(name))
    assert stats["won"] > 0
    if env.rules.rob != "off":
        assert stats["robbed"] > 0


def test_reference_games_exercise_the_rules():
    # The default cases together reach every ending and decision (N=2 jinks often).
    env = sf.spoil_five.SpoilFive(2)
    totals = play_and_compare(env, seed=7)
    for seed in (8, 9):
        for k, v in play_and_compare(env, seed).items():
            totals[k] += v
    assert all(totals[k] > 0 for k in ("robbed", "passed", "jinked", "jink_won", "claimed"))
    totals = play_and_compare(sf.spoil_five.SpoilFive(5), seed=11)
    assert totals["spoiled"] > 0


@pytest.mark.slow
@pytest.mark.parametrize(("name", "n"), SLOW_CASES)
def test_matches_reference_soak(name, n):
    env = sf.spoil_five.SpoilFive(n, RULE_SETS[name])
    for seed in range(10):
        play_and_compare(env, seed=100_000 + 1000 * n + 10 * list(RULE_SETS).index(name) + seed)
