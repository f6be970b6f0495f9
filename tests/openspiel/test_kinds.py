"""OpenSpiel's observation kinds (``IIGObservationType``) on the project's games: each kind is
what it says, checked by redrawing hidden cards (``resample_from_infostate``)."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.observation import make_observation  # noqa: E402

import spoilfive_jax.openspiel  # noqa: E402,F401  (registers the games)
from tests.openspiel.test_games import random_decision  # noqa: E402

Private = pyspiel.PrivateInfoType
PUBLIC = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=False, private_info=Private.NONE
)
PRIVATE = pyspiel.IIGObservationType(
    public_info=False, perfect_recall=False, private_info=Private.SINGLE_PLAYER
)
RECALL = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=True, private_info=Private.SINGLE_PLAYER
)
VIEW = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=False, private_info=Private.SINGLE_PLAYER
)


def _seen(observation, state, player):
    observation.set_from(state, player)
    return observation.tensor.copy(), observation.string_from(state, player)


@pytest.mark.parametrize(
    ("name", "players"), [("python_spoil_five", 3), ("python_auction_forty_fives", 4)]
)
def test_each_kind_sees_what_it_says_when_hidden_cards_are_redrawn(name, players):
    game = pyspiel.load_game(name, {"players": players})
    state = random_decision(game, seed=3, decisions=9)
    kinds = {
        k: make_observation(game, t)
        for k, t in {"public": PUBLIC, "private": PRIVATE, "recall": RECALL, "view": VIEW}.items()
    }
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = {p: False for p in range(players)}
    for p in range(players):
        mine = {k: _seen(o, state, p) for k, o in kinds.items()}
        for _ in range(6):
            world = state.resample_from_infostate(p, sampler)
            for k, o in kinds.items():  # the seat's every kind, and the public one, stay
                got = _seen(o, world, p)
                assert np.array_equal(got[0], mine[k][0]) and got[1] == mine[k][1], (k, p)
            q = (p + 1) % players
            theirs = _seen(kinds["private"], state, q)
            changed[q] |= not np.array_equal(_seen(kinds["private"], world, q)[0], theirs[0])
            public = _seen(kinds["public"], world, q)
            assert np.array_equal(public[0], _seen(kinds["public"], state, q)[0])
    assert all(changed.values())  # another seat's private cards were redrawn
    text = _seen(kinds["recall"], state, 0)[1]
    assert text.startswith("seat 0 | dealer ") and "view" not in text
    assert state.information_state_string(0) == text
    assert np.array_equal(state.information_state_tensor(0), _seen(kinds["recall"], state, 0)[0])


def test_a_kind_the_games_do_not_have_is_refused():
    game = pyspiel.load_game("python_spoil_five", {"players": 3})
    nothing = pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False, private_info=Private.NONE
    )
    with pytest.raises(ValueError, match="no observation with public_info=False"):
        make_observation(game, nothing)
    every = pyspiel.IIGObservationType(
        public_info=True, perfect_recall=False, private_info=Private.ALL_PLAYERS
    )
    full = make_observation(game, every)
    state = random_decision(game, seed=1, decisions=2)
    full.set_from(state, 0)
    assert np.array_equal(full.tensor, np.asarray(game.env.observe_full(state.env_state)))
