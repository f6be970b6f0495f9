"""The package's tools, RL wrapper and command line run Oh Hell through its capabilities
(tiny sizes: they check the wiring, not the play)."""

from __future__ import annotations

import json
import subprocess
import sys

import jax
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.tools.conformance import summary_differences

ENV = sf.make("oh_hell", num_players=4, num_tricks=3)


def test_rollout_and_its_summary() -> None:
    result = sf.rollout(0, ENV, "heuristic", 64)
    assert result.rewards.shape == (64, 4) and result.bids.shape == (64, 4)
    assert (result.tricks_won.sum(1) == 3).all()
    s = result.summary()
    assert s["hands"] == 64 and s["bid_made_rate"].shape == (4,)
    again = sf.rollout(0, ENV, "heuristic", 64, batch_size=16)  # the same hands in batches
    assert np.array_equal(again.rewards, result.rewards)
    streamed = sf.rollout(0, ENV, "heuristic", 64, batch_size=16, per_hand=False)
    assert summary_differences(s, streamed.summary()) == []  # the summary kept, not the hands


def test_evaluate_heuristic_against_random() -> None:
    result = sf.evaluate(0, ENV, ["heuristic", "random"], 32)
    assert result.names == ("heuristic", "random") and result.unit == "points"
    assert result.rotations == 4 and np.isfinite(result.mean_reward).all()


def test_analyze_and_pimc() -> None:
    state = ENV.init(jax.random.PRNGKey(1), 0)
    res = sf.analyze(0, ENV, state, num_samples=16)
    legal = ENV.legal_actions(state)
    values = np.asarray(res.values["expected_points"])
    assert np.isfinite(values[legal]).all() and np.isnan(np.delete(values, legal)).all()
    bot = sf.pimc(ENV, num_samples=4)
    action = int(jax.jit(bot)(jax.random.PRNGKey(2), state, state.current_player))
    assert action in legal


def test_pettingzoo_plays_a_hand() -> None:
    pz = pytest.importorskip("spoilfive_jax.rl.pettingzoo")
    e = pz.env(game="oh_hell", num_players=3)
    e.reset(seed=0)
    total = np.zeros(3)
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        total[int(agent.split("_")[1])] += reward
        if terminated or truncated:
            e.step(None)
            continue
        assert obs["observation"].shape == ENV_3.observation_shape
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert total.max() > 0


ENV_3 = sf.make("oh_hell", num_players=3)


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """The command in a fresh process: the plugin found through its entry point."""
    return subprocess.run(
        [sys.executable, "-m", "spoilfive_jax", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The command run in this process (its programs shared with the other tests): (exit
    status, stdout, stderr)."""
    from spoilfive_jax import cli

    capsys.readouterr()
    rc = cli.main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_rollout_and_tournament(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _main(capsys, "rollout", "--game", "oh_hell", "--players", "4", "--hands",
                         "16", "--json", "--quiet")  # fmt: skip
    assert rc == 0, err
    data = json.loads(out)
    assert data["game"] == "oh_hell" and data["hands"] == 16
    rc, out, err = _main(capsys, "tournament", "--game", "oh_hell", "-n", "3", "--num-tricks",
                         "2", "--off-bid-penalty", "--hands", "8", "--quiet", "heuristic",
                         "random")  # fmt: skip
    assert rc == 0, err
    assert "Oh Hell" in out and "off_bid_penalty=on" in out


def test_cli_play_and_rules() -> None:
    # in a fresh process: the command finds the plugin by its entry point
    out = _cli("play", "--game", "oh_hell", "-n", "3", "--num-tricks", "2", stdin="0\n1\n1\n1\n")
    assert out.returncode == 0, out.stderr
    assert "Hand over" in out.stdout or "You left the table" in out.stdout
    out = _cli("rules", "--game", "oh_hell")
    assert out.returncode == 0, out.stderr
    assert "may not make the" in out.stdout


def test_cli_refuses_a_bad_table(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _main(capsys, "rollout", "--game", "oh_hell", "-n", "7", "--num-tricks", "8",
                       "--hands", "4")  # fmt: skip
    assert rc == 2 and "too many for 7 players" in err


POSITION = (
    "players=4; rules=num_tricks=3; dealer=0; trump=7D; player=3; hand=QS 4H 2C; "
    "history=1:bid:1 2:bid:0 3:bid:1 0:bid:0 1:AC 2:KC"
)


def test_positions_from_text() -> None:
    env = sf.position_env(ENV, POSITION)
    state = sf.position_from_history(env, POSITION)
    assert int(state.current_player) == 3 and state.bids.tolist() == [0, 1, 0, 1]
    assert env.legal_actions(state) == sf_cards("2C")  # holding clubs, follow
    for text, words in [
        (POSITION.replace("hand=QS 4H 2C", "hand=QS 4H"), "the hand must be"),
        (POSITION.replace("0:bid:0", "0:bid:1"), "history move 4: illegal action"),
        (POSITION + " 3:QS", "cards seen twice"),
        (POSITION.replace("player=3; hand=QS 4H 2C", "player=2; hand=QS 4H"), "seat 3 is to act"),
    ]:
        with pytest.raises(ValueError, match=words):
            sf.position_from_history(env, text)


def sf_cards(text: str) -> list[int]:
    from spoilfive_oh_hell.rules import parse_cards

    return parse_cards(text)


def test_cli_analyze(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _main(capsys, "analyze", "--game", "oh_hell", "--samples", "8", "--json",
                         "--quiet", POSITION)  # fmt: skip
    assert rc == 0, err
    moves = json.loads(out)["moves"]
    assert [m["text"] for m in moves] == ["2C"]  # machine text, as every JSON
