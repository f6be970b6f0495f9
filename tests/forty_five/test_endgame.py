"""The family's exact endgame solves (``forty_five.endgame``, ``EndgameSolve``) against a
minimax written plainly on the host over the public step: the heuristic plays through the
public step until ``tricks`` tricks are left, then every legal play is tried, the player's team
maximising its points and the other seats minimising them.  Random positions of every phase
(``test_fast_playout._after``), half of them resampled worlds."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core.transition import transition
from spoilfive_jax.games.forty_five import endgame, fast_playout, game, infer
from spoilfive_jax.games.forty_five import fast_play as fp
from spoilfive_jax.games.forty_five.rules import FortyFiveRules
from spoilfive_jax.tools.analysis import legal_slots
from tests.forty_five.test_fast_playout import _after
from tests.twins import assert_twins_take_their_values

R = FortyFiveRules


def _row(tree, i):
    return jax.tree.map(lambda x: x[i], tree)


class _Reference:
    """The host minimax of one env (module docstring)."""

    def __init__(self, env: sf.Env, tricks: int) -> None:
        self.env, self.n = env, env.num_players
        self.teams = game.num_teams(self.n)
        self.plies = tricks * self.n
        self.step = jax.jit(functools.partial(transition, env))
        self.heuristic = jax.jit(env.builtin_policy("heuristic"))

    def left(self, s) -> int:
        """Plays left in the hand (the play phase only)."""
        cur, leader = int(s.current_player), int(s.leader)
        return self.n * (game.NUM_TRICKS - int(s.trick_num)) - (cur - leader) % self.n

    def value(self, s, player: int) -> tuple[float, float]:
        """(points of ``player``'s team, Auction's bid made on the solved line)."""
        total = np.array(s.rewards, np.float32)  # the analysed action's own (if it ended the hand)
        key = jax.random.PRNGKey(0)
        while not bool(s.terminated) and (
            int(s.phase) != game.PHASE_PLAY or self.left(s) > self.plies
        ):
            s = self.step(s, self.heuristic(key, s, jnp.int32(int(s.current_player))))
            total += np.asarray(s.rewards)
        return self._minimax(s, player, total)

    def _minimax(self, s, player: int, total: np.ndarray) -> tuple[float, float]:
        if bool(s.terminated):
            made = np.nan
            if self.env.rules.auction and int(s.bidder) >= 0:
                made = float(int(s.hand_points[int(s.bidder) % self.teams]) > 0)
            return float(total[player]), made
        mine = int(s.current_player) % self.teams == player % self.teams
        best = None
        for a in np.flatnonzero(np.asarray(s.legal_action_mask)).tolist():
            nxt = self.step(s, jnp.int32(a))
            v = self._minimax(nxt, player, total + np.asarray(nxt.rewards))
            if best is None or (v[0] > best[0] if mine else v[0] < best[0]):
                best = v
        assert best is not None
        return best


CASES = [  # (players, rules, tricks solved, positions checked)
    pytest.param(4, R(), 2, 12, id="forty_five4-2tricks"),  # (partners: the default run's case)
    pytest.param(
        2,
        R(joker=True, jink="announced"),
        3,
        24,
        id="forty_five2-joker-jink-3tricks",
        marks=pytest.mark.slow,
    ),
    pytest.param(4, R(variant="auction"), 2, 24, id="auction4-2tricks", marks=pytest.mark.slow),
    pytest.param(
        6,
        R(variant="twenty_five", renege="trick"),
        1,
        24,
        id="twenty_five6-1trick",
        marks=pytest.mark.slow,
    ),
    pytest.param(4, R(), 3, 6, id="forty_five4-3tricks", marks=pytest.mark.slow),
    pytest.param(
        3,
        R(rob="forced", renege="deal", follow="seed"),
        2,
        24,
        id="forty_five3-seed",
        marks=pytest.mark.slow,
    ),
]


@pytest.mark.parametrize("n,rules,tricks,count", CASES)
def test_solved_playouts_equal_a_host_minimax(n, rules, tricks, count) -> None:
    env = sf.forty_five.FortyFive(n, rules)

    @jax.jit
    def run():
        after, player, keys = _after(env, count, seed=n + tricks)
        out = endgame.solved_playout_kernel(keys, after, player, "heuristic", tricks, rules)
        return after, player, out

    after, player, out = jax.device_get(run())
    ref = _Reference(env, tricks)
    solved = 0
    for i in range(count):
        s = _row(after, i)
        points, made = ref.value(s, int(player[i]))
        assert out["expected_points"][i] == points, (i, out["expected_points"][i], points)
        if rules.auction:
            np.testing.assert_array_equal(out["make_prob"][i], made, err_msg=str(i))
        solved += not bool(s.terminated)
    assert solved >= count // 3  # many positions were live, not already over


@pytest.mark.slow
def test_one_trick_solved_is_the_policy_playout() -> None:
    """The last trick is forced: solving it changes nothing, so the values are the heuristic
    playout's (through the public ``EndgameSolve`` entry the bot uses)."""
    env = sf.forty_five.FortyFive(4, R(variant="auction"))
    after, player, keys = jax.jit(lambda: _after(env, 64, seed=3))()
    legal = jax.vmap(lambda m: jnp.argmax(m).astype(jnp.int32))(after.legal_action_mask)
    actions = legal[:, None]
    live = ~after.terminated
    states = jax.tree.map(lambda x: x[live], after)
    args = (env, keys[live], states, actions[live], player[live], "heuristic")
    plain = jax.jit(infer.playout, static_argnums=(0, 5))(*args)
    solved = jax.jit(infer.solved_playout, static_argnums=(0, 5, 6))(*args, 1)
    for field in infer.FIELDS:
        np.testing.assert_array_equal(solved[field], plain[field], err_msg=field)


def _plays(n: int, rules: FortyFiveRules, count: int, tricks: int, seed: int):
    """(kernel plays [count] with at most ``tricks`` tricks left, their table, a seat each): the
    hands of random positions (``_after``) taken on by the heuristic (``endgame.approach``)."""
    env = sf.forty_five.FortyFive(n, rules)
    after, player, keys = _after(env, count, seed=seed)
    r = fast_playout.resume(after, fast_playout.chooser_of(keys, "heuristic", n), rules)
    return endgame.approach(r, tricks * n, n, rules), r.table, player


# Every rule the play reads, and every table size, solved both ways (3 tricks or fewer left).
# Under -m slow: the default run checks the search against a plain-Python minimax instead
# (test_solve_reference.py, through the same pruning, merging, table and root twins).
_SLOW = pytest.mark.slow
SEARCH_CASES = [
    pytest.param(2, R(), 3, False, id="forty_five2-pruning", marks=_SLOW),
    pytest.param(4, R(), 3, False, id="forty_five4", marks=_SLOW),
    pytest.param(4, R(), 3, True, id="forty_five4-each-part", marks=_SLOW),
    pytest.param(
        2, R(joker=True, jink="wins_game", follow="seed"), 3, True, id="joker2-slam", marks=_SLOW
    ),
    pytest.param(2, R(), 3, True, id="forty_five2", marks=_SLOW),
    pytest.param(
        3, R(rob="forced", renege="deal", follow="seed"), 3, True, id="seed3", marks=_SLOW
    ),
    pytest.param(4, R(variant="auction"), 3, True, id="auction4", marks=_SLOW),
    pytest.param(5, R(joker=True, jink="announced"), 2, True, id="joker5-jink", marks=_SLOW),
    pytest.param(
        6, R(variant="twenty_five", renege="trick"), 2, True, id="twenty_five6", marks=_SLOW
    ),
    pytest.param(4, R(scoring="hoyle", renege="deal"), 3, True, id="hoyle4", marks=_SLOW),
]


@pytest.mark.parametrize("n,rules,tricks,each_part", SEARCH_CASES)
def test_the_search_equals_the_enumeration(n, rules, tricks, each_part) -> None:
    """``search_solve`` (alpha-beta, equivalent cards merged, a transposition table) gives
    ``solve``'s (the full enumeration's) points and bid made at every position, and so does the
    search without pruning, merging or the table; the pruned search generates fewer children
    than the full one.  ``each_part``: also each of pruning and merging alone, and the search
    without the table, which the table saves children against where a node can be met again."""
    searches = [(True, True), (False, False)]
    if each_part:
        searches[1:1] = [(False, True), (True, False)]

    @jax.jit
    def run():
        p, table, player = _plays(n, rules, 48, tricks, seed=7 * n + tricks)
        full = endgame.solve(p, table, player, tricks * n, n, rules)
        ways = [
            endgame.search_solve(p, table, player, n, rules, prune, distinct)
            for prune, distinct in searches
        ]
        if each_part:
            ways.append(endgame.search_solve(p, table, player, n, rules, transpositions=0))
        return full, ways

    (points, made), ways = jax.device_get(run())
    assert len(set(points.tolist())) > 1  # positions of different values
    for value, made_on_line, _ in ways:
        np.testing.assert_array_equal(value, points)
        np.testing.assert_array_equal(made_on_line, made)
    searched, everything = ways[0][2].sum(), ways[len(searches) - 1][2].sum()
    assert searched < everything, (searched, everything)
    if each_part:
        without_table = ways[-1][2].sum()  # (2 tricks, or 2 seats: no node is met twice)
        assert searched < without_table if n > 2 and tricks > 2 else searched <= without_table


@pytest.mark.slow
@pytest.mark.parametrize("n,rules", [(4, R()), (3, R(variant="auction")), (5, R())])
def test_whole_hands_solved_with_and_without_pruning_agree(n, rules) -> None:
    """Whole hands (5 tricks left, every position of the play): the search with pruning and
    merging against the search of every line of every distinct card, which the tests above tie to
    the enumeration."""

    @jax.jit
    def run():
        p, table, player = _plays(n, rules, 12, 5, seed=n)
        return [endgame.search_solve(p, table, player, n, rules, prune) for prune in (True, False)]

    (fast, made, nodes), (slow, slow_made, all_nodes) = jax.device_get(run())
    np.testing.assert_array_equal(fast, slow)
    np.testing.assert_array_equal(made, slow_made)
    assert nodes.sum() < all_nodes.sum()


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_distinct_moves_merge_only_equivalent_cards() -> None:
    """The seat's runs of cards with nothing another seat holds between them: one card each; a
    card of the trick's winner, the renege level or the top trumps' edge splits a run."""
    n, rules = 4, R()
    env = sf.forty_five.FortyFive(n, rules)
    after, _, keys = jax.jit(lambda: _after(env, 256, seed=11))()
    r = fast_playout.resume(after, fast_playout.chooser_of(keys, "heuristic", n), rules)
    p = endgame.approach(r, 3 * n, n, rules)
    merged = jax.jit(lambda p, t: endgame.distinct_moves(p, t, rules))(p, r.table)
    legal = jax.jit(lambda p, t: fp.play_legal(p, t, rules)[2])(p, r.table)
    m_lo, m_hi, l_lo, l_hi = (np.asarray(x, np.uint64) for x in (*merged, *legal))
    kept, every = m_lo | (m_hi << np.uint64(32)), l_lo | (l_hi << np.uint64(32))
    live = np.asarray(~after.terminated) & (every != 0)
    assert ((kept & ~every) == 0).all()  # a subset of the legal cards
    assert (kept[live] != 0).all()  # never empty where a card may be played
    assert (kept != every)[live].any()  # and it does merge


def test_the_whole_hand_is_solvable() -> None:
    """The search has no cost bound: every table solves up to the whole hand, ``"all"``."""
    for n in (2, 3, 4, 5, 6):
        assert endgame.max_solve_tricks(sf.forty_five.FortyFive(n)) == 5
    env = sf.forty_five.FortyFive(4, R())
    assert endgame.check_tricks(env, "all") == 5 and endgame.check_tricks(env, 5) == 5
    with pytest.raises(ValueError, match="solve_tricks must be an integer from 1 to 5 or 'all'"):
        endgame.check_tricks(env, 6)
    for bad in (True, 2.0, "2", 0, "ALL"):
        with pytest.raises(ValueError, match="solve_tricks"):
            endgame.check_tricks(env, bad)
    assert endgame.check_tricks(env, np.int64(2)) == 2 and type(endgame.check_tricks(env, 2)) is int
    assert endgame.leaves(3, 4) == 1296 and endgame.leaves(5, 2) == 14400


@pytest.mark.slow  # (the solve itself is checked by default against a host minimax above)
def test_pimc_with_solve_tricks_plays_legal_moves() -> None:
    # a decision at the start of a hand: the heuristic plays to the last two tricks, then the solve
    # (at the 2-player table: a small tree, so a quick compile; the 4-player partnership's solve is
    # checked against a host minimax above)
    two = sf.forty_five.FortyFive(2)
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    state = jax.vmap(two.init)(keys)
    actions = jax.jit(jax.vmap(sf.pimc(two, 4, solve_tricks=2)))(keys, state, state.current_player)
    assert np.asarray(jax.vmap(lambda m, a: m[a])(state.legal_action_mask, actions)).all()


def test_pimc_takes_solve_tricks_and_refuses_what_it_cannot_solve() -> None:
    ff = sf.make("forty_five")
    bot = sf.pimc(ff, 4, solve_tricks=2)
    assert "the last 2 tricks solved exactly" in bot.describe()
    assert "the whole play solved exactly" in sf.pimc(ff, 4, solve_tricks="all").describe()
    assert sf.pimc(ff, 4, solve_tricks=5).solve_tricks == 5
    with pytest.raises(ValueError, match="at most 5"):
        sf.pimc(ff, 4, solve_tricks=6)
    for bad in ("ALL", "whole", 2.5, True):
        with pytest.raises(ValueError, match="solve_tricks must be an integer >= 0 or 'all'"):
            sf.pimc(ff, 4, solve_tricks=bad)
    with pytest.raises(ValueError, match="built-in rollout_policy"):
        sf.pimc(ff, 4, rollout_policy=ff.builtin_policy("random"), solve_tricks=1)
    with pytest.raises(ValueError, match="built-in rollout_policy"):  # (no env needed to see it)
        sf.pimc(num_samples=4, rollout_policy=ff.builtin_policy("random"), solve_tricks=1)
    with pytest.raises(ValueError, match="solve_tricks must be an integer"):
        sf.pimc(ff, 4, solve_tricks=-1)
    with pytest.raises(ValueError, match="EndgameSolve"):
        sf.pimc(sf.make("oh_hell"), 4, solve_tricks=1)
    unbound = sf.pimc(num_samples=4, solve_tricks="all")
    assert unbound.bind(sf.forty_five.FortyFive(6, R(variant="twenty_five"))).solve_tricks == "all"
    with pytest.raises(ValueError, match="EndgameSolve"):
        unbound.bind(sf.make("oh_hell"))


@pytest.mark.slow
def test_equivalent_root_moves_take_their_twins_values(monkeypatch) -> None:
    """A decision's move equivalent to another of its world (a card of a run with nothing
    another seat holds between), and a padded repeat, is not searched but takes that move's
    solve (``endgame.root_twins``): the same points and Auction's bid made on the solved line
    as when every slot is searched, over random positions of every phase."""
    rules = R(variant="auction")
    env = sf.forty_five.FortyFive(2, rules)  # (two seats: the smallest programs to compile)
    after, player, keys = jax.jit(lambda: _after(env, 96, seed=5))()
    live = np.asarray(~after.terminated)
    states, player, keys = (jax.tree.map(lambda x: x[live], t) for t in (after, player, keys))
    width = 6
    actions = jax.vmap(lambda m: legal_slots(m, width)[0])(states.legal_action_mask)

    def solved() -> dict[str, np.ndarray]:
        run = jax.jit(lambda k, s, a, p: infer.solved_playout(env, k, s, a, p, "heuristic", "all"))
        return {f: np.asarray(v) for f, v in run(keys, states, actions, player).items()}

    twins = np.asarray(jax.jit(lambda s, a: infer._root_twins(s, a, 10, rules))(states, actions))
    assert_twins_take_their_values(solved, twins, actions, endgame, monkeypatch)
