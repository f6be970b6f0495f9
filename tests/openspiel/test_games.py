"""The games inside OpenSpiel (``spoilfive_jax.openspiel``): registered with their parameters,
dealt card by card by chance, stepped in lockstep with the env, observed and resampled as the
env does, and played by the project's bots and OpenSpiel's ISMCTS."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots  # noqa: E402

import spoilfive_jax as sf  # noqa: E402
import spoilfive_jax.openspiel as sfo  # noqa: E402

FAMILY = (
    "python_spoil_five",
    "python_forty_five",
    "python_twenty_five",
    "python_auction_forty_fives",
)


def random_decision(game, seed: int, decisions: int):
    """A state ``decisions`` random legal decisions after a random deal."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while state.is_chance_node() or (decisions > 0 and not state.is_terminal()):
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            decisions -= 1
    return state


def test_every_game_of_the_family_is_registered_with_its_rule_parameters():
    assert set(FAMILY) <= set(sfo.GAMES) and set(FAMILY) <= set(pyspiel.registered_names())
    game = pyspiel.load_game(
        "python_spoil_five", {"players": 3, "rob": "off", "deal_packets": "3_2", "ante": 2}
    )
    rules = game.env.rules
    assert game.num_players() == 3 and game.env.num_players == 3
    assert (rules.rob, rules.deal_packets, rules.ante, rules.bonus) == ("off", (3, 2), 2, 2)
    assert pyspiel.load_game(str(game)).env == game.env  # the game's string loads it again
    auction = pyspiel.load_game("python_auction_forty_fives", {"target": 100})
    assert auction.env.rules.auction and auction.env.rules.goal == 100
    assert (
        auction.max_chance_outcomes() == 52
        and auction.num_distinct_actions() == auction.env.num_actions
    )
    low, high = auction.min_utility(), auction.max_utility()
    assert low < 0 < high


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"rob": "sometimes"}, "rob"),
        ({"dealer": 5}, "dealer must be 0..2"),
        ({"players": 11}, "2..10"),
    ],
)
def test_a_bad_parameter_is_refused_by_name(params, match):
    with pytest.raises((ValueError, pyspiel.SpielError), match=match):
        pyspiel.load_game("python_spoil_five", {"players": 3, **params})


# (a family game's random simulations run by default in test_openspiel_suites.py's
# games_sim_test, on Twenty-Five; Forty-Five's here under -m slow)
@pytest.mark.parametrize(
    "name", ["python_spoil_five", pytest.param("python_forty_five", marks=pytest.mark.slow)]
)
def test_openspiel_random_simulation_checks_pass(name):
    game = pyspiel.load_game(name, {"players": 4})
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", [*FAMILY, "python_oh_hell"])
@pytest.mark.parametrize("players", ["fewest", 5])
def test_openspiel_random_simulation_checks_pass_at_every_table(name, players):
    if players == "fewest":  # 2, or Oh Hell's 3
        players = pyspiel.load_game(name).get_type().min_num_players
    game = pyspiel.load_game(name, {"players": players})
    pyspiel.random_sim_test(game, num_sims=20, serialize=False, verbose=False)


@pytest.mark.parametrize(("name", "players"), [("python_spoil_five", 3), ("python_forty_five", 4)])
def test_the_deal_is_chance_card_by_card_and_the_hand_steps_with_the_env(name, players):
    game = pyspiel.load_game(name, {"players": players, "dealer": 1})
    env = game.env
    deals = env.capability(sf.capabilities.DeckDeals)
    length = deals.deal_length(env)
    order = np.random.default_rng(3).permutation(deals.deck_size(env))
    state = game.new_initial_state()
    for i in range(length):
        outcomes = state.chance_outcomes()
        assert state.is_chance_node() and len(outcomes) == deals.deck_size(env) - i
        assert {a for a, _ in outcomes} == set(range(deals.deck_size(env))) - set(
            order[:i].tolist()
        )
        assert np.isclose(sum(p for _, p in outcomes), 1.0) and len({p for _, p in outcomes}) == 1
        state.apply_action(int(order[i]))
    rest = sorted(set(range(deals.deck_size(env))) - set(order[:length].tolist()))
    mine = env.init_from_deck(np.array([*order[:length], *rest], np.int32), 1)
    rng, total = np.random.default_rng(4), np.zeros(players)
    while not state.is_terminal():
        assert state.current_player() == int(mine.current_player)
        legal = state.legal_actions()
        assert legal == env.legal_actions(mine)
        action = int(rng.choice(legal))
        state.apply_action(action)
        mine = env.step(mine, action)
        total += np.asarray(mine.rewards)
    assert bool(mine.terminated) and np.allclose(state.returns(), total)
    assert game.min_utility() <= min(total) and max(total) <= game.max_utility()


@pytest.mark.parametrize("name", ["python_spoil_five", "python_auction_forty_fives"])
def test_a_node_reached_by_a_watched_step_reads_as_one_made_cold(name):
    """A step from a node whose views were read brings the child's views in the same call and
    extends the parent's record texts by one entry; a node rebuilt from its packed state alone
    (unpickled: nothing carried over) must read the same, seat by seat."""
    game = pyspiel.load_game(name)
    rng, state = np.random.default_rng(5), random_decision(game, 6, 0)
    seats = range(game.num_players())

    def same_as_cold() -> None:
        watched = [state.information_state_string(p) for p in seats]  # reads every view
        cold = pickle.loads(pickle.dumps(state))
        assert [cold.information_state_string(p) for p in seats] == watched
        for p in seats:
            assert cold.information_state_tensor(p) == state.information_state_tensor(p)
            assert cold.observation_tensor(p) == state.observation_tensor(p)
        assert str(cold) == str(state)

    while not state.is_terminal():
        same_as_cold()
        state.apply_action(int(rng.choice(state.legal_actions())))
        assert state._node._views is not None  # the views came with the step
    same_as_cold()  # the last step's node too
    dealing = game.new_initial_state()
    dealing.apply_action(7)
    dealing.apply_action(3)
    assert (
        str(dealing)
        == str(dealing.clone())
        == f"dealing: {game.env.action_str(7)} {game.env.action_str(3)}"
    )


def test_observations_are_the_envs_and_resampled_worlds_are_histories_of_their_own():
    game = pyspiel.load_game("python_spoil_five", {"players": 4})
    state = random_decision(game, seed=5, decisions=6)
    p = state.current_player()
    env = game.env
    assert np.array_equal(state.observation_tensor(p), np.asarray(env.observe(state.env_state, p)))
    info = np.asarray(env.information_state(state.env_state, p))
    assert np.array_equal(state.information_state_tensor(p), info)
    assert state.information_state_string(p) == env.information_state_string(state.env_state, p)
    assert state.information_state_string(p) != state.information_state_string((p + 1) % 4)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    hidden = set()
    for _ in range(12):
        world = state.resample_from_infostate(p, sampler)
        assert world.information_state_string(p) == state.information_state_string(p)
        assert world.information_state_tensor(p) == state.information_state_tensor(p)
        again = game.new_initial_state()
        for action in world.history():  # the world's own history replays to it
            again.apply_action(action)
        assert again.history() == world.history() and str(again) == str(world)
        assert again.information_state_string((p + 1) % 4) == world.information_state_string(
            (p + 1) % 4
        )
        assert world.legal_actions() == state.legal_actions()
        assert world.current_player() == p and state.env_state is not world.env_state
        others = [s for s in range(4) if s != p]
        hidden.add(tuple(int(world.env_state.hands.lo[s]) for s in others))
        assert int(world.env_state.hands.lo[p]) == int(state.env_state.hands.lo[p])
    assert len(hidden) > 1  # the other hands are drawn again
    # resampled for another seat, the seat to act keeps its turn but not its cards: its legal
    # actions are the world's
    other = (p + 1) % 4
    for _ in range(6):
        world = state.resample_from_infostate(other, sampler)
        assert world.current_player() == p
        assert world.legal_actions() == env.legal_actions(world.env_state)


def test_an_illegal_action_or_a_card_dealt_twice_is_refused():
    game = pyspiel.load_game("python_spoil_five", {"players": 3})
    state = game.new_initial_state()
    state.apply_action(7)
    with pytest.raises((ValueError, pyspiel.SpielError), match="not a card left"):
        state.apply_action(7)
    state = random_decision(game, seed=2, decisions=0)
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises((ValueError, pyspiel.SpielError), match="not legal"):
        state.apply_action(illegal)


def test_the_projects_bots_and_ismcts_play_through_evaluate_bots():
    game = pyspiel.load_game("python_spoil_five", {"players": 3})
    rng = np.random.RandomState(0)
    heuristic = [sfo.PolicyBot(game, "heuristic", seed=s) for s in range(3)]
    randomly = [sfo.PolicyBot(game, "random", seed=s) for s in range(3)]
    first = evaluate_bots.evaluate_bots(
        game.new_initial_state(), randomly, np.random.RandomState(1)
    )
    again = evaluate_bots.evaluate_bots(  # the same bots: restart_at starts them again
        game.new_initial_state(), randomly, np.random.RandomState(1)
    )
    assert first == again and game.min_utility() <= min(first) <= max(first) <= game.max_utility()
    bots = [sfo.ismcts_bot(game, 8, seed=2), heuristic[1], sfo.PolicyBot(game, "random", seed=3)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert len(returns) == 3 and all(np.isfinite(returns))
    # a seed replays ISMCTS (its worlds come from its own generator, not OpenSpiel's clock)
    state = random_decision(game, seed=8, decisions=1)
    assert sfo.ismcts_bot(game, 8, seed=4).step(state) == sfo.ismcts_bot(game, 8, seed=4).step(
        state
    )


def test_a_bot_names_what_is_wrong():
    game = pyspiel.load_game("python_spoil_five", {"players": 3})
    with pytest.raises(ValueError, match="unknown policy 'nonsense'"):
        sfo.PolicyBot(game, "nonsense")
    with pytest.raises(ValueError, match="a policy must be a name"):
        sfo.PolicyBot(game, 7)
    with pytest.raises(ValueError, match=r"plays the games of spoilfive_jax\.openspiel"):
        sfo.PolicyBot(pyspiel.load_game("kuhn_poker"), "random")
    with pytest.raises(ValueError, match="no decision"):
        sfo.PolicyBot(game, "random").step(game.new_initial_state())


@pytest.mark.slow
def test_pimc_and_the_ppo_agent_are_bots_too():
    game = pyspiel.load_game("python_spoil_five", {"players": 5})
    from spoilfive_jax.rl.agent import load_policy

    ppo = load_policy("examples/agents/ppo_seat.npz")
    bots = [sfo.PolicyBot(game, sf.pimc(num_samples=4), seed=0), sfo.PolicyBot(game, ppo)]
    bots += [sfo.PolicyBot(game, "best", seed=1)]  # sf.best_policy, by name
    bots += [sfo.PolicyBot(game, "heuristic", seed=s) for s in range(2)]
    from spoilfive_jax.openspiel import bots as bots_module

    assert bots[2]._act is bots_module._jitted(game.env, sf.best_policy(game.env))
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert len(returns) == 5 and game.min_utility() <= min(returns)
