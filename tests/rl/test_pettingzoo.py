"""The PettingZoo AEC wrapper passes PettingZoo's own ``api_test`` and plays whole hands with
the same results as the JAX engine (skipped when pettingzoo is not installed)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import api_test

import spoilfive_jax as sf
from spoilfive_jax.rl.pettingzoo import env, raw_env


# (more seats by default: the 3-seat hands played out below; 4 seats under -m slow)
@pytest.mark.parametrize("n", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_pettingzoo_api_test(n):
    api_test(env(num_players=n), num_cycles=200)


def test_hands_play_out_and_pay():
    e = raw_env(num_players=3)
    for seed in range(4):
        e.reset(seed=seed, options={"dealer": seed % 3})
        totals = dict.fromkeys(e.possible_agents, 0.0)
        steps = 0
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, info = e.last()
            totals[agent] += reward
            assert obs["observation"].dtype == np.float32
            assert obs["observation"].shape == sf.spoil_five.SpoilFive(3).observation_shape
            if terminated or truncated:
                assert info["illegal"] is False
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert legal.size > 0
            # only the agent to act has legal actions
            for other in e.agents:
                if other != agent:
                    assert not e.observe(other)["action_mask"].any()
            e.step(int(legal[0]))
            steps += 1
        assert not e.agents
        assert 3 * 3 <= steps <= 5 * 3 + 2
        # the pot went to someone (-1 ante each, winner +pot) or was carried (all -1)
        assert sorted(totals.values()) in ([-1.0, -1.0, 2.0], [-1.0, -1.0, -1.0]) or any(
            v > 2 for v in totals.values()
        )


def test_render_and_seed_determinism():
    a, b = raw_env(num_players=4, render_mode="ansi"), raw_env(num_players=4)
    a.reset(seed=7)
    b.reset(seed=7)
    for agent in ("player_0", "player_3"):
        np.testing.assert_array_equal(
            a.observe(agent)["observation"], b.observe(agent)["observation"]
        )
    assert "to act: player_" in a.render()
    with pytest.raises(ValueError):
        raw_env(render_mode="rgb_array")


def test_one_wrapper_for_every_game_through_the_interface():
    from spoilfive_jax.rl.pettingzoo import CardGameAEC, SpoilFiveAEC

    assert SpoilFiveAEC is CardGameAEC  # the first name is kept
    for game_id in sf.available_games():
        e = raw_env(num_players=4, game=game_id, render_mode="ansi")
        assert e.metadata["name"] == f"{game_id}_v0" and e.table == sf.make(game_id, 4)
        e.reset(seed=1)
        assert "to act: player_" in e.render()
        space = e.observation_space("player_0")["observation"]
        assert space.shape == e.table.observation_shape
        assert float(space.low.min()) == e.table.capability(
            sf.capabilities.AgentInfo
        ).observation_low(e.table)
        mask = e.observe(e.agent_selection)["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (e.table.num_actions,)  # 55, or 64
    assert raw_env(num_players=3).metadata["name"] == "spoil_five_v0"
    with pytest.raises(ValueError, match="game environment"):
        raw_env(table="spoil_five")
