"""OpenSpiel's observation kinds (``pyspiel.IIGObservationType``) for the project's games.

``kind_of(env, iig_obs_type)`` picks what an observer shows a seat, from the env's kinds
(``core.knowledge``), by ``public_info`` / ``private_info`` / ``perfect_recall``:

- public, the seat's private, perfect recall (OpenSpiel's information state):
  ``information_state`` and its string;
- public, the seat's private, no perfect recall (OpenSpiel's default observation): ``observe``
  (the seat's view now), its string the seat and a digest of the view;
- public only (perfect recall or not: the public record is both): ``observe_public`` and its
  string;
- the seat's private only: ``observe_private`` and its string;
- public and every seat's private, no perfect recall: ``observe_full``, a digest;
- every seat's private only: each seat's ``observe_private`` in turn.

Any other request (nothing at all, or every seat's private information with perfect recall
and public information) is a ``ValueError`` naming it.  Before the deal is complete every
tensor is zeros and the string names the seat and the cards dealt so far.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
import pyspiel

from spoilfive_jax.core import knowledge
from spoilfive_jax.core.env import Env, R, S

if TYPE_CHECKING:
    from spoilfive_jax.openspiel.game import OpenSpielState

Private = pyspiel.PrivateInfoType
TensorFn = Callable[["OpenSpielState", int], np.ndarray | None]
TextFn = Callable[["OpenSpielState", int], str | None]


def _digest(what: str, tensor: np.ndarray) -> str:
    return f"{what} {hashlib.sha1(tensor.tobytes()).hexdigest()[:20]}"


class Kind:
    """One observation kind of one table: its name, size, and the tensor and string of a
    state (None during the deal), read from the state's node (made once a node)."""

    def __init__(self, name: str, size: int, tensor: TensorFn, text: TextFn) -> None:
        self.name, self.size, self.tensor, self.text = name, size, tensor, text


@functools.cache
def _programs(env: Env[S, R]) -> dict[str, Callable[..., jax.Array]]:
    """The jitted views of one table that the nodes do not hold already."""
    return {
        "public": jax.jit(env.observe_public),
        "private": jax.jit(jax.vmap(env.observe_private, in_axes=(None, 0))),
        "full": jax.jit(env.observe_full),
    }


def _memo(name: str, env: Env[S, R]) -> Callable[[OpenSpielState], np.ndarray | None]:
    """A view of the state's hand, made once a node (``OpenSpielState.cached``)."""
    fn = _programs(env)[name]
    seats = jnp.arange(env.num_players, dtype=jnp.int32)

    def make(hand: Any) -> np.ndarray:
        out = fn(hand, seats) if name == "private" else fn(hand)
        return np.asarray(out, np.float32)

    return lambda state: state.cached(("observer", name), make)


def _size(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape))


def kind_of(env: Env[S, R], iig_obs_type: Any) -> Kind:
    """The ``Kind`` that ``iig_obs_type`` (None: OpenSpiel's default observation) asks for."""
    public = True if iig_obs_type is None else bool(iig_obs_type.public_info)
    recall = False if iig_obs_type is None else bool(iig_obs_type.perfect_recall)
    private = Private.SINGLE_PLAYER if iig_obs_type is None else iig_obs_type.private_info
    if private == Private.SINGLE_PLAYER and public and recall:
        return Kind(
            "information state",
            _size(env.information_state_shape),
            lambda s, p: s.information_state_array(p),
            lambda s, p: s.information_state_text(p),
        )
    if private == Private.SINGLE_PLAYER and public:
        return Kind(
            "observation",
            _size(env.observation_shape),
            lambda s, p: s.observation_array(p),
            lambda s, p: _view_text(s.observation_array(p), p),
        )
    return _other_kind(env, public, recall, private)


def _view_text(view: np.ndarray | None, player: int) -> str | None:
    return None if view is None else f"seat {player}: " + _digest("view", view)


def _other_kind(env: Env[S, R], public: bool, recall: bool, private: Any) -> Kind:
    """The kinds besides a seat's information state and its view (``kind_of``)."""
    sizes, n = knowledge.shapes(env), env.num_players
    if private == Private.NONE and public:
        get = _memo("public", env)
        return Kind(
            "public observation",
            _size(sizes["public"]),
            lambda s, p: get(s),
            lambda s, p: None if s.env_state is None else knowledge.public_string(env, s.env_state),
        )
    if private in (Private.SINGLE_PLAYER, Private.ALL_PLAYERS) and not public:
        get = _memo("private", env)
        every = private == Private.ALL_PLAYERS

        def tensor(s: OpenSpielState, p: int) -> np.ndarray | None:
            rows = get(s)
            return None if rows is None else (rows.reshape(-1) if every else rows[p])

        def text(s: OpenSpielState, p: int) -> str | None:
            if s.env_state is None:
                return None
            seats = range(n) if every else [p]
            return " || ".join(knowledge.private_string(env, s.env_state, q) for q in seats)

        size = _size(sizes["private"]) * (n if every else 1)
        return Kind("private observation", size, tensor, text)
    if private == Private.ALL_PLAYERS and public and not recall:
        full = _memo("full", env)
        return Kind(
            "full observation",
            _size(env.full_observation_shape),
            lambda s, p: full(s),
            lambda s, p: (lambda v: None if v is None else _digest("everything", v))(full(s)),
        )
    raise ValueError(
        f"{env.id}: no observation with public_info={public}, perfect_recall={recall}, "
        f"private_info={private}"
    )


class Observer:
    """OpenSpiel's Python observer of one kind (``kind_of``): ``tensor`` (and
    ``dict["observation"]``, or ``dict["info_state"]`` for the information state) and
    ``string_from``; during the deal, zeros and the deal's text."""

    def __init__(self, env: Env[Any, Any], iig_obs_type: Any = None) -> None:
        self.kind = kind_of(env, iig_obs_type)
        self.tensor = np.zeros(self.kind.size, np.float32)
        name = "info_state" if self.kind.name == "information state" else "observation"
        self.dict = {name: self.tensor}

    def set_from(self, state: OpenSpielState, player: int) -> None:
        row = self.kind.tensor(state, int(player))
        if row is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = row

    def string_from(self, state: OpenSpielState, player: int) -> str:
        text = self.kind.text(state, int(player))
        if text is None:
            return f"seat {player}: the deal, {len(state.history())} cards out"
        return text
