"""Every registered game as a ``pgx.Env`` (``spoilfive_jax.pgx``): pgx's own ``api_test``
checks, imported from the installed pgx and run on each game, ``pgx.experimental.auto_reset``,
the conventions the adapter settles (the seat at the end, illegal actions, rewards), its
pictures, its bad input, and the AlphaZero example (skipped when pgx is not installed).

pgx's checks run as pgx wrote them, with two things swapped in ``pgx._src.api_test`` for the
run (``pgx_checks``), each for a reason outside these games:

- ``act_randomly``: pgx's samples along axis 1 of the mask, so it needs a batch axis, and
  ``api_test_single`` hands it one state's mask (on current JAX pgx's own games fail there
  too: ``test_pgx_act_randomly_needs_a_batch``).  The swap gives one mask a batch axis of one
  and calls pgx's function.
- ``get_args``, read only by ``_validate_state``'s ``state.env_id in get_args(EnvId)``: pgx's
  ``EnvId`` is a fixed ``Literal`` of pgx's own games, which no other environment can be in.
  The swap adds the registry's ids to what that check accepts
  (``test_pgx_env_id_list_is_the_one_check_swapped`` shows it failing without).

pgx's other fixed list, the public state fields, needs no swap: the game's own state and table
are private fields of ``State`` (``_hand``, ``_table``), which that check skips.
"""

from __future__ import annotations

import functools
import typing
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pgx = pytest.importorskip("pgx")
pytest.importorskip("mctx")

from conftest import load_script  # noqa: E402
from pgx._src import api_test as pgx_api  # noqa: E402
from pgx.experimental import act_randomly, auto_reset  # noqa: E402

import spoilfive_jax as sf  # noqa: E402
import spoilfive_jax.pgx as sfpgx  # noqa: E402
from spoilfive_jax.core import capabilities as caps  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = sf.available_games()


def _act_randomly_one_or_batch(key: jax.Array, mask: jax.Array) -> jax.Array:
    """pgx's ``act_randomly``, given a batch axis of one for one state's mask."""
    return act_randomly(key, mask) if mask.ndim == 2 else act_randomly(key, mask[None])[0]


def _env_ids_and_ours(tp: object) -> tuple[object, ...]:
    """``typing.get_args``, with the registry's ids added to pgx's ``EnvId``."""
    args = typing.get_args(tp)
    return args + GAMES if tp is pgx.EnvId else args


@pytest.fixture
def pgx_checks(monkeypatch: pytest.MonkeyPatch):
    """pgx's ``api_test`` module with the two swaps of the module docstring."""
    monkeypatch.setattr(pgx_api, "act_randomly", jax.jit(_act_randomly_one_or_batch))
    monkeypatch.setattr(pgx_api, "get_args", _env_ids_and_ours)
    return pgx_api


@functools.cache
def compiled(env: sfpgx.CardGameEnv):
    """``jit(env.init)``, ``jit(env.step)``, once per table for the module."""
    return jax.jit(env.init), jax.jit(env.step)


@functools.cache
def batched_init(env: sfpgx.CardGameEnv):
    return jax.jit(jax.vmap(env.init))


def play(env: sfpgx.CardGameEnv, seed: int) -> tuple[list[sfpgx.State], list[int]]:
    """One random hand: every state from the deal to the end, and the actions taken."""
    init, step = compiled(env)
    key = jax.random.PRNGKey(seed)
    states, actions = [init(key)], []
    while not bool(states[-1].terminated):
        key, k = jax.random.split(key)
        actions.append(int(_act_randomly_one_or_batch(k, states[-1].legal_action_mask)))
        states.append(step(states[-1], actions[-1]))
    return states, actions


# ---------------------------------------------------------------------------- pgx's checks


@pytest.mark.parametrize(("game", "players"), [("spoil_five", 3), ("oh_hell", 3)])
def test_pgx_api_test_passes(pgx_checks, game: str, players: int) -> None:
    """The default run's sample: pgx's whole ``api_test`` (one state at a time and batched,
    with and without keys) on Spoil Five and on the Oh Hell plugin; every game and more
    hands in the slow suite."""
    env = sfpgx.make(game, num_players=players)
    pgx_checks.api_test(env, num=2)
    pgx_checks.api_test_single(env, num=1, use_key=False)


@pytest.mark.slow  # (four compiled programs a game: about ten seconds each)
@pytest.mark.parametrize("game", GAMES)
def test_pgx_api_test_passes_on_every_game(pgx_checks, game: str) -> None:
    env = sfpgx.make(game)
    pgx_checks.api_test(env, num=20)
    pgx_checks.api_test_single(env, num=5, use_key=False)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "table"),
    [
        ("spoil_five", {"num_players": 2, "rob": "forced", "jink": False}),
        ("spoil_five", {"num_players": 10, "renege": "led"}),
        ("forty_five", {"num_players": 6, "joker": True}),
        ("auction_forty_fives", {"num_players": 2}),
        ("oh_hell", {"num_players": 7}),
    ],
)
def test_pgx_api_test_passes_on_other_tables(pgx_checks, game: str, table: dict) -> None:
    pgx_checks.api_test(sfpgx.make(game, **table), num=10)


def test_pgx_env_id_list_is_the_one_check_swapped(pgx_checks, monkeypatch) -> None:
    """Without the swap, ``_validate_state`` fails on the EnvId list and nothing else."""
    state = compiled(sfpgx.make("spoil_five", num_players=2))[0](jax.random.PRNGKey(0))
    pgx_checks._validate_state(state)
    monkeypatch.setattr(pgx_api, "get_args", typing.get_args)
    with pytest.raises(AssertionError) as failed:
        pgx_checks._validate_state(state)
    assert failed.traceback[-1].statement.lines[-1].strip() == (
        "assert state.env_id in get_args(EnvId)"
    )


def test_pgx_act_randomly_needs_a_batch() -> None:
    """pgx's own Kuhn poker fails ``api_test_single`` as pgx ships it, at ``act_randomly``."""
    env = pgx.make("kuhn_poker")
    with pytest.raises(IndexError):
        pgx_api.api_test_single(env, num=1)


# ---------------------------------------------------------------------------- the environment


@pytest.mark.parametrize("game", GAMES)
def test_make_gives_a_pgx_env_for_every_game(game: str) -> None:
    env = sfpgx.make(game)
    table = sf.make(game)
    assert isinstance(env, pgx.Env) and env.table == table
    assert (env.id, env.version, env.num_players) == (game, sfpgx.VERSION, table.num_players)
    assert (env.num_actions, env.observation_shape) == (
        table.num_actions,
        table.observation_shape,
    )
    assert env == sfpgx.make(game) and hash(env) == hash(sfpgx.make(game))
    state = jax.eval_shape(env.init, jax.random.PRNGKey(0))  # (traced: no compile)
    assert isinstance(state, pgx.State) and state.env_id == game
    assert state.observation.shape == table.observation_shape
    assert state.legal_action_mask.shape == (table.num_actions,)
    assert state.rewards.shape == (table.num_players,)


def test_make_takes_the_registry_table() -> None:
    env = sfpgx.make("spoil_five", num_players=4, renege="led")
    assert env.table == sf.make("spoil_five", 4, renege="led")
    rules = sf.forty_five.FortyFiveRules.twenty_five(joker=True)
    assert sfpgx.make("twenty_five", rules=rules).table.rules == rules


@pytest.mark.parametrize(
    ("game", "table", "named"),
    [
        ("no_such_game", {}, "unknown game 'no_such_game'"),
        ("spoil_five", {"num_players": 1}, "num_players"),
        ("spoil_five", {"num_players": 11}, "num_players"),
        ("oh_hell", {"num_players": 2}, "oh_hell takes 3..7 players"),
        ("spoil_five", {"renege": "never"}, "renege"),
        ("spoil_five", {"colour": "red"}, "colour"),
        ("spoil_five", {"rules": sf.spoil_five.Rules(), "jink": False}, "not both"),
    ],
)
def test_bad_tables_are_value_errors(game: str, table: dict, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        sfpgx.make(game, **table)


def test_only_a_game_table_is_wrapped() -> None:
    with pytest.raises(ValueError, match=r"wraps a spoilfive_jax\.Env"):
        sfpgx.CardGameEnv(pgx.make("kuhn_poker"))


def test_bad_keys_states_and_actions_are_value_errors() -> None:
    env = sfpgx.make("spoil_five", num_players=2)
    for key in ("seven", 1.5, jax.random.split(jax.random.PRNGKey(0), 2)):
        with pytest.raises(ValueError, match="key must be one PRNG key"):
            env.init(key)
    state = batched_init(env)(jax.random.split(jax.random.PRNGKey(0), 8))
    with pytest.raises(ValueError, match=r"not a batch of shape \(8,\); use jax.vmap"):
        env.step(state, 0)
    one = jax.tree.map(lambda x: x[0], state)
    for action, named in [("5H", "got '5H'"), (1.0, "a float is not rounded"), (True, "bool")]:
        with pytest.raises(ValueError, match=named):
            env.step(one, action)
    with pytest.raises(ValueError, match="one hand takes one action"):
        env.step(one, jnp.zeros(2, jnp.int32))
    other = sfpgx.make("spoil_five", num_players=3)
    with pytest.raises(ValueError, match=r"step takes a state of SpoilFive\(num_players=3"):
        other.step(one, 0)
    with pytest.raises(ValueError, match=r"got a spoilfive_jax\.games\.spoil_five\..*State"):
        env.step(one.hand, 0)  # the game's own state


def test_a_hand_is_the_game_s_hand() -> None:
    """Step by step the pgx state is the game's: rewards, legal actions, the view of the seat
    to act, and, once over, the last actor kept as ``current_player``."""
    env = sfpgx.make("spoil_five", num_players=3)
    states, actions = play(env, 3)
    game_step = jax.jit(env.table.step)
    for before, action, after in zip(states, actions, states[1:], strict=False):
        jax.tree.map(np.testing.assert_array_equal, after.hand, game_step(before.hand, action))
        seat = int(after.hand.current_player)
        assert int(after.current_player) == (seat if seat >= 0 else int(before.current_player))
        np.testing.assert_array_equal(after.rewards, after.hand.rewards)
        np.testing.assert_array_equal(after.legal_action_mask, after.hand.legal_action_mask)
        view = env.table.observe(after.hand, int(after.current_player))
        np.testing.assert_array_equal(after.observation, view)
        assert int(after._step_count) == int(before._step_count) + 1
    end = states[-1]
    assert int(end.hand.current_player) == -1 and 0 <= int(end.current_player) < 3
    assert end.legal_action_mask.all() and float(jnp.abs(end.rewards).sum()) > 0


def test_the_dealer_is_drawn_from_the_key() -> None:
    env = sfpgx.make("spoil_five", num_players=2)
    dealers = batched_init(env)(jax.random.split(jax.random.PRNGKey(0), 8)).hand.dealer
    assert set(np.asarray(dealers).tolist()) == {0, 1}


def test_an_illegal_action_ends_the_hand_with_the_rules_penalty() -> None:
    """pgx's own penalty is not applied: the game's is (the offender pays
    ``illegal_penalty`` chips; here 3), and the offender stays the seat to act."""
    env = sfpgx.make("spoil_five", num_players=3, illegal_penalty=3)
    init, step = compiled(env)
    state = init(jax.random.PRNGKey(5))
    actor = int(state.current_player)
    for action in (int(np.flatnonzero(~state.legal_action_mask)[0]), 999, -1):
        after = step(state, action)
        expected = env.table.step(state.hand, action)
        assert bool(after.terminated) and bool(after.hand.illegal)
        np.testing.assert_array_equal(after.rewards, expected.rewards)
        assert float(after.rewards[actor]) == -4.0  # the ante and the penalty
        assert int(after.current_player) == actor
        again = step(after, 0)  # a finished hand: unchanged, paying nothing
        assert not np.asarray(again.rewards).any() and bool(again.terminated)
        assert int(again._step_count) == int(after._step_count)


def test_partners_get_equal_rewards() -> None:
    env = sfpgx.make("forty_five", num_players=4)
    team = env.table.capability(caps.Teams).team_of(env.table)
    rewards = np.asarray(play(env, 1)[0][-1].rewards)
    for seat in range(4):
        assert rewards[seat] == rewards[np.flatnonzero(team == team[seat])[0]]
    low, high = env.table.capability(caps.DeckDeals).reward_bounds(env.table)
    assert low <= rewards.min() and rewards.max() <= high  # the game's points, not -1..1


def test_auto_reset_deals_a_new_hand_where_one_ends() -> None:
    """``pgx.experimental.auto_reset``: the step that ends a hand returns a new deal (no
    decision taken, the new hand's legal actions) flagged ``terminated`` with the finished
    hand's rewards, which are the plain step's; the next step plays the new hand."""
    env = sfpgx.make("spoil_five", num_players=2)
    reset_step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    plain_step = jax.jit(jax.vmap(env.step))
    batch = 8
    state = batched_init(env)(jax.random.split(jax.random.PRNGKey(0), batch))
    key, ended = jax.random.PRNGKey(1), 0
    for _ in range(2 * env.table.max_decisions):
        key, k_act, k_step = jax.random.split(key, 3)
        action = act_randomly(k_act, state.legal_action_mask)
        live = state.replace(
            terminated=jnp.zeros_like(state.terminated), rewards=jnp.zeros_like(state.rewards)
        )
        expected = plain_step(live, action)
        after = reset_step(state, action, jax.random.split(k_step, batch))
        done = np.asarray(after.terminated)
        np.testing.assert_array_equal(done, np.asarray(expected.terminated))
        np.testing.assert_array_equal(np.asarray(after.rewards), np.asarray(expected.rewards))
        np.testing.assert_array_equal(
            np.asarray(after.observation)[~done], np.asarray(expected.observation)[~done]
        )
        assert (np.asarray(after._step_count)[done] == 0).all()
        assert (np.asarray(after.hand.terminated)[done] == 0).all()
        assert (np.asarray(after.legal_action_mask).sum(-1)[done] < env.num_actions).all()
        ended += int(done.sum())
        state = after
    assert ended >= batch  # every table finished a hand at least once


# ---------------------------------------------------------------------------- pictures


def test_pictures_of_one_hand_and_of_a_batch(tmp_path: Path) -> None:
    spoil = sfpgx.make("spoil_five", num_players=2)
    state = compiled(spoil)[0](jax.random.PRNGKey(0))
    assert 'class="card' in state.to_svg()  # the game's own picture (Rendering)
    oh_hell = sfpgx.make("oh_hell", num_players=3)
    text = compiled(oh_hell)[0](jax.random.PRNGKey(0)).to_svg(color_theme="dark", scale=2)
    assert text.startswith("<svg") and "seat 0:" in text and 'fill="#1e1e1e"' in text
    batch = batched_init(spoil)(jax.random.split(jax.random.PRNGKey(0), 8))
    grid = batch.to_svg()
    assert grid.count("<svg") == 9 and grid.count('stroke="#555555"') == 8
    batch.save_svg(tmp_path / "hands.svg")
    assert (tmp_path / "hands.svg").read_text(encoding="utf-8") == grid
    for bad, named in [({"color_theme": "blue"}, "color_theme"), ({"scale": 0}, "scale")]:
        with pytest.raises(ValueError, match=named):
            state.to_svg(**bad)
    with pytest.raises(ValueError, match=r"\.svg"):
        state.save_svg(tmp_path / "hands.png")


# ---------------------------------------------------------------------------- the example


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_the_alphazero_example_runs_a_few_iterations(capsys) -> None:
    example = load_script(ROOT / "examples" / "pgx_alphazero.py")
    argv = ["--iterations", "2", "--batch", "4", "--steps", "6", "--simulations", "4"]
    assert example.main([*argv, "--hidden", "16", "--updates", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("spoil_five · 2 players · pgx env v0")
    assert [line.split(":")[0] for line in lines[1:]] == ["iteration 1", "iteration 2"]
    assert all("policy loss" in line and "value loss" in line for line in lines[1:])
    with pytest.raises(ValueError, match="has 3 sides; the search needs two"):
        example.main(["--players", "3"])
    with pytest.raises(ValueError, match="--simulations must be at least 1"):
        example.main(["--simulations", "0"])
