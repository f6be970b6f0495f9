"""The OpenSpiel games and their states pickle and serialize (multiprocessing and Ray need
pickling; saved positions need serializing): ``pickle`` of games and states,
``state.serialize()`` / ``game.deserialize_state`` and ``pyspiel.serialize_game_and_state`` give
back the same game and a state that answers every query alike and plays on alike; a pickle loads
in a fresh process; the host-side packing of the env state is exact; a clone shares its node and
still plays on independently."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import spoilfive_jax.openspiel as sfo  # noqa: E402
from spoilfive_jax.openspiel import host  # noqa: E402

GAMES = ("python_spoil_five", "python_forty_five", "python_twenty_five")
GAMES += ("python_auction_forty_fives", "python_oh_hell")
ROOT = Path(__file__).resolve().parents[2]


def some_states(game, seed: int) -> list:
    """Clones of one random hand at the start, inside the deal, at its first decision, in
    the play and at the end."""
    rng = np.random.default_rng(seed)
    state, kept = game.new_initial_state(), []
    marks = {0, 3, game.table.deal_length, game.table.deal_length + 4}
    while not state.is_terminal():
        if len(state.history()) in marks:
            kept.append(state.clone())
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return [*kept, state]


def assert_same(game, a, b) -> None:
    """``a`` and ``b`` answer every query alike (and the next action alike)."""
    assert str(a) == str(b) and a.history() == b.history() and a.returns() == b.returns()
    assert a.current_player() == b.current_player() and a.is_terminal() == b.is_terminal()
    assert a.legal_actions() == b.legal_actions()
    if a.is_chance_node():
        assert a.chance_outcomes() == b.chance_outcomes()
        return
    for p in range(game.num_players()):
        assert a.observation_tensor(p) == b.observation_tensor(p)
        assert a.observation_string(p) == b.observation_string(p)
        assert a.information_state_tensor(p) == b.information_state_tensor(p)
        assert a.information_state_string(p) == b.information_state_string(p)
    if not a.is_terminal():
        action = a.legal_actions()[-1]
        assert str(a.child(action)) == str(b.child(action))
        assert a.child(action).returns() == b.child(action).returns()


@pytest.mark.parametrize("name", GAMES)
def test_games_and_states_round_trip_through_pickle_and_serialization(name):
    game = pyspiel.load_game(name)
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.get_parameters() == game.get_parameters()
    assert pickle.loads(pickle.dumps(game.get_type())) == game.get_type()
    assert again.env == game.env
    for state in some_states(game, seed=len(name)):
        assert_same(game, state, pickle.loads(pickle.dumps(state)))
        assert_same(game, state, game.deserialize_state(state.serialize()))
        text = pyspiel.serialize_game_and_state(game, state)
        game2, state2 = pyspiel.deserialize_game_and_state(text)
        assert str(game2) == str(game)
        assert_same(game, state, state2)


def test_a_game_off_its_defaults_keeps_its_parameters():
    params = {"players": 3, "rob": "off", "deal_packets": "3_2", "ante": 2, "dealer": 2}
    game = pyspiel.load_game("python_spoil_five", params)
    again = pickle.loads(pickle.dumps(game))
    assert again.get_parameters() == game.get_parameters() and again.env == game.env
    assert again.table.dealer == 2 and again.env.rules.rob == "off"
    (state,) = some_states(game, seed=1)[-1:]
    game2, state2 = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(game, state)
    )
    assert game2.env == game.env and str(state2) == str(state)


def test_a_pickle_loads_in_a_process_that_never_imported_the_package(tmp_path):
    """What multiprocessing (spawn) and Ray do: the pickle names what to import and load."""
    game = pyspiel.load_game("python_oh_hell", {"players": 3})
    state = some_states(game, seed=4)[3]
    path = tmp_path / "state.pkl"
    path.write_bytes(pickle.dumps((game, state)))
    child = (
        "import pickle, sys\n"
        f"game, state = pickle.loads(open({str(path)!r}, 'rb').read())\n"
        "print(str(game)); print(state.history()); print(state.legal_actions())\n"
        "print(state.observation_string(0)); print(state)"
    )
    out = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[:4] == [
        str(game),
        str(state.history()),
        str(state.legal_actions()),
        state.observation_string(0),
    ]
    assert "\n".join(lines[4:]) == str(state)


def test_a_serialized_state_is_small():
    """The packed env state and the returns, not the observations (made again on load)."""
    game = pyspiel.load_game("python_spoil_five")
    state = some_states(game, seed=2)[-2]
    assert len(state.serialize()) < 3000 and len(pickle.dumps(state)) < 4000


def test_the_packing_is_exact_for_every_kind_of_array():
    tree = {
        "b": np.array([True, False, True]),
        "i8": np.array([[-3, 4], [127, -128]], np.int8),
        "i16": np.array([-30000, 7], np.int16),
        "u8": np.array([0, 255], np.uint8),
        "i32": np.array(-(2**31), np.int32),
        "u32": np.array([0, 2**32 - 1, 2**31], np.uint32),
        "f32": np.array([1.5, -np.inf, 3e-39], np.float32),
        "f16": np.array([0.5, -2.0], np.float16),
        "bf16": np.array([0.5, -3.0], jnp.bfloat16),
        "empty": np.zeros((0, 3), np.int32),
    }
    layout = host.Layout.of(tree)
    assert layout.size == 3 + 4 + 2 + 2 + 1 + 3 + 3 + 2 + 2 + 0
    flat = np.asarray(jax.jit(layout.pack)(tree))
    assert flat.dtype == np.int32 and flat.shape == (layout.size,)
    for back in (layout.unpack(flat), jax.jit(layout.unpack)(flat)):
        for key, value in tree.items():
            got = np.asarray(back[key])
            assert got.dtype == value.dtype and got.shape == value.shape, key
            assert got.tobytes() == value.tobytes(), key


def test_a_64_bit_field_is_refused_by_name():
    with pytest.raises(ValueError, match=r"\['scores'\] is float64"):
        host.Layout.of({"ok": np.zeros(2, np.int32), "scores": np.zeros(2, np.float64)})
    with pytest.raises(ValueError, match=r"\['t'\] is int64"):
        host.Layout.of({"t": jax.ShapeDtypeStruct((1,), np.int64)})
    with pytest.raises(ValueError, match=r"\['c'\] is complex64"):
        host.Layout.of({"c": np.zeros(1, np.complex64)})


def test_a_clone_shares_its_node_and_plays_on_by_itself():
    game = pyspiel.load_game("python_spoil_five", {"players": 3})
    state = some_states(game, seed=6)[2]  # the first decision
    clone = state.clone()
    assert clone._node is state._node and clone._table is state._table
    made = []  # a value an observer caches at a node is made once for the node and its clones
    seat = state.current_player()
    assert state.cached("seat", lambda s: made.append(1) or int(s.current_player)) == seat
    assert clone.cached("seat", lambda s: made.append(1) or -9) == seat and made == [1]
    assert game.new_initial_state().cached("seat", lambda s: 1) is None  # (the deal)
    first, second = state.legal_actions()[:2]
    state.apply_action(first)
    clone.apply_action(first)  # the same action: the same child, remembered
    assert clone._node is state._node
    other = state.clone()
    other.apply_action(state.legal_actions()[0])
    state.apply_action(state.legal_actions()[-1])
    assert other.history() != state.history() and str(other) != str(state)
    fresh = game.new_initial_state()
    for a in state.history():
        fresh.apply_action(a)
    assert str(fresh) == str(state) and fresh.returns() == state.returns()
    back = game.new_initial_state()
    for a in [*state.history()[:-2], second]:  # a different decision at the same node
        back.apply_action(a)
    assert back.history()[-1] == second and str(back) != str(other)


def test_a_query_for_a_seat_off_the_table_is_refused():
    game = pyspiel.load_game("python_spoil_five", {"players": 3})
    state = some_states(game, seed=6)[2]
    with pytest.raises(ValueError, match=r"player must be a seat 0\.\.2, got 3"):
        state.observation_array(3)
    with pytest.raises(ValueError, match=r"player must be a seat 0\.\.2, got -1"):
        sfo.Observer(game.env).set_from(state, -1)
    with pytest.raises((ValueError, pyspiel.SpielError), match="action 99 is not an action id"):
        state.action_to_string(0, 99)
