"""What a game that writes only the five hooks every game must (``id``, ``init``, ``_apply``,
``max_decisions``, ``observe``) gets from the core: the illegal action's end, the action text
and the built-in ``"random"`` (``core.generic``), and every tool."""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax import cli
from tests.tiny_game import BareHighCard


@pytest.fixture
def bare():
    """BareHighCard registered for the test (``api_test`` and the command line find games
    by id)."""
    sf.register("bare_high_card", BareHighCard)
    yield sf.make("bare_high_card")
    sf.unregister("bare_high_card")


def test_every_game_must_write_five_hooks_and_a_game_of_those_alone_passes_api_test(bare):
    assert sorted(sf.Env.__abstractmethods__) == [
        "_apply",
        "id",
        "init",
        "max_decisions",
        "observe",
    ]
    for hook in ("_end_illegal", "action_str", "policy_names", "builtin_policy"):
        assert hook not in vars(BareHighCard)  # (the core's defaults)
    sf.testing.api_test(bare, num=16)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_default_end_of_an_illegal_action_is_pgxs(seed):
    env = BareHighCard(4)
    state = env.init(seed)
    state = env.step(state, int(np.flatnonzero(state.legal_action_mask)[0]))  # (mid-hand)
    p = int(state.current_player)
    illegal = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
    after = env.step(state, illegal)
    assert bool(after.terminated) and bool(after.illegal)
    assert int(after.current_player) == -1 and env.phase_names[int(after.phase)] == "done"
    np.testing.assert_array_equal(after.rewards, -(np.arange(4) == p).astype(np.float32))
    assert int(after._step_count) == 2
    assert np.asarray(after.legal_action_mask).all()  # (the game's _settle: all once over)


def test_the_default_end_charges_the_rules_illegal_penalty_where_they_have_one():
    """A game whose rules say what an illegal action costs (``illegal_penalty``, as Oh Hell's
    do) keeps the default end: the offender scores minus it; a penalty that is not a finite
    number >= 0 is a ``ValueError`` when the step is traced."""

    @dataclasses.dataclass(frozen=True)
    class Costly:
        illegal_penalty: Any = 2.5

    class Priced(BareHighCard):
        rules_type = Costly

    def after_illegal(rules: Any) -> Any:
        env = Priced(3, rules)
        state = env.init(0)
        illegal = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
        return env.step(state, illegal), int(state.current_player)

    after, p = after_illegal(Costly())
    np.testing.assert_array_equal(after.rewards, -2.5 * (np.arange(3) == p))
    after, p = after_illegal(Costly(np.int64(3)))  # (any real number: a numpy int too)
    np.testing.assert_array_equal(after.rewards, -3.0 * (np.arange(3) == p))
    for bad in (-1, "2", True, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"illegal_penalty must be a finite number >= 0"):
            after_illegal(Costly(bad))


def test_the_default_action_text_and_builtin_random():
    env = BareHighCard(3)
    assert [env.action_str(a) for a in range(env.num_actions)] == ["0", "1", "2", "3", "4", "5"]
    assert env.policy_names == ("random",)
    with pytest.raises(
        ValueError, match="unknown policy 'highest' for bare_high_card; built-in: random"
    ):
        env.builtin_policy("highest")
    random = env.builtin_policy("random")
    state = env.init(1)
    legal = np.flatnonzero(state.legal_action_mask)
    keys = jax.random.split(jax.random.PRNGKey(0), 6000)
    picks = jax.vmap(random, in_axes=(0, None, None))(keys, state, state.current_player)
    counts = np.bincount(np.asarray(picks), minlength=env.num_actions)
    assert set(np.flatnonzero(counts).tolist()) == set(legal.tolist())  # legal ones, each drawn
    expected = keys.shape[0] / legal.size
    assert np.all(np.abs(counts[legal] - expected) < 5 * np.sqrt(expected))


def test_the_tools_and_the_command_line_play_a_game_of_the_five_hooks(bare, capsys):
    result = sf.rollout(0, bare, "random", 300)
    assert np.asarray(result.rewards).shape == (300, 3)
    np.testing.assert_array_equal(np.asarray(result.rewards).sum(-1), 1.0)  # one seat takes it
    lowest = {"random": "random", "lowest": lambda key, state, player: sf.first_legal(state)}
    table = sf.evaluate(1, bare, lowest, 300)
    assert table.names == ("random", "lowest")
    assert table.mean_reward[0] > table.mean_reward[1]  # (the lowest card wins less often)
    assert cli.main(["rollout", "--game", "bare_high_card", "--hands", "90", "--quiet"]) == 0
    assert "decisions 270" in capsys.readouterr().out
