"""OpenSpiel's own suites, run from the installed ``open_spiel`` package against the project's
games, so that OpenSpiel's algorithms can trust them: ``pyspiel.random_sim_test`` with
serialization at every table size, ``python/tests/games_sim_test.py``'s test methods for our
games (its pickle and serialization checks on), and ``integration_tests/api_test.py``'s checks.

api_test checks a game two ways. Its partial-tree checks run as they are, on the states its own
sampler draws (for these games nearly all in the deal: 52 outcomes at every node), and again on
every node of random hands. Its full-tree checks need the whole game tree, far out of reach
here, so they run on every node of random hands instead, except the two that only a full tree
can answer: the number of nodes (a table of known counts) and the perfect-recall check from the
root. The perfect-recall check runs as OpenSpiel's own recursive function over every node below
a position reached by play (so a violation inside that subtree is found), in every game (the
env's perfect-recall information states)."""

from __future__ import annotations

import random
import unittest

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

# ours first: OpenSpiel's test modules list the registered games when imported
import spoilfive_jax.openspiel as sfo  # noqa: E402
from tests.openspiel.hands import two_sums  # noqa: E402

api_test = pytest.importorskip("open_spiel.integration_tests.api_test")
games_sim_test = pytest.importorskip("open_spiel.python.tests.games_sim_test")

GAMES = sfo.GAMES
FULL_TREE_ONLY = ("test_number_of_nodes", "test_game_is_perfect_recall")


def table_sizes(name: str) -> range:
    kind = pyspiel.load_game(name).get_type()
    return range(kind.min_num_players, kind.max_num_players + 1)


def run_case(case: unittest.TestCase | unittest.TestSuite) -> None:
    """Run OpenSpiel's unittest case(s); fail with their failures and errors."""
    result = unittest.TestResult()
    case.run(result)
    assert result.testsRun > 0
    problems = [f"{test.id()}:\n{text}" for test, text in result.failures + result.errors]
    assert not problems, "\n".join(problems)


def played_states(game, hands: int, seed: int) -> list:
    """Every node of ``hands`` random hands (clones), the terminal ones included."""
    rng, out = np.random.default_rng(seed), []
    for _ in range(hands):
        state = game.new_initial_state()
        while True:
            out.append(state.clone())
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
    return out


# ------------------------------------------------------------------------ random_sim_test


@pytest.mark.parametrize(("name", "players"), [("python_spoil_five", 2), ("python_oh_hell", 3)])
def test_random_simulations_pass_with_serialization(name, players):
    game = pyspiel.load_game(name, {"players": players})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_random_simulations_pass_with_serialization_at_every_table_size(name):
    sizes = table_sizes(name)
    assert sizes.stop - 1 == 10 if name != "python_oh_hell" else sizes.stop - 1 == 7
    for players in sizes:
        game = pyspiel.load_game(name, {"players": players})
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


# ------------------------------------------------------------------------ games_sim_test


def sim_methods() -> list[str]:
    """games_sim_test's generated test methods of our games: each default table, and 2..6
    players (3..6 for Oh Hell) for its multiplayer test."""
    cls = games_sim_test.GamesSimTest
    return sorted(m for m in dir(cls) if m.startswith("test_") and m.endswith(GAMES))


def test_games_sim_test_lists_every_game_at_every_table_it_tries():
    methods = sim_methods()
    for name in GAMES:
        fewest = max(2, pyspiel.load_game(name).get_type().min_num_players)
        expected = {f"test_game_sim_{name}"}
        expected |= {f"test_multiplayer_game_{p}p_{name}" for p in range(fewest, 7)}
        assert expected == {m for m in methods if m.endswith(name)}


@pytest.mark.parametrize("method", ["test_game_sim_python_twenty_five"])
def test_games_sim_test_passes(method):
    np.random.seed(0)
    run_case(games_sim_test.GamesSimTest(method))


@pytest.mark.slow
def test_games_sim_test_passes_for_every_game_and_table():
    np.random.seed(1)
    for method in sim_methods():
        run_case(games_sim_test.GamesSimTest(method))


# ------------------------------------------------------------------------ api_test


def partial_tree_suite(name: str, game, states: list | None) -> unittest.TestSuite:
    """api_test's partial-tree checks of ``game``: on its sampler's states (``states`` None)
    or on ``states``."""
    base = api_test.EnforceAPIOnPartialTreeBase
    attrs = {"game_name": name, "game": game}
    if states is not None:

        def set_up(cls) -> None:
            super(base, cls).setUpClass()
            cls.some_states, cls.game_type = states, cls.game.get_type()

        attrs["setUpClass"] = classmethod(set_up)
    cls = type(f"EnforceAPIOnPartialTree_{name}", (base,), attrs)
    return unittest.defaultTestLoader.loadTestsFromTestCase(cls)


def full_tree_suite(name: str, game, states: list) -> unittest.TestSuite:
    """api_test's full-tree checks of ``game`` on ``states`` (all but ``FULL_TREE_ONLY``)."""
    base = api_test.EnforceAPIOnFullTreeBase

    def set_up(cls) -> None:
        super(base, cls).setUpClass()
        cls.all_states = set(states)

    attrs = {"game_name": name, "game": game, "setUpClass": classmethod(set_up)}
    cls = type(f"EnforceAPIOnStatesOfPlay_{name}", (base,), attrs)
    names = [m for m in unittest.defaultTestLoader.getTestCaseNames(cls) if m not in FULL_TREE_ONLY]
    assert len(names) == 6, names  # OpenSpiel's full-tree checks, less the two above
    return unittest.TestSuite(cls(m) for m in names)


def check_api(name: str, players: int | None, hands: int, seed: int) -> None:
    game = pyspiel.load_game(name, {} if players is None else {"players": players})
    random.seed(seed)  # api_test's sampler draws with ``random``
    run_case(partial_tree_suite(name, game, None))
    states = played_states(game, hands, seed)
    states += evidence_of_general_sum(game, seed)
    run_case(partial_tree_suite(name, game, states))
    run_case(full_tree_suite(name, game, states))


def evidence_of_general_sum(game, seed: int) -> list:
    """Finished hands whose returns sum to two different values, where the game says it is
    general-sum (api_test's utility check reads the terminal states it is given); none for a
    constant-sum game."""
    if game.get_type().utility != pyspiel.GameType.Utility.GENERAL_SUM:
        return []
    return list(two_sums(game, seed))


@pytest.mark.parametrize("name", ["python_spoil_five", "python_twenty_five"])
def test_api_test_passes(name):
    check_api(name, None, hands=2, seed=3)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_api_test_passes_for_every_game_at_its_smallest_and_largest_table(name):
    sizes = table_sizes(name)
    for players in (sizes.start, None, sizes.stop - 1):
        check_api(name, players, hands=4, seed=players or 0)


# ------------------------------------------------------------------------ perfect recall


def subtree_size(state, cap: int) -> int:
    """The nodes of ``state``'s subtree (chance and terminal included), or ``cap + 1`` once it
    has more than ``cap``."""
    count, todo = 0, [state]
    while todo and count <= cap:
        s = todo.pop()
        count += 1
        if s.is_terminal():
            continue
        actions = [a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
        todo.extend(s.child(a) for a in actions)
    return count


def check_perfect_recall(game, seed: int, budget: int) -> int:
    """OpenSpiel's recursive perfect-recall check over every node below the earliest position
    of a random hand whose subtree has at most ``budget`` nodes, with the hand's path to it as
    the history; the number of (information state, seat) pairs it met."""
    rng, state, path = np.random.default_rng(seed), game.new_initial_state(), []
    while not state.is_terminal():
        path.append(state.clone())
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    actions = state.history()
    depth = len(path) - 1
    while depth > 0 and subtree_size(path[depth - 1], budget) <= budget:
        depth -= 1
    seen: dict = {}
    history = [(path[i], actions[i]) for i in range(depth)]
    api_test._assert_is_perfect_recall_recursive(path[depth], history, seen)
    return len(seen)


def test_information_states_are_perfect_recall_through_the_env():
    game = pyspiel.load_game("python_spoil_five", {"players": 2})
    state = played_states(game, 1, seed=0)[-3]
    env = game.env
    assert state.information_state_string(0) == env.information_state_string(state.env_state, 0)
    want = np.asarray(env.information_state(state.env_state, 0)).reshape(-1)
    assert np.array_equal(state.information_state_tensor(0), want)
    for seed in range(2):
        assert check_perfect_recall(game, seed, budget=400) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_information_states_through_the_env_are_perfect_recall_in_every_game(name):
    for players in (None, table_sizes(name).start):
        game = pyspiel.load_game(name, {} if players is None else {"players": players})
        for seed in range(3):
            assert check_perfect_recall(game, seed, budget=3000) > 0
