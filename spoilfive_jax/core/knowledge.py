"""What a seat knows, exactly: perfect-recall information states and the observation kinds.

A seat knows three things (``core.record``): the public facts of the deal
(``Knowledge.public_start``: the dealer, the turn-up, the pot or the scores), the cards it alone
has seen (``Knowledge.private_cards``: its hand as dealt, and the cards it drew, in Auction) and
the public record ``state.moves`` as it saw it (its own private actions as taken, another seat's as
``HIDDEN``).  Everything else a seat has ever seen follows from those and the rules, so the
kinds below are exact:

- ``information_state`` (perfect recall), float32[I] with I = N + K + 64 C + T (N + A + 1):
  the seat one-hot [N]; the public facts as numbers [K] (-1: none); the private card sets as
  64-card masks [C, 64]; then one row per decision t < T (T = ``max_decisions``) of the actor
  one-hot [N] and the action one-hot [A + 1] as the seat saw it (column A = ``HIDDEN`` = A:
  another seat's private action), all zeros for a decision not taken yet.  Two histories give
  one seat equal information states exactly when everything that seat has seen is equal, in
  the same order.
- ``observe_public`` (what every seat and an onlooker know), float32[K + T (N + A + 1)]: the
  public facts and the public record, laid out as above.
- ``observe_private`` (what the seat alone knows), float32[64 C]: its private card sets.
- the game's own ``observe`` is the seat's imperfect-recall view (its hand now and the public
  state of play), and ``observe_full`` the perfect-information view.

The strings (``information_state_string``, ``public_string``, ``private_string``) say the same
in words: ``seat 2 | dealer 2, turnup Q♦, carried 2 | dealt 9♠ 9♥ 10♠ K♠ 6♠ | 0:6♥ 1:2♥
2:9♥ ...``, ``1:?`` for another seat's private action.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core import record
from spoilfive_jax.core.bits import Bits

if TYPE_CHECKING:
    from spoilfive_jax.core.env import Env, HandState, RecordedState

S = TypeVar("S", bound="HandState")
"""The state of the env a function here is given (``core.env.Env``'s ``S``), per call."""
R = TypeVar("R", bound=Hashable)
"""That env's rules."""


@runtime_checkable
class Knowledge(Protocol):
    """What a game's seats know (a capability: ``core.capabilities``).  Every state of such a
    game has the field ``moves`` (the public record, ``core.record.empty(max_decisions)`` at
    the deal; the shared step writes it)."""

    def private_card_sets(self, env: Env[S, R]) -> tuple[str, ...]:
        """The names of the card sets ``private_cards`` returns, in order (``("dealt",)``)."""
        ...

    def public_start(self, env: Env[S, R], state: RecordedState) -> jax.Array:
        """int32[K]: the facts of the deal every seat knows (the dealer, the turn-up, the pot
        or the scores), one per ``public_start_fields``."""
        ...

    def public_start_fields(self, env: Env[S, R]) -> tuple[tuple[str, str], ...]:
        """(name, kind) of each ``public_start`` value; kind: one of ``FIELD_KINDS``."""
        ...

    def private_cards(self, env: Env[S, R], state: RecordedState, player: jax.Array) -> Bits:
        """uint32[C] x 2: the card sets only ``player`` has seen (its hand as dealt, before any
        exchange; the cards it drew).  Its own private actions are in the record."""
        ...

    def private_action(self, env: Env[S, R], state: RecordedState, action: jax.Array) -> jax.Array:
        """bool[]: ``action`` by ``current_player`` is seen by that seat only (a rob's
        discard); the others see that it took a hidden action."""
        ...

    def dealt_state(self, env: Env[S, R], state: RecordedState) -> S:
        """The first state of ``state``'s hand, before any decision: every seat's dealt cards,
        the stock as it was, the public facts.  Replaying ``state.moves`` from it gives
        ``state`` back (``tools.knowledge_check``)."""
        ...


def hooks(env: Env[S, R]) -> Knowledge:
    """The game's ``Knowledge``, or one ``MissingCapability`` naming it."""
    return env.capability(Knowledge, "what a seat knows")


CARD_SLOTS = 64  # a private card set as a mask over the card ids 0..63
FIELD_KINDS = ("seat", "card", "number", "flag")
"""How ``Knowledge.public_start_fields`` names each public fact's kind (for the strings; a card is
written as its action, ``Env.action_str``: a game's card ids are its card actions)."""


def hidden_action(env: Env[S, R]) -> int:
    """The action id of another seat's private action in a seat's view: ``num_actions``."""
    return int(env.num_actions)


def record_rows(env: Env[S, R], moves: jax.Array, player: jax.Array | int) -> jax.Array:
    """float32[T * (N + A + 1)]: the record ``moves`` int32[T] as ``player`` saw it (-1: the
    public record), one row per decision: actor one-hot [N], seen action one-hot [A + 1]."""
    n, a = env.num_players, hidden_action(env) + 1
    who = record.actors(moves)
    what = record.seen_by(moves, player, hidden_action(env))
    actor = (who[:, None] == jnp.arange(n)).astype(jnp.float32)
    action = (what[:, None] == jnp.arange(a)).astype(jnp.float32)
    return jnp.concatenate([actor, action], axis=1).reshape(-1)


def _private_masks(env: Env[S, R], state: RecordedState, player: jax.Array) -> jax.Array:
    sets = hooks(env).private_cards(env, state, player)
    return bits.to_bool(sets, CARD_SLOTS).astype(jnp.float32).reshape(-1)


def _start(env: Env[S, R], state: RecordedState) -> jax.Array:
    return jnp.asarray(hooks(env).public_start(env, state)).astype(jnp.float32).reshape(-1)


def information_state(env: Env[S, R], state: RecordedState, player: jax.Array) -> jax.Array:
    """float32[I]: seat ``player``'s perfect-recall information state (module docstring)."""
    p = jnp.asarray(player, jnp.int32)
    seat = (jnp.arange(env.num_players) == p).astype(jnp.float32)
    parts = [seat, _start(env, state), _private_masks(env, state, p)]
    return jnp.concatenate([*parts, record_rows(env, state.moves, p)])


def observe_public(env: Env[S, R], state: RecordedState) -> jax.Array:
    """float32[K + T (N + A + 1)]: the public facts and the public record."""
    return jnp.concatenate([_start(env, state), record_rows(env, state.moves, -1)])


def observe_private(env: Env[S, R], state: RecordedState, player: jax.Array) -> jax.Array:
    """float32[64 C]: the card sets only seat ``player`` has seen."""
    return _private_masks(env, state, jnp.asarray(player, jnp.int32))


def shapes(env: Env[S, R]) -> dict[str, tuple[int, ...]]:
    """The shapes of the three kinds at ``env``'s table."""
    n, k = env.num_players, len(hooks(env).public_start_fields(env))
    c = len(hooks(env).private_card_sets(env))
    rows = env.max_decisions * (n + hidden_action(env) + 1)
    return {
        "information_state": (n + k + CARD_SLOTS * c + rows,),
        "public": (k + rows,),
        "private": (CARD_SLOTS * c,),
    }


# ---------------------------------------------------------------------- strings (host)


@functools.cache
def _tensors(env: Env[S, R]) -> Any:
    """One compiled call per table: (seat ``player``'s information state, the public
    observation) of one hand; the strings read them back on the host."""
    return jax.jit(
        lambda state, player: (information_state(env, state, player), observe_public(env, state))
    )


def _host_tensors(
    env: Env[S, R], state: RecordedState, player: int
) -> tuple[np.ndarray, np.ndarray]:
    info, public = jax.device_get(_tensors(env)(state, jnp.int32(max(player, 0))))
    return np.asarray(info, np.float32), np.asarray(public, np.float32)


@functools.cache
def _action_texts(env: Env[S, R]) -> tuple[str, ...]:
    """``env.action_str`` of every action id, made once a table (texts are read per node)."""
    return tuple(env.action_str(a) for a in range(env.num_actions))


def _fact(env: Env[S, R], kind: str, value: int) -> str:
    if value < 0 and kind in ("seat", "card"):
        return "none"
    if kind == "card":  # (a game's card ids are its card actions)
        return _action_texts(env)[value]
    if kind == "flag":
        return "yes" if value else "no"
    return str(value)


def _facts_text(env: Env[S, R], facts: np.ndarray) -> str:
    fields = hooks(env).public_start_fields(env)
    return ", ".join(
        f"{name} {_fact(env, kind, int(v))}" for (name, kind), v in zip(fields, facts, strict=True)
    )


def _private_text(env: Env[S, R], masks: np.ndarray) -> str:
    parts = []
    for name, mask in zip(hooks(env).private_card_sets(env), masks, strict=True):
        texts = _action_texts(env)
        cards = " ".join(texts[c] for c in np.flatnonzero(mask).tolist())
        parts.append(f"{name} {cards or '-'}")
    return ", ".join(parts)


def public_start_text(env: Env[S, R], state: RecordedState) -> str:
    """``dealer 2, turnup Q♦, carried 2``: the public facts of one hand's deal."""
    k = _counts(env)[1]
    facts = np.rint(_host_tensors(env, state, 0)[1][:k]).astype(np.int64)
    return _facts_text(env, facts)


def private_text(env: Env[S, R], state: RecordedState, player: int) -> str:
    """``dealt 9♠ 9♥ 10♠ K♠ 6♠``: the card sets only ``player`` has seen (one hand)."""
    return _head_texts(env, _head_bytes(env, _host_tensors(env, state, player)[0]))[1]


def record_text(env: Env[S, R], state: RecordedState, player: int) -> str:
    """``0:6♥ 1:2♥ 2:9♥ 1:?``: the record as ``player`` saw it (-1: the public record)."""
    if not -1 <= int(player) < env.num_players:
        raise ValueError(f"player must be a seat 0..{env.num_players - 1} or -1, got {player}")
    return record_texts(env, state.moves)[1][int(player)]


Records = tuple[int, tuple[str, ...]]  # (the record's entries, N + 1 texts: ``record_texts``)


def record_texts(env: Env[S, R], moves: Any, prior: Records | None = None) -> Records:
    """(the record's entries, ``record_text`` of the record ``moves`` int32[T] for every seat
    and, last, the public one: N + 1 texts), read on the host (numpy, with ``core.record``'s
    packing).  ``prior``: what this gave for the record less its last entry (a step's parent):
    then only that entry is read; a ``prior`` of any other length is not used."""
    m = np.asarray(moves if isinstance(moves, np.ndarray) else jax.device_get(moves))
    m = m[m != 0].astype(np.int64)
    count = len(m)
    if prior is not None and count == prior[0] + 1:
        m = m[-1:]
    else:
        prior = None
    who = ((m & ((1 << record.ACTION_SHIFT) - 1)) - 1).tolist()
    what = ((m >> record.ACTION_SHIFT) & record.ACTION_MASK).tolist()
    hidden = (((m >> record.PRIVATE_SHIFT) & 1) != 0).tolist()
    texts = _action_texts(env)
    shown = [f"{w}:{texts[a]}" for w, a in zip(who, what, strict=True)]  # (as its actor saw it)
    public = [f"{w}:?" if h else t for w, h, t in zip(who, hidden, shown, strict=True)]
    out = []
    for p in [*range(env.num_players), -1]:
        words = [shown[i] if w == p else public[i] for i, w in enumerate(who)]
        before = None if prior is None or prior[1][p] == "-" else prior[1][p]
        out.append(" ".join(words if before is None else [before, *words]) or "-")
    return count, tuple(out)


def information_state_string(env: Env[S, R], state: RecordedState, player: int) -> str:
    """Seat ``player``'s perfect-recall information state in words (module docstring)."""
    tensor = _host_tensors(env, state, player)[0]
    return information_text(env, tensor, record_text(env, state, player), player)


def information_text(env: Env[S, R], tensor: np.ndarray, record_text: str, player: int) -> str:
    """``information_state_string`` read back from the seat's information state ``tensor``
    (its facts and card sets) and its ``record_text`` (``record_texts``), on the host alone
    (the OpenSpiel games, which hold every seat's tensor already)."""
    facts, cards = _head_texts(env, _head_bytes(env, tensor))
    return f"seat {player} | {facts} | {cards} | {record_text}"


def _head_bytes(env: Env[S, R], tensor: np.ndarray) -> bytes:
    """The facts and card sets of a seat's information state ``tensor``, as float32 bytes."""
    n, k, c = _counts(env)
    return np.asarray(tensor, np.float32).reshape(-1)[n : n + k + CARD_SLOTS * c].tobytes()


@functools.cache
def _counts(env: Env[S, R]) -> tuple[int, int, int]:
    """(N, K public facts, C private card sets) of a table."""
    known = hooks(env)
    return env.num_players, len(known.public_start_fields(env)), len(known.private_card_sets(env))


@functools.lru_cache(maxsize=4096)
def _head_texts(env: Env[S, R], facts_and_masks: bytes) -> tuple[str, str]:
    """(``dealer 2, turnup Q♦, carried 0``, ``dealt ...``): the facts and card sets of a
    seat's information state (float32 bytes), remembered (a seat's stay the same all hand)."""
    _, k, c = _counts(env)
    row = np.frombuffer(facts_and_masks, np.float32)
    facts = np.rint(row[:k]).astype(np.int64)
    masks = row[k : k + CARD_SLOTS * c].reshape(c, CARD_SLOTS) > 0.5
    return _facts_text(env, facts), _private_text(env, masks)


def public_string(env: Env[S, R], state: RecordedState) -> str:
    """The public facts and the public record in words."""
    return f"{public_start_text(env, state)} | {record_text(env, state, -1)}"


def private_string(env: Env[S, R], state: RecordedState, player: int) -> str:
    """The card sets only ``player`` has seen, in words."""
    return f"seat {player} | {private_text(env, state, player)}"
