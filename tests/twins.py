"""The check both games' solvers share for ``root_twins``: a decision's move that takes an
equivalent move's value gives what searching it would have."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import jax
import jax.numpy as jnp
import numpy as np
import pytest


def assert_twins_take_their_values(
    solved: Callable[[], dict[str, np.ndarray]],
    twins: np.ndarray,
    actions: jax.Array,
    game: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``solved()`` (a fresh trace of the game's ``solved_playout`` each call) gives the same
    fields as with ``game.root_twins`` replaced by every slot its own, and ``twins`` (the
    game's ``root_twins`` of the same positions int[B, L]) holds both kinds of twin: a padded
    repeat and a card of a run."""
    acts = np.asarray(actions)
    own = np.arange(acts.shape[1])
    merged = twins != own
    repeat = acts[np.arange(len(twins))[:, None], twins] == acts
    assert (merged & repeat).any() and (merged & ~repeat).any()
    with_twins = solved()
    monkeypatch.setattr(game, "root_twins", lambda *a, **k: jnp.broadcast_to(own, a[2].shape))
    every_slot = solved()
    for field, values in with_twins.items():
        np.testing.assert_array_equal(values, every_slot[field], err_msg=field)
