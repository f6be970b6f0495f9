"""The public record of a hand: every decision in order, who took it, and what the table saw.

Every game's ``State`` has a field ``moves`` int32[T] (T = ``env.max_decisions``), all zeros at
the deal and written by the step every game shares (``core.transition.transition``): entry t is
decision t, packed as ``(actor + 1) | action << 5 | private << 15``, 0 for a decision not taken
yet.  ``private`` marks an action that only its actor saw (a rob's discard, an Auction
discard, the joker exchange's discard: ``Env.private_action``): the other seats saw that the
actor took a hidden action, never which one (``HIDDEN`` in their view, ``seen_by``).

Everything a seat knows is its private cards (``Env.private_cards``), the public facts of the
deal (``Env.public_start``) and this record as it saw it: ``core.knowledge`` builds the
information states and observation kinds from them.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core.bits import Bits

Moves = jax.Array | np.ndarray
"""A record ``moves`` int32[..., T], on the device or on the host."""

ACTION_SHIFT = 5  # actors -1..30 fit below it
PRIVATE_SHIFT = 15  # actions 0..1023 fit between
ACTION_MASK = (1 << (PRIVATE_SHIFT - ACTION_SHIFT)) - 1
MAX_ACTIONS = ACTION_MASK + 1


def empty(length: int) -> jax.Array:
    """int32[length]: the record of a hand before its first decision."""
    return jnp.zeros(length, jnp.int32)


def written(
    moves: jax.Array, t: jax.Array, actor: jax.Array, action: jax.Array, private: jax.Array
) -> jax.Array:
    """``moves`` int32[T] with decision ``t`` recorded (t outside 0..T-1: unchanged).  A
    select over the T entries, not a scatter: the cheaper of the two under ``vmap``."""
    entry = (
        (jnp.asarray(actor, jnp.int32) + 1)
        | (jnp.asarray(action, jnp.int32) << ACTION_SHIFT)
        | (jnp.asarray(private, jnp.int32) << PRIVATE_SHIFT)
    )
    return jnp.where(jnp.arange(moves.shape[-1]) == t, entry, moves)


def with_actions(moves: jax.Array, where: jax.Array, action: jax.Array) -> jax.Array:
    """``moves`` int32[T] with the action of each entry ``where`` bool[T] set to ``action``
    int32[T] (a world's own private actions: ``Analysis.resample_hidden``)."""
    kept = moves & ~(ACTION_MASK << ACTION_SHIFT)
    return jnp.where(where, kept | (jnp.asarray(action, jnp.int32) << ACTION_SHIFT), moves)


def others_private(moves: Moves, player: jax.Array | int) -> jax.Array:
    """bool[T]: the private actions of seats other than ``player`` (what its worlds redraw)."""
    who = actors(moves)
    return private(moves) & (who >= 0) & (who != jnp.asarray(player, jnp.int32))


def actors(moves: Moves) -> jax.Array:
    """int32[..., T]: the seat that took each decision, -1 where none was taken yet."""
    return (jnp.asarray(moves) & ((1 << ACTION_SHIFT) - 1)) - 1


def actions(moves: Moves) -> jax.Array:
    """int32[..., T]: the action of each decision (the true one, private or not), -1 where
    none was taken yet."""
    return jnp.where(moves == 0, -1, (moves >> ACTION_SHIFT) & ACTION_MASK)


def private(moves: Moves) -> jax.Array:
    """bool[..., T]: the decisions only their actor saw."""
    return ((jnp.asarray(moves) >> PRIVATE_SHIFT) & 1).astype(jnp.bool_)


def seen_by(moves: Moves, player: jax.Array | int, hidden: int) -> jax.Array:
    """int32[..., T]: each decision's action as seat ``player`` saw it: its own and every
    public one as taken, another seat's private one as ``hidden``, -1 where none was taken
    yet.  ``player`` -1 (nobody's) gives the public record."""
    own = actors(moves) == jnp.asarray(player, jnp.int32)
    return jnp.where(private(moves) & ~own, hidden, actions(moves))


def count(moves: Moves) -> jax.Array:
    """int32[...]: decisions recorded."""
    return (moves != 0).sum(-1).astype(jnp.int32)


def cards_of(moves: Moves, player: jax.Array | int, num_cards: int) -> Bits:
    """uint32[] x 2: the card actions (ids below ``num_cards`` <= 64) seat ``player`` took: the
    cards it played or laid away (one hand's ``moves`` int32[T])."""
    a = actions(moves)
    mine = (actors(moves) == jnp.asarray(player, jnp.int32)) & (a >= 0) & (a < num_cards)
    pos = jnp.clip(a, 0, 63).astype(jnp.uint32)
    lo = jnp.where(mine & (a < 32), jnp.uint32(1) << (pos & 31), jnp.uint32(0))
    hi = jnp.where(mine & (a >= 32), jnp.uint32(1) << (pos & 31), jnp.uint32(0))
    return Bits(
        jax.lax.reduce(lo, jnp.uint32(0), jax.lax.bitwise_or, (0,)),
        jax.lax.reduce(hi, jnp.uint32(0), jax.lax.bitwise_or, (0,)),
    )


__all__ = [
    "MAX_ACTIONS",
    "actions",
    "actors",
    "cards_of",
    "count",
    "empty",
    "private",
    "seen_by",
    "written",
]
