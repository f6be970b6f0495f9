"""Exact search of perfect-information game trees as array code: alpha-beta, vmapped over worlds.

A game describes its tree to ``alphabeta`` with a ``Tree``: jittable functions of one node (a
pytree of 32-bit scalars, written for ONE world), the moves as a 64-position bitset
(``core.bits``), and the value of a settled node as an int32 for the maximising side.  The
search is a depth-first alpha-beta with an explicit stack, run as one ``lax.while_loop``: each
iteration either tries the next move of the deepest open node (a child that is settled is
valued at once, without a stack frame of its own) or closes that node and hands its value to its
parent.  ``jax.vmap`` of it searches many worlds at once; under ``vmap`` the loop runs until the
last world is done, so a batch costs its largest tree.

The stack is one int32 matrix ``[depth + 1, W]``: a row per open node holding the node's words,
its untried moves, the window (alpha, beta), the best value found, the carried ``aux`` of the
best line and whether the side to move maximises.  A row is read and written whole, so a step
costs one gather and two scatters whatever the node's size.

Values are exact integers (points or chips), so the search is exact: with ``prune=True`` the
value is alpha-beta's, with ``prune=False`` every move is searched (the full tree: a reference
and a node count to compare with).  Moves are tried in ``Tree.order``'s order, lowest position
first by default; where several moves give the same value the first in that order is the
line taken, and ``aux`` (a second number the caller wants from the line played, such as
whether a bid is made) is read off that line: it equals the full tree's as long as the root
is searched with the full window, which ``alphabeta`` always does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Generic, NamedTuple, TypeVar

import jax
import jax.numpy as jnp

from spoilfive_jax.core import bits
from spoilfive_jax.core.bits import Bits

N = TypeVar("N")  # a node: a pytree of 32-bit scalars (one world)
C = TypeVar("C")  # what one world's tree closes over

I32 = jnp.int32
INF = 1 << 30  # beyond every value a tree may have (|value| < 2**30)


class Leaf(NamedTuple):
    """What ``Tree.leaf`` says of a node: int32[] / bool[] scalars."""

    settled: jax.Array  # bool[]: the node's value is known without search (the hand is over)
    value: jax.Array  # int32[]: its value for the maximising side (read where settled)
    aux: jax.Array  # int32[]: the caller's extra number of the line (read where settled)


@dataclasses.dataclass(frozen=True)
class Tree(Generic[N]):
    """A game tree for ``alphabeta``; every function takes ONE node (vmap adds the worlds).

    ``moves(node) -> Bits``: the moves at an unsettled node (never empty there);
    ``play(node, move int32[]) -> node``: the child; ``leaf(node) -> Leaf``;
    ``maximise(node) -> bool[]``: the side to move is the maximising side;
    ``order(node, untried: Bits) -> int32[]``: the next move to try (default: the lowest).
    """

    moves: Callable[[N], Bits]
    play: Callable[[N, jax.Array], N]
    leaf: Callable[[N], Leaf]
    maximise: Callable[[N], jax.Array]
    order: Callable[[N, Bits], jax.Array] | None = None


class Solved(NamedTuple):
    """``alphabeta``'s result for one world: int32[] scalars."""

    value: jax.Array  # the exact value for the maximising side
    aux: jax.Array  # ``Leaf.aux`` of the line found (the first best move at every node)
    nodes: jax.Array  # the children the search generated (its cost)


# The columns of a stack row after the node's words.
_LO, _HI, _ALPHA, _BETA, _BEST, _AUX, _MAX = range(7)


def _words(node: N) -> jax.Array:
    """int32[K]: the node's leaves, each a 32-bit scalar, bit-cast to int32."""
    leaves = jax.tree.leaves(node)
    return jnp.stack([jax.lax.bitcast_convert_type(x, I32) for x in leaves])


def _node(words: jax.Array, like: N) -> N:
    """The node whose ``_words`` are ``words`` (``like`` gives its structure and types)."""
    leaves, treedef = jax.tree.flatten(like)
    out = [jax.lax.bitcast_convert_type(words[i], x.dtype) for i, x in enumerate(leaves)]
    return jax.tree.unflatten(treedef, out)


def _row(node: N, moves: Bits, alpha: jax.Array, beta: jax.Array, maximise: jax.Array) -> jax.Array:
    """A fresh stack row: ``node`` open with its untried ``moves`` and window (alpha, beta)."""
    best = jnp.where(maximise, -INF, INF)
    tail = [
        jax.lax.bitcast_convert_type(moves.lo, I32),
        jax.lax.bitcast_convert_type(moves.hi, I32),
        alpha,
        beta,
        best,
        I32(0),
        maximise.astype(I32),
    ]
    return jnp.concatenate([_words(node), jnp.stack([jnp.asarray(x, I32) for x in tail])])


def _fold(row: jax.Array, k: int, value: jax.Array, aux: jax.Array) -> jax.Array:
    """``row`` (an open node) after a child of value ``value`` (line ``aux``) was searched."""
    maximise = row[k + _MAX] != 0
    best = row[k + _BEST]
    better = jnp.where(maximise, value > best, value < best)
    row = row.at[k + _BEST].set(jnp.where(better, value, best))
    row = row.at[k + _AUX].set(jnp.where(better, aux, row[k + _AUX]))
    alpha = jnp.where(maximise, jnp.maximum(row[k + _ALPHA], value), row[k + _ALPHA])
    beta = jnp.where(maximise, row[k + _BETA], jnp.minimum(row[k + _BETA], value))
    return row.at[k + _ALPHA].set(alpha).at[k + _BETA].set(beta)


class _Next(NamedTuple):
    """The open node's next move, worked out one iteration ahead (one world's scalars): the
    loop's carry is where XLA keeps a value, so the search's costly functions run once a step
    instead of inside every consumer of their results."""

    move: jax.Array  # int32[]: the move to try (``Tree.order``)
    settled: jax.Array  # bool[]: the child is settled (``Tree.leaf``)
    value: jax.Array  # int32[]
    aux: jax.Array  # int32[]
    moves_lo: jax.Array  # uint32[]: the child's moves (``Tree.moves``)
    moves_hi: jax.Array  # uint32[]
    maximise: jax.Array  # bool[]: the child's side to move maximises


class _Carry(NamedTuple):
    """The search of one world (vmapped: [B] leading every field)."""

    stack: jax.Array  # int32[depth + 1, K + 7]: the open nodes below the top one
    row: jax.Array  # int32[K + 7]: the top (deepest open) node
    next: _Next
    top: jax.Array  # int32[]: the top node's depth
    nodes: jax.Array  # int32[]
    done: jax.Array  # bool[]
    value: jax.Array  # int32[]
    aux: jax.Array  # int32[]


def _untried(row: jax.Array, k: int) -> Bits:
    return Bits(
        jax.lax.bitcast_convert_type(row[k + _LO], jnp.uint32),
        jax.lax.bitcast_convert_type(row[k + _HI], jnp.uint32),
    )


def _plan(tree: Tree[N], row: jax.Array, like: N) -> _Next:
    """The next move of the node of ``row`` and what its child is."""
    k = len(jax.tree.leaves(like))
    node, untried = _node(row[:k], like), _untried(row, k)
    move = tree.order(node, untried) if tree.order else bits.lowest(untried)
    child = tree.play(node, move)
    leaf, moves = tree.leaf(child), tree.moves(child)
    return _Next(move, leaf.settled, leaf.value, leaf.aux, moves.lo, moves.hi, tree.maximise(child))


def _advance(tree: Tree[N], c: _Carry, like: N, prune: bool) -> _Carry:
    """One step of one world's search: try the planned move, or close the top node."""
    k = len(jax.tree.leaves(like))
    row, nx = c.row, c.next
    untried = _untried(row, k)
    open_ = bits.nonempty(untried) & ~c.done
    if prune:
        open_ = open_ & (row[k + _ALPHA] < row[k + _BETA])
    left = untried.without(bits.bit(nx.move))
    tried = row.at[k + _LO].set(jax.lax.bitcast_convert_type(left.lo, I32))
    tried = tried.at[k + _HI].set(jax.lax.bitcast_convert_type(left.hi, I32))
    # A move tried: a settled child is folded into the top row, another becomes the top.
    push = open_ & ~nx.settled
    here = jnp.where(nx.settled, _fold(tried, k, nx.value, nx.aux), tried)
    child = tree.play(_node(row[:k], like), nx.move)
    moves = Bits(nx.moves_lo, nx.moves_hi)
    above = _row(child, moves, row[k + _ALPHA], row[k + _BETA], nx.maximise)
    # No move left (or a cut): the top row's best goes to the row below, or is the answer.
    closed = ~open_ & ~c.done
    pop = closed & (c.top > 0)
    under = jnp.maximum(c.top - 1, 0)
    below = _fold(c.stack[under], k, row[k + _BEST], row[k + _AUX])
    new = jnp.where(push, above, jnp.where(open_, here, jnp.where(pop, below, row)))
    finished = closed & (c.top == 0)
    return _Carry(
        stack=c.stack.at[c.top].set(jnp.where(push, here, c.stack[c.top])),
        row=new,
        next=_plan(tree, new, like),
        top=c.top + push.astype(I32) - pop.astype(I32),
        nodes=c.nodes + open_.astype(I32),
        done=c.done | finished,
        value=jnp.where(finished, row[k + _BEST], c.value),
        aux=jnp.where(finished, row[k + _AUX], c.aux),
    )


def alphabeta(
    tree_of: Callable[[C], Tree[N]], ctx: C, roots: N, depth: int, prune: bool = True
) -> Solved:
    """The exact values of a batch of worlds (module docstring): ``roots`` [B] searched in the
    trees ``tree_of(ctx)`` (``ctx`` [B]: what each world's tree closes over, such as the hands
    and the seat it is solved for; ``tree_of`` sees one world).  ``depth``: the most moves from
    a root to a settled node.  ``prune=False`` searches every line (the full tree).

    The loop is written at the batch's level, not as ``vmap`` of a loop: a world that is done
    writes nothing, where a vmapped loop would select its whole stack at every step."""
    like = jax.tree.map(lambda x: x[0], roots)

    def start(c: C, root: N) -> _Carry:
        tree = tree_of(c)
        row = _row(root, tree.moves(root), I32(-INF), I32(INF), tree.maximise(root))
        settled = tree.leaf(root)
        stack = jnp.zeros((depth + 1, row.shape[0]), I32)
        zero = I32(0)
        return _Carry(
            stack,
            row,
            _plan(tree, row, like),
            zero,
            zero,
            settled.settled,
            settled.value,
            settled.aux,
        )

    def step(c: _Carry) -> _Carry:
        return jax.vmap(lambda c1, x: _advance(tree_of(x), c1, like, prune))(c, ctx)

    end = jax.lax.while_loop(lambda c: ~c.done.all(), step, jax.vmap(start)(ctx, roots))
    return Solved(end.value, end.aux, end.nodes)


__all__ = ["INF", "Leaf", "Solved", "Tree", "alphabeta"]
