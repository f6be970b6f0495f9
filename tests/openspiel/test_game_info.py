"""What ``GameType`` and ``GameInfo`` say of each OpenSpiel game is true, checked by play: the
utility is constant-sum (with its ``utility_sum``) exactly where every hand's returns sum to
one value (Twenty-Five at every table, Forty-Five from 8 seats), else general-sum, shown by two
hands that sum differently; every return lies within the utility bounds, which random play
reaches at the default tables; the game length counts the decisions and the chance nodes in a
history are the deal."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import spoilfive_jax.openspiel as sfo  # noqa: E402
from spoilfive_jax.openspiel import game as game_module  # noqa: E402
from tests.openspiel.hands import no_trump_deal, play, two_sums  # noqa: E402

CONSTANT = pyspiel.GameType.Utility.CONSTANT_SUM
GENERAL = pyspiel.GameType.Utility.GENERAL_SUM


def check_table(name: str, players: int | None, hands: int, seed: int) -> None:
    game = pyspiel.load_game(name, {} if players is None else {"players": players})
    kind, want = game.get_type(), game_module.utility_sum(game.env)
    assert kind.utility == (GENERAL if want is None else CONSTANT)
    assert pickle_round_trip(kind) == kind
    rng = np.random.default_rng(seed)
    finished = [play(game, rng) for _ in range(hands)]
    deal = no_trump_deal(game, rng)
    if deal is not None:  # the hand that leaves the best-trump bonus unclaimed
        finished.append(play(game, rng, deal))
    if want is None:
        assert len(list(two_sums(game, seed))) == 2
    else:
        assert game.utility_sum() == want
        assert {sum(s.returns()) for s in finished} == {want}
    low, high = game.min_utility(), game.max_utility()
    assert (low, high) == game.table.deals.reward_bounds(game.env) and low < high
    for s in finished:
        assert all(low <= r <= high for r in s.returns())
        chance = [a for a in s.full_history() if a.player == pyspiel.PlayerId.CHANCE]
        assert len(chance) == game.max_chance_nodes_in_history() == game.table.deal_length
        assert 0 < len(s.history()) - len(chance) <= game.max_game_length()
    assert game.max_game_length() == game.env.max_decisions


def pickle_round_trip(obj):
    import pickle

    return pickle.loads(pickle.dumps(obj))


@pytest.mark.parametrize("name", sfo.GAMES)
def test_each_game_tells_the_truth_about_its_utility_at_its_default_table(name):
    check_table(name, None, hands=4, seed=0)
    # the type registered with OpenSpiel is the default table's
    (registered,) = [g for g in pyspiel.registered_games() if g.short_name == name]
    assert registered == pyspiel.load_game(name).get_type()


@pytest.mark.parametrize(
    ("name", "players", "utility_sum"),
    [
        ("python_twenty_five", 6, 75.0),  # two teams of three: 25 a team, each seat its team's
        ("python_twenty_five", 3, 25.0),
        ("python_forty_five", 8, 30.0),  # 40 cards dealt: a trump is always played
        ("python_forty_five", 7, None),  # 35 cards dealt: the hands may hold no trump
        ("python_spoil_five", 2, None),
    ],
)
def test_constant_sum_exactly_where_every_hand_sums_alike(name, players, utility_sum):
    game = pyspiel.load_game(name, {"players": players})
    assert game_module.utility_sum(game.env) == utility_sum
    check_table(name, players, hands=3, seed=players)


def test_rule_options_that_break_the_constant_sum_make_it_general():
    for params in ({"jink": "announced"}, {"scoring": "hoyle"}):
        game = pyspiel.load_game("python_twenty_five", params)
        assert game.get_type().utility == GENERAL
        assert len(list(two_sums(game, seed=5, tries=200))) == 2
    assert pyspiel.load_game("python_twenty_five", {"jink": "wins_game"}).utility_sum() == 50.0


@pytest.mark.slow
@pytest.mark.parametrize("name", sfo.GAMES)
def test_each_game_tells_the_truth_about_its_utility_at_every_table(name):
    kind = pyspiel.load_game(name).get_type()
    for players in range(kind.min_num_players, kind.max_num_players + 1):
        check_table(name, players, hands=6, seed=players)


@pytest.mark.slow
@pytest.mark.parametrize("name", sfo.GAMES)
def test_random_play_reaches_both_utility_bounds_at_the_default_table(name):
    """4,000 random hands of the env at once (the OpenSpiel game's returns are the env's
    rewards summed over the hand: ``test_games``)."""
    game = pyspiel.load_game(name)
    env = game.env

    def hand(key):
        state = env.init(key, 0)

        def step(carry, k):
            s, total = carry
            mask = s.legal_action_mask
            a = jnp.argmax(jnp.where(mask, jax.random.uniform(k, mask.shape), -1.0))
            s = env.step(s, a)
            return (s, total + s.rewards), None

        keys = jax.random.split(jax.random.fold_in(key, 1), env.max_decisions)
        (_, total), _ = jax.lax.scan(step, (state, state.rewards), keys)
        return total

    totals = np.asarray(jax.jit(jax.vmap(hand))(jax.random.split(jax.random.PRNGKey(0), 4000)))
    assert totals.min() == game.min_utility() and totals.max() == game.max_utility()
