"""The generic tools (``spoilfive_jax.tools``) are written once for every game: they import
no game package and reach each game through ``core.env.Env`` and its capabilities; plus
regressions of library defects a new user hit (bad sizes, built-in names everywhere,
submodules, ``auto_reset``)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core import generic

TOOLS = Path(sf.__file__).parent / "tools"


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
            out += [f"{node.module}.{a.name}" for a in node.names]
    return out


@pytest.mark.parametrize("path", sorted(TOOLS.glob("*.py")), ids=lambda p: p.name)
def test_tools_import_no_game_and_name_no_game_class(path: Path) -> None:
    assert not [m for m in _imports(path) if m.startswith("spoilfive_jax.games")]
    text = path.read_text()
    for name in ("SpoilFive", "FortyFive", "FortyFiveRules"):
        assert f"isinstance(env, {name})" not in text


def test_documented_submodules_work_in_a_fresh_process() -> None:
    code = (
        "from spoilfive_jax.games import forty_five as ff\n"
        "from spoilfive_jax.games import spoil_five as s5\n"
        "assert callable(ff.games.play_games) and callable(ff.policies.greedy_policy)\n"
        "assert callable(ff.rollouts.outcome) and callable(ff.observe.observe)\n"
        "assert callable(s5.session.sessions) and callable(s5.fast.random_cards)\n"
        "assert callable(s5.rollouts.play_fast) and callable(s5.render.render_text)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("value", [0, -1, 2.5, "x", True])
def test_sizes_must_be_positive_integers(value: object) -> None:
    env = sf.spoil_five.SpoilFive(4)
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        sf.rollout(0, env, num_hands=8, batch_size=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_hands must be a positive integer"):
        sf.rollout(0, env, num_hands=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        sf.score_hands(
            0, [[0, 1, 2, 3, 4]], 5, 1, env=sf.make("spoil_five"), num_rollouts=4, batch_size=value
        )  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_rollouts must be"):
        sf.score_hands(0, [[0, 1, 2, 3, 4]], 5, 1, env=sf.make("spoil_five"), num_rollouts=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_hands must be a positive integer"):
        sf.evaluate(0, env, ["random", "heuristic"], num_hands=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_sessions must be a positive integer"):
        sf.play_sessions(0, env, num_sessions=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_games must be a positive integer"):
        sf.forty_five.play_games(0, sf.forty_five.FortyFive(4), num_games=value)  # type: ignore[arg-type]


def test_family_games_take_builtin_names_and_one_sessions_entry_point() -> None:
    env = sf.forty_five.FortyFive(4)
    # built-in names, a built-in passed as a callable, and the kernel's random player: one
    # lineup (one compile) that the family's games and the generic sessions entry play alike
    mixed = ["greedy", "heuristic", sf.forty_five.FortyFive(4).builtin_policy("greedy"), "random"]
    games = sf.forty_five.play_games(0, env, mixed, 8, max_hands=12, batch_size=8)
    assert (games.scores.max(1) >= 45).all() and games.summary()["games"] == 8
    same = sf.play_sessions(0, env, mixed, 8, max_hands=12, batch_size=8)
    np.testing.assert_array_equal(same.scores, games.scores)
    np.testing.assert_array_equal(same.points_by_hand, games.points_by_hand)
    with pytest.raises(ValueError, match="unknown policy 'smart'"):  # (the family's heuristic
        sf.forty_five.play_games(
            0, env, "smart", 8
        )  # plays above: its own, since the fast45 merge)
    chips = sf.play_sessions(0, sf.spoil_five.SpoilFive(3), "heuristic", 4, max_hands=5, stack=9)
    assert isinstance(chips, sf.spoil_five.SessionResult) and (chips.hands_played <= 5).all()


def test_auto_reset_follows_pgx_and_legal_actions_see_the_new_hand() -> None:
    for env in (sf.spoil_five.SpoilFive(3), sf.forty_five.FortyFive(4)):
        auto = jax.jit(sf.auto_reset(env.step, env.init))
        state = env.init(jax.random.PRNGKey(0))
        ended = 0
        for i in range(3 * env.max_decisions):
            action = jnp.int32(env.legal_actions(state)[0])
            state = auto(state, action, jax.random.PRNGKey(i))
            if bool(state.terminated):  # the finished hand's flag and rewards, the new hand
                ended += 1
                assert int(state._step_count) == 0 and int(state.current_player) >= 0
                legal = env.legal_actions(state)
                assert legal == np.flatnonzero(np.asarray(state.legal_action_mask)).tolist()
                assert 0 < len(legal) < env.num_actions
                assert float(jnp.abs(state.rewards).sum()) > 0
        assert ended >= 2
    over = (
        sf.spoil_five.SpoilFive(3)
        .init(jax.random.PRNGKey(0))
        .replace(terminated=jnp.bool_(True), current_player=jnp.int32(-1))
    )
    assert sf.spoil_five.SpoilFive(3).legal_actions(over) == []


def test_rollout_result_reads_the_games_fields() -> None:
    out = sf.rollout(0, sf.spoil_five.SpoilFive(3), "random", 16, batch_size=16)
    assert out.game == "spoil_five" and out.num_hands == 16 and out.rewards.shape == (16, 3)
    with pytest.raises(AttributeError, match="no field 'team_points'"):
        _ = out.team_points
    np.testing.assert_array_equal(out.hands_won(), out.winner[:, None] == np.arange(3))
    assert (
        sf.make("spoil_five").capability(sf.capabilities.Rollouts).score_unit(None) == "chips"
        and sf.make("forty_five").capability(sf.capabilities.Rollouts).score_unit(None) == "points"
    )
    with pytest.raises(ValueError, match="carried is Spoil Five's pot"):
        sf.rollout(0, sf.forty_five.FortyFive(4), "random", 8, carried=1)
    with pytest.raises(ValueError, match="takes no rollout option"):
        sf.rollout(0, sf.spoil_five.SpoilFive(3), "random", 8, pot=1)


# (the loops are the tools', the same for every game: a family game under -m slow)
@pytest.mark.parametrize("game", ["spoil_five", pytest.param("forty_five", marks=pytest.mark.slow)])
def test_play_batch_matches_play_out_hand_by_hand(game: str) -> None:
    """The batched loop (which skips a policy no hand needs) plays exactly the hands of the
    per-hand loop, for a lineup of two callables that are not built-ins."""
    from spoilfive_jax.tools.policies import lineup, play_batch, play_out

    env = sf.make(game, 4)
    # a built-in passed as a callable (random: its program is the smallest) and a plain one
    builtin = env.builtin_policy("random")

    def cheap(key, state, player):  # the lowest legal action: deterministic, not a built-in
        return jnp.argmax(state.legal_action_mask).astype(jnp.int32)

    who, seats = lineup(env, [builtin, cheap, cheap, cheap])
    keys = jax.random.split(jax.random.PRNGKey(3), 16)
    states = jax.vmap(env.init)(keys)
    final, total = jax.jit(lambda k, s: play_batch(env, who.policies, seats, k, s))(keys, states)
    one = jax.vmap(lambda k, s: play_out(env, who.policies, seats, k, s))
    want_final, want_total = jax.jit(one)(keys, states)
    assert bool(final.terminated.all())
    np.testing.assert_array_equal(np.asarray(total), np.asarray(want_total))
    for got, want in zip(jax.tree.leaves(final), jax.tree.leaves(want_final), strict=True):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_play_public_trusts_builtins_and_still_flags_an_illegal_action() -> None:
    """A lineup of built-ins steps without the illegal-action branch (``transition_legal``):
    the same records as the checked step, and a built-in that picks an illegal action all the
    same still has its hands flagged ``illegal`` (Oh Hell: a plugin, on the public step)."""
    from spoilfive_jax.tools import policies

    env = sf.make("oh_hell", num_players=4, num_tricks=3)
    rollouts = env.capability(sf.capabilities.Rollouts)
    keys = rollouts.rollout_keys(env, jax.random.PRNGKey(5))
    ids = jnp.arange(32, dtype=jnp.uint32)
    deal = rollouts.rollout_deal(env, keys, ids, generic.deal_options(env))
    seats = jnp.zeros(4, jnp.int32)
    random = env.builtin_policy("random")

    def run(lineup: policies.Lineup) -> dict[str, np.ndarray]:
        out = jax.jit(lambda: policies.play_public(env, lineup, keys, ids, deal, seats))()
        return {k: np.asarray(v) for k, v in out.items()}

    trusted = run(policies.Lineup((random,), ("random",)))
    checked = run(policies.Lineup((random,), (None,)))
    assert trusted.keys() == checked.keys() and not checked["illegal"].any()
    for name, want in checked.items():
        np.testing.assert_array_equal(trusted[name], want, err_msg=name)

    def stray(key: jax.Array, state: Any, player: jax.Array) -> jax.Array:  # bids 99 once
        return jnp.where(state._step_count == 2, 99, random(key, state, player))

    assert run(policies.Lineup((stray,), ("random",)))["illegal"].all()
    assert run(policies.Lineup((stray,), (None,)))["illegal"].all()
