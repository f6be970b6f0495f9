"""``sf.solve`` in the Forty-Five family against a plain-Python minimax over the independent
reference engine (``tests/reference_fortyfive.py``).

Each position is a random hand at the start of its second trick (four tricks left, the leader
to act), reached from a numpy-shuffled deck dealt by both engines (``env.init_from_deck`` and
``RefHand45.from_deck``) and played by a built-in policy through the public ``env.step``, the
reference engine taking the same actions (and agreeing on the hands, the seat to act and the
legal actions on the way: a sanity check of the mirror, not the subject here).

At the position, ``sf.solve(env, state)`` (one state: float32[A]) must give, for each legal
action, exactly the value a minimax over the reference engine alone finds for the seat to act:
the action applied, then every seat of that seat's team (seat s is on team s % T) choosing the
play that maximises the team's points for the hand and every other seat the play that
minimises them (a paranoid solve at the individual tables), the points being what the
reference engine's hand reports when it ends (``RefHand45.rewards``: its own trick winners,
follow and renege legality, the best-trump bonus, jinks, Auction's contract).  The minimax is
an alpha-beta search (exact at the root: each action is searched with a full window), written
on ``RefHand45.step`` with no JAX code.  Illegal actions must be NaN.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import hands_of, jit_step, ref45, stepped, to_ref_rules

import spoilfive_jax as sf
from spoilfive_jax.games.forty_five import rules as ff_rules

R = ff_rules.FortyFiveRules
PLAY = "play"
NUM_ACTIONS = ref45.NUM_ACTIONS


# ---------------------------------------------------------------------------- the reference side


def _alphabeta(hand: ref45.RefHand45, player: int, alpha: float, beta: float) -> float:
    """The minimax value for ``player`` (its team's points for the hand) of ``hand``."""
    if hand.terminated:
        return hand.rewards[player]
    mine = hand.team(hand.current_player) == hand.team(player)
    best = -math.inf if mine else math.inf
    for action in hand.legal_actions():
        v = _alphabeta(stepped(hand, action), player, alpha, beta)
        if mine:
            best = max(best, v)
            alpha = max(alpha, v)
        else:
            best = min(best, v)
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best


def reference_values(hand: ref45.RefHand45, player: int) -> dict[int, float]:
    """Each legal action of ``hand`` -> its exact value for ``player``."""
    return {
        a: _alphabeta(stepped(hand, a), player, -math.inf, math.inf) for a in hand.legal_actions()
    }


def test_the_reference_minimax_is_the_plain_one() -> None:
    """The alpha-beta reference equals an exhaustive minimax (no pruning) on a small table."""

    def plain(hand, player):
        if hand.terminated:
            return hand.rewards[player]
        vals = [plain(stepped(hand, a), player) for a in hand.legal_actions()]
        return max(vals) if hand.team(hand.current_player) == hand.team(player) else min(vals)

    env = sf.make("forty_five", num_players=2)
    checked = 0
    for seed in range(4):
        _, hand = _position(env, seed, "random")
        for player in range(2):
            want = {a: plain(stepped(hand, a), player) for a in hand.legal_actions()}
            assert reference_values(hand, player) == want
            checked += 1
    assert checked == 8


# ---------------------------------------------------------------------------- positions


_POLICIES: dict = {}


def _policy(env: sf.Env, name: str):
    if (env, name) not in _POLICIES:
        _POLICIES[env, name] = jax.jit(env.builtin_policy(name))
    return _POLICIES[env, name]


def _position(env: sf.Env, seed: int, policy: str):
    """(the JAX state, the reference hand) of a random deal played by ``policy`` to the
    first lead of the second trick (``None, None`` if the hand ended first: a failed jink)."""
    n, rules = env.num_players, env.rules
    rng = np.random.default_rng(seed)
    deck = rng.permutation(rules.deck_size).astype(np.int32)
    dealer = int(rng.integers(n))
    teams = ff_rules.num_teams(n)
    state = env.init_from_deck(deck, dealer, np.zeros(teams, np.int32))
    hand = ref45.RefHand45.from_deck(n, to_ref_rules(rules), deck.tolist(), dealer)
    step, act = jit_step(env), _policy(env, policy)
    key = jax.random.PRNGKey(seed)
    for t in range(200):
        assert not bool(state.illegal)
        assert bool(state.terminated) == hand.terminated
        if hand.terminated:
            return None, None
        cur = int(state.current_player)
        assert cur == hand.current_player
        assert np.flatnonzero(np.asarray(state.legal_action_mask)).tolist() == (
            hand.legal_actions()
        )
        if hand.phase == PLAY and len(hand.played) == n and not hand.trick:
            assert int(state.trick_num) == 1 and cur == int(state.leader)
            assert sum(hand.tricks_won) == 1
            assert hands_of(state) == [set(h) for h in hand.hands]
            assert all(len(h) == 4 for h in hand.hands)
            return state, hand
        action = int(act(jax.random.fold_in(key, t), state, jnp.int32(cur)))
        state = step(state, jnp.int32(action))
        hand.step(action)
    raise AssertionError("no position reached")


# ---------------------------------------------------------------------------- the comparison


def _shown(got: np.ndarray, want: dict[int, float]) -> str:
    solve = {ref45.card_str(a): float(got[a]) for a in want}
    reference = {ref45.card_str(a): v for a, v in want.items()}
    return f"solve {solve}, reference {reference}"


def _compare(got: np.ndarray, want: dict[int, float], where: str) -> None:
    assert got.shape == (NUM_ACTIONS,) and got.dtype == np.float32, where
    assert np.flatnonzero(~np.isnan(got)).tolist() == sorted(want), where
    for a, v in want.items():
        assert got[a] == v, f"action {ref45.card_str(a)} ({a}): {where}"


def check(env: sf.Env, seeds, policies=("heuristic", "random")) -> dict[str, int]:
    """Each seed's position: ``sf.solve`` for the seat to act (the default ``player``) and for
    the next seat (``player=``: the root is a minimising seat's decision) against the
    reference minimax."""
    n = env.num_players
    stats = {"positions": 0, "actions": 0, "varied": 0, "jinks": 0}
    for i, seed in enumerate(seeds):
        state, hand = _position(env, seed, policies[i % len(policies)])
        if state is None:
            continue
        cur = hand.current_player
        for player, got in (
            (cur, sf.solve(env, state)),
            ((cur + 1) % n, sf.solve(env, state, (cur + 1) % n)),
        ):
            got = np.asarray(got)
            want = reference_values(hand, player)
            where = f"seed {seed}, player {player}: {hand!r}; {_shown(got, want)}"
            _compare(got, want, where)
            stats["actions"] += len(want)
            stats["varied"] += len(set(want.values())) > 1
        stats["positions"] += 1
        stats["jinks"] += hand.jinker >= 0
    return stats


@pytest.mark.parametrize(  # (by default a position of each policy: the minimax takes seconds)
    "seeds",
    [
        pytest.param(range(2), id="2seeds"),
        pytest.param(range(6), id="6seeds", marks=pytest.mark.slow),
    ],
)
def test_solve_equals_a_reference_minimax_forty_five_4(seeds) -> None:
    env = sf.make("forty_five", num_players=4)
    stats = check(env, seeds)  # (more seeds in the slow run: forty_five4-more)
    assert stats["positions"] == len(seeds)
    assert stats["varied"] >= 2  # not only positions where every play is worth the same


SLOW_CASES = [
    pytest.param("forty_five", 4, None, range(6, 18), id="forty_five4-more"),
    pytest.param("forty_five", 2, None, range(100, 112), id="forty_five2"),
    pytest.param("forty_five", 3, None, range(200, 208), id="forty_five3-paranoid"),
    pytest.param(
        "forty_five",
        3,
        R(rob="forced", renege="deal", follow="seed"),
        range(300, 308),
        id="forty_five3-seed-deal",
    ),
    pytest.param("twenty_five", 4, None, range(400, 406), id="twenty_five4"),
    pytest.param(
        "forty_five", 4, R(joker=True, joker_rank="above_AH"), range(500, 506), id="joker4"
    ),
    pytest.param(
        "forty_five",
        4,
        R(renege="trick", scoring="hoyle", jink="announced"),
        range(600, 616),
        id="hoyle4-trick-jink",
    ),
    pytest.param(
        "forty_five", 2, R(joker=True, jink="announced"), range(700, 716), id="joker2-jink"
    ),
    pytest.param("auction_forty_fives", 4, None, range(800, 806), id="auction4"),
    pytest.param("auction_forty_fives", 3, None, range(900, 908), id="auction3-paranoid"),
    # (the larger tables: the reference's plain alpha-beta takes seconds a position there)
    pytest.param("twenty_five", 6, None, range(1000, 1003), id="twenty_five6"),
    pytest.param("forty_five", 5, None, range(1100, 1103), id="forty_five5-paranoid"),
]


@pytest.mark.slow
@pytest.mark.parametrize("game,n,rules,seeds", SLOW_CASES)
def test_solve_equals_a_reference_minimax_slow(game, n, rules, seeds) -> None:
    env = sf.make(game, num_players=n) if rules is None else sf.make(game, n, rules=rules)
    stats = check(env, seeds)
    assert stats["positions"] >= len(seeds) // 2  # (a failed jink ends a hand early)
    assert stats["varied"] >= 1
    if env.rules.jink == "announced":
        assert stats["jinks"] >= 1


@pytest.mark.slow
def test_a_batch_of_positions_with_a_seat_each() -> None:
    """float32[B, A] for a batch, ``player`` int32[B] (a seat per state): each row is the
    reference minimax's values for that state's seat."""
    env = sf.make("forty_five", num_players=4)
    found = [_position(env, seed, "heuristic") for seed in range(1200, 1206)]
    states = jax.tree.map(lambda *x: jnp.stack(x), *[state for state, _ in found])
    players = np.array([(hand.current_player + b) % 4 for b, (_, hand) in enumerate(found)])
    got = np.asarray(sf.solve(env, states, jnp.asarray(players, jnp.int32)))
    assert got.shape == (len(found), NUM_ACTIONS)
    for b, (_, hand) in enumerate(found):
        want = reference_values(hand, int(players[b]))
        _compare(got[b], want, f"row {b}, player {players[b]}: {hand!r}; {_shown(got[b], want)}")
