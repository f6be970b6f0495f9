"""The best bot (``sf.best_policy``) and the pimc levers it is made of: ``tie_break`` and
``carry_share`` change what the search maximises (``PimcPolicy.scores``), the command line
plays it as ``best`` and terminal play's ``hint`` shows its choice.  Its strength is measured in
``benchmarks/best_bot.py``, not here."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.cli.errors import CliError
from spoilfive_jax.cli.policies import resolve
from spoilfive_jax.games.forty_five.agent import shipped_agent
from spoilfive_jax.tools.best import hint_text
from spoilfive_jax.tools.pimc import PimcPolicy

SF3 = sf.spoil_five.SpoilFive(3)
FF4 = sf.forty_five.FortyFive(4)
POSITION = "players=5; dealer=0; turnup=7D; player=1; hand=5D JH AH KC 4S; history="


def _live(env: sf.Env, seed: int = 0, moves: int = 3) -> object:
    state = env.init(jax.random.PRNGKey(seed))
    for t in range(moves):
        choice = env.builtin_policy("heuristic")(jax.random.PRNGKey(t), state, state.current_player)
        state = env.step(state, choice)
    return state


def test_best_policy_is_pimc_with_the_levers_each_game_can_take() -> None:
    best = sf.best_policy(SF3)
    assert isinstance(best, PimcPolicy) and best.__name__ == "best"
    assert (best.num_samples, best.rollout_policy, best.tie_break) == (64, "heuristic", "heuristic")
    assert best.carry_share == 1.0 and not best.see_all
    family = sf.best_policy(FF4)  # worlds weighed by the shipped agent (Forty-Five, 4 seats)
    assert isinstance(family, PimcPolicy) and family.carry_share == 0.0
    assert family.tie_break is None and family.num_samples == 64
    assert (family.infer_worlds, family.softness) == (128, 0.1)
    assert family.infer_model is shipped_agent(FF4) is not None
    assert family == sf.best_policy(sf.forty_five.FortyFive(4))  # one agent a table: one program
    for other in (sf.forty_five.FortyFive(6), sf.make("auction_forty_fives")):  # no agent
        assert sf.best_policy(other) == dataclasses.replace(sf.pimc(other, 64), name="best")
    cheat = sf.best_policy(SF3, see_all=True)
    assert cheat.see_all and cheat.__name__ == "best-sees-all"
    with pytest.raises(ValueError, match="best_policy takes a game environment"):
        sf.best_policy("spoil_five")  # type: ignore[arg-type]


def test_a_game_without_analysis_gets_its_strongest_builtin() -> None:
    class NoAnalysis(sf.spoil_five.SpoilFive):
        capabilities: ClassVar[Mapping[type, object]] = {}  # no position analysis

    env = NoAnalysis(3)
    best = sf.best_policy(env)
    assert not isinstance(best, PimcPolicy)
    state = env.init(jax.random.PRNGKey(0))
    heuristic = env.builtin_policy("heuristic")
    key = jax.random.PRNGKey(1)
    assert int(best(key, state, state.current_player)) == int(
        heuristic(key, state, state.current_player)
    )
    with pytest.raises(ValueError, match="no position analysis"):
        sf.best_policy(env, see_all=True)


def test_ties_go_to_the_tie_break_and_a_real_difference_wins_over_it() -> None:
    bot = sf.pimc(SF3, 8, tie_break="heuristic")
    state = _live(SF3)
    legal = jnp.asarray(np.flatnonzero(np.asarray(state.legal_action_mask)), jnp.int32)
    used = jnp.ones(legal.size, bool)
    assert legal.size >= 2
    key = jax.random.PRNGKey(0)
    choice = int(sf.spoil_five.HEURISTIC(key, state, state.current_player))  # (deterministic)
    zero = jnp.zeros(legal.size)
    tied = {"expected_chips": zero, "win_prob": zero, "spoil_prob": zero}
    assert int(legal[bot.choose(key, state, tied, legal, used)]) == choice
    other = int(np.flatnonzero(np.asarray(legal) != choice)[0])
    step = 1.0 / 64  # the smallest real difference of 64 worlds' means of whole chips
    ahead = dict(tied, expected_chips=tied["expected_chips"].at[other].set(step))
    assert int(bot.choose(key, state, ahead, legal, used)) == other
    big = dict(tied, expected_chips=jnp.full(legal.size, 3000.0))  # (a big ante: still a tie)
    assert int(legal[bot.choose(key, state, big, legal, used)]) == choice
    unused = used.at[int(np.flatnonzero(np.asarray(legal) == choice)[0])].set(False)
    assert int(legal[bot.choose(key, state, tied, legal, unused)]) != choice  # only used slots
    plain = sf.pimc(SF3, 8)  # without the lever the first of the tied actions wins
    assert int(plain.choose(key, state, tied, legal, used)) == 0


def test_a_spoil_is_worth_the_share_of_the_pot_it_carries() -> None:
    state = _live(SF3)
    means = {
        "expected_chips": jnp.array([-1.0, -1.0]),
        "win_prob": jnp.zeros(2),
        "spoil_prob": jnp.array([0.0, 0.5]),
    }
    carry = np.asarray(sf.pimc(SF3, 8, carry_share=1.0).scores(state, means))
    pot = int(state.pot)
    np.testing.assert_allclose(carry, [-1.0, -1.0 + 0.5 * pot / 3], rtol=1e-6)
    double = np.asarray(sf.pimc(SF3, 8, carry_share=np.float32(2.0)).scores(state, means))
    np.testing.assert_allclose(double[1] - double[0], pot / 3, rtol=1e-6)
    plain = np.asarray(sf.pimc(SF3, 8).scores(state, means))
    np.testing.assert_allclose(plain, [-1.0, -1.0])


def test_bad_levers_are_refused_by_name() -> None:
    for bad in (-1.0, float("nan"), float("inf"), True, "1"):
        with pytest.raises(ValueError, match="carry_share must be"):
            sf.pimc(SF3, 8, carry_share=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no spoil_prob field"):
        sf.pimc(FF4, 8, carry_share=1.0)  # nothing is carried in the family
    with pytest.raises(ValueError, match="no spoil_prob field"):
        sf.pimc(num_samples=8, carry_share=1.0).bind(FF4)
    with pytest.raises(ValueError, match="tie_break 'nope' is not a built-in policy"):
        sf.pimc(tie_break="nope")
    with pytest.raises(ValueError, match="bad tie_break for spoil_five"):
        sf.pimc(SF3, tie_break="greedy")  # the family's, not Spoil Five's
    with pytest.raises(ValueError, match="bad tie_break for spoil_five"):
        sf.pimc(num_samples=2, tie_break="greedy").bind(SF3)  # checked when bound too
    with pytest.raises(ValueError, match="tie_break must be a cheap policy"):
        sf.pimc(SF3, tie_break=sf.pimc(SF3, 2))
    with pytest.raises(ValueError, match="name must be a string"):
        sf.pimc(SF3, name=3)  # type: ignore[arg-type]


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_the_levers_play_through_the_tools_bound_or_not() -> None:
    """An unbound bot with levers binds to the tool's env and plays what the bound one plays."""
    lineup = ["heuristic", "random"]
    unbound = sf.pimc(num_samples=2, rollout_policy="random", tie_break="heuristic")
    bound = sf.pimc(SF3, 2, "random", tie_break="heuristic")
    a = sf.rollout(0, SF3, [unbound, *lineup], num_hands=4)
    b = sf.rollout(0, SF3, [bound, *lineup], num_hands=4)
    np.testing.assert_array_equal(a.rewards, b.rewards)
    assert unbound.bind(SF3) == bound


def test_the_command_line_names_the_best_bot() -> None:
    assert resolve("best", SF3, {}) == sf.best_policy(SF3)
    assert resolve(" best ", FF4, {}) == sf.best_policy(FF4)
    with pytest.raises(CliError, match="best, pimc"):
        resolve("bestest", SF3, {})


@pytest.mark.slow  # (by default the CLI's hint test sees the best bot's line: tests/cli)
def test_the_hint_shows_the_best_bots_choice_of_its_table() -> None:
    env = sf.spoil_five.SpoilFive(5)
    state = sf.position_from_history(env, POSITION)
    text = hint_text(env, state, 0, 64)
    table, last = text.rsplit("\n", 1)
    assert last.startswith("best: ") and "the best bot's choice from these samples" in last
    assert "ties to the heuristic" in last and "a spoil worth its share of the pot" in last
    assert "64 worlds" not in last  # the table's samples, not the bot's worlds
    res = sf.analyze(0, env, state, 64)
    legal = np.flatnonzero(res.legal)
    best = sf.best_policy(env)
    means = {f: res.values[f][legal] for f in res.fields}
    pick = best.choose(jax.random.PRNGKey(0), state, means, legal, np.ones(legal.size, bool))
    assert last.split(" (")[0] == f"best: {res.action_names[legal[int(pick)]]}"
    assert table == res.table()  # the table itself is the analysis's
    plain = hint_text(env, state, 0, 64, policy="random")  # other playouts: the table only
    assert "best:" not in plain
