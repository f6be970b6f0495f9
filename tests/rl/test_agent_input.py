"""A saved agent refuses what it cannot play, and a file that is not an agent, with one
``ValueError`` in the library's words"""

from __future__ import annotations

import json
from pathlib import Path

import jax
import numpy as np
import pytest

import spoilfive_jax as sf

agent = pytest.importorskip("spoilfive_jax.rl.agent")  # the extra ``rl`` (flax)

SHIPPED = Path(__file__).resolve().parents[2] / "examples" / "agents" / "ppo_seat.npz"
NOT_AN_AGENT = "is not an agent saved by this project"


@pytest.fixture(scope="module")
def policy():
    return agent.load_policy(SHIPPED)  # a 5-player Spoil Five agent


@pytest.mark.parametrize(
    ("game", "players", "words"),
    [
        ("forty_five", 5, "this agent plays spoil_five, not forty_five"),
        ("forty_five", 4, "this agent plays spoil_five, not forty_five"),
        pytest.param(  # (another family game, the same check as forty_five's: -m slow)
            "auction_forty_fives",
            4,
            "this agent plays spoil_five, not auction_forty_fives",
            marks=pytest.mark.slow,
        ),
        ("spoil_five", 4, "this agent plays 5-player spoil_five tables, not 4-player ones"),
    ],
)
def test_every_tool_refuses_a_table_the_agent_does_not_play(policy, game, players, words):
    env = sf.make(game, players)
    seats = [policy] + ["random"] * (players - 1)
    for run in (
        lambda: sf.rollout(0, env, seats, 16),
        lambda: sf.evaluate(0, env, {"ppo": policy, "random": "random"}, num_hands=16),
        lambda: sf.analyze(0, env, env.init(0), num_samples=2, policy=policy),
    ):
        with pytest.raises(ValueError) as e:
            run()
        assert str(e.value) == words


def test_a_direct_call_on_another_game_s_state_names_the_agent_s_table(policy):
    state = sf.make("forty_five", 4).init(0)
    with pytest.raises(ValueError, match=r"^this agent plays 5-player spoil_five tables, got a "):
        policy(jax.random.PRNGKey(0), state, 0)
    with pytest.raises(ValueError, match="4-player state of FortyFive"):
        jax.jit(policy)(jax.random.PRNGKey(0), state, 0)
    assert policy.bind(sf.make("spoil_five", 5)) is policy  # its own table: itself


def _not_an_agent(path: Path) -> str:
    with pytest.raises(ValueError) as e:
        agent.load_policy(path)
    text = str(e.value)
    assert text.startswith(f"{path} {NOT_AN_AGENT}"), text
    assert "pickle" not in text and "\n" not in text
    return text


def test_a_file_that_is_not_an_agent_is_named_so(tmp_path: Path) -> None:
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not an agent at all")
    assert _not_an_agent(junk).endswith("not an .npz archive")
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    assert _not_an_agent(empty).endswith("not an .npz archive")
    one = tmp_path / "one.npy"
    np.save(one, np.zeros(3))
    assert _not_an_agent(one).endswith("not an .npz archive")
    bare = tmp_path / "bare.npz"
    np.savez(bare, x=np.zeros(3))
    assert _not_an_agent(bare).endswith("it has no __metadata__ entry")
    other = tmp_path / "other.npz"
    np.savez(other, __metadata__=np.array(json.dumps({"format": "someone/else"})))
    assert _not_an_agent(other).endswith("unknown agent format 'someone/else'")
    thin = tmp_path / "thin.npz"
    np.savez(thin, __metadata__=np.array(json.dumps({"format": agent.FORMAT})))
    assert _not_an_agent(thin).endswith("its metadata lacks num_players, hidden, rules")
    with pytest.raises(FileNotFoundError):
        agent.load_policy(tmp_path / "missing.npz")
