"""``core.search.alphabeta`` on random game trees against a plain recursive minimax: the same
value with and without pruning, with every world at once and with a few lanes taking worlds
in turn, and the line's ``aux`` the first best move's (the tree's own, not a game's)."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from spoilfive_jax.core import bits, search

DEPTH = 6
M32 = 0xFFFFFFFF


class Node(NamedTuple):
    code: jax.Array  # uint32[]: a hash of the path from the root
    depth: jax.Array  # int32[]


def _mix(x: jax.Array, move: jax.Array) -> jax.Array:
    """uint32 hash of a path and a move (``_minimax`` does the same arithmetic in Python)."""
    u = jnp.uint32
    x = (x ^ (move + u(0x9E3779B9))) * u(0x85EBCA6B)
    x = x ^ (x >> 13)
    return x * u(0xC2B2AE35)


def _tree(seed: jax.Array) -> search.Tree[Node]:
    def leaf(n: Node) -> search.Leaf:
        value = (n.code % jnp.uint32(21)).astype(jnp.int32) - 10
        return search.Leaf(n.depth == DEPTH, value, ((n.code >> 7) & 1).astype(jnp.int32))

    def moves(n: Node) -> bits.Bits:
        width = 1 + (n.code >> 3) % 4  # 1..4 moves
        return bits.Bits((jnp.uint32(1) << width) - 1, jnp.uint32(0))

    return search.Tree(
        moves=moves,
        play=lambda n, m: Node(_mix(n.code ^ seed, m.astype(jnp.uint32)), n.depth + 1),
        leaf=leaf,
        maximise=lambda n: n.depth % 2 == 0,
    )


def _minimax(code: int, depth: int, seed: int) -> tuple[int, int]:
    """(value, aux of the first best line) by plain recursion."""
    if depth == DEPTH:
        return code % 21 - 10, (code >> 7) & 1
    best = None
    for m in range(1 + (code >> 3) % 4):
        x = code ^ seed
        x = ((x ^ (m + 0x9E3779B9)) * 0x85EBCA6B) & M32
        x ^= x >> 13
        child = _minimax((x * 0xC2B2AE35) & M32, depth + 1, seed)
        if best is None or (child[0] > best[0] if depth % 2 == 0 else child[0] < best[0]):
            best = child
    assert best is not None
    return best


@pytest.mark.parametrize("prune,lanes", [(True, None), (False, None), (True, 5), (False, 3)])
def test_alphabeta_is_minimax(prune: bool, lanes: int | None) -> None:
    worlds = 24
    codes = np.random.default_rng(0).integers(0, 2**32, worlds, dtype=np.uint64)
    seeds = np.arange(worlds, dtype=np.uint32) * 7919
    roots = Node(jnp.asarray(codes, jnp.uint32), jnp.zeros(worlds, jnp.int32))
    roots = roots._replace(depth=roots.depth.at[3].set(DEPTH))  # a settled root
    out = jax.jit(
        lambda r, s: search.alphabeta(_tree, s, r, DEPTH, prune, lanes), static_argnums=()
    )(roots, jnp.asarray(seeds))
    want = [
        _minimax(int(c), DEPTH if i == 3 else 0, int(s))
        for i, (c, s) in enumerate(zip(codes, seeds, strict=True))
    ]
    np.testing.assert_array_equal(np.asarray(out.value), [v for v, _ in want])
    np.testing.assert_array_equal(np.asarray(out.aux), [a for _, a in want])
    assert int(out.nodes[3]) == 0 and (np.asarray(out.nodes)[np.arange(worlds) != 3] > 0).all()


def test_pruning_searches_less() -> None:
    roots = Node(jnp.arange(16, dtype=jnp.uint32) * 1000003, jnp.zeros(16, jnp.int32))
    seeds = jnp.zeros(16, jnp.uint32)
    pruned, full = (
        jax.jit(lambda r, s, p=p: search.alphabeta(_tree, s, r, DEPTH, p))(roots, seeds)
        for p in (True, False)
    )
    np.testing.assert_array_equal(pruned.value, full.value)
    assert int(pruned.nodes.sum()) < int(full.nodes.sum())


# A tree with transpositions: two sides take items from a pool of ITEMS in turn; a settled
# node's value depends only on which items each side holds, so orders of the same takes meet.
ITEMS, TAKES = 7, 5


class Takes(NamedTuple):
    mine: jax.Array  # uint32[]: items the maximising side took
    theirs: jax.Array  # uint32[]
    depth: jax.Array  # int32[]


def _score(mine: int, theirs: int, seed: int) -> tuple[int, int]:
    x = ((mine * 0x9E3779B1) ^ (theirs * 0x85EBCA6B) ^ seed) & M32
    x = (x * 0xC2B2AE35) & M32
    x ^= x >> 15
    return x % 21 - 10, (x >> 9) & 1


def _takes_tree(seed: jax.Array) -> search.Tree[Takes]:
    u = jnp.uint32

    def leaf(n: Takes) -> search.Leaf:
        x = (n.mine * u(0x9E3779B1)) ^ (n.theirs * u(0x85EBCA6B)) ^ seed
        x = x * u(0xC2B2AE35)
        x = x ^ (x >> 15)
        value = (x % u(21)).astype(jnp.int32) - 10
        return search.Leaf(n.depth == TAKES, value, ((x >> 9) & 1).astype(jnp.int32))

    def play(n: Takes, m: jax.Array) -> Takes:
        item = u(1) << m.astype(u)
        mine = n.depth % 2 == 0
        return Takes(
            jnp.where(mine, n.mine | item, n.mine),
            jnp.where(mine, n.theirs, n.theirs | item),
            n.depth + 1,
        )

    return search.Tree(
        moves=lambda n: bits.Bits(u((1 << ITEMS) - 1) & ~(n.mine | n.theirs), u(0)),
        play=play,
        leaf=leaf,
        maximise=lambda n: n.depth % 2 == 0,
        transposes=lambda n: n.depth >= 2,
    )


def _takes_minimax(mine: int, theirs: int, depth: int, seed: int) -> tuple[int, int]:
    if depth == TAKES:
        return _score(mine, theirs, seed)
    best = None
    for m in range(ITEMS):
        if (mine | theirs) >> m & 1:
            continue
        took = (mine | 1 << m, theirs) if depth % 2 == 0 else (mine, theirs | 1 << m)
        child = _takes_minimax(*took, depth + 1, seed)
        if best is None or (child[0] > best[0] if depth % 2 == 0 else child[0] < best[0]):
            best = child
    assert best is not None
    return best


@pytest.mark.parametrize(  # (-m slow: a big table with lanes; lanes by default with size 4)
    "size,lanes", [(1 << 12, None), pytest.param(1 << 12, 4, marks=pytest.mark.slow), (4, 3)]
)
def test_transpositions_keep_the_value_and_line(size: int, lanes: int | None) -> None:
    """A transposition table (shared by worlds of one seed, not by others; ``size`` 4: almost
    every store overwrites another node's) gives minimax's value and the first best line's
    aux, and searches fewer children than the search without it."""
    worlds = 12
    seeds = np.array([5, 5, 5, 9, 9, 11, 5, 9, 11, 11, 5, 13], np.uint32)
    first = np.random.default_rng(1).integers(0, ITEMS, worlds)  # a first take made at the root
    roots = Takes(
        jnp.asarray(1 << first, jnp.uint32),
        jnp.zeros(worlds, jnp.uint32),
        jnp.ones(worlds, jnp.int32),
    )
    solve = jax.jit(
        lambda r, s, n: search.alphabeta(_takes_tree, s, r, TAKES, True, lanes, n), static_argnums=2
    )
    with_table, without = (
        solve(roots, jnp.asarray(seeds), size),
        solve(roots, jnp.asarray(seeds), 0),
    )
    want = [_takes_minimax(1 << int(f), 0, 1, int(s)) for f, s in zip(first, seeds, strict=True)]
    for out in (with_table, without):
        np.testing.assert_array_equal(np.asarray(out.value), [v for v, _ in want])
        np.testing.assert_array_equal(np.asarray(out.aux), [a for _, a in want])
    assert int(with_table.nodes.sum()) < int(without.nodes.sum())


def test_transpositions_must_be_a_power_of_two() -> None:
    roots = Takes(jnp.ones(2, jnp.uint32), jnp.zeros(2, jnp.uint32), jnp.ones(2, jnp.int32))
    with pytest.raises(ValueError, match="power of two"):
        search.alphabeta(_takes_tree, jnp.zeros(2, jnp.uint32), roots, TAKES, True, None, 100)


def test_move_major_orders_a_block_of_worlds_by_move_and_back() -> None:
    order, back = search.move_major(5, 3, block=2)
    # worlds 0-1 (moves 0, then 1, then 2), then 2-3, then world 4; root id = world * 3 + move
    assert order.tolist() == [0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11, 12, 13, 14]
    assert (order[back] == np.arange(15)).all()


@pytest.mark.parametrize("ctx_batched", [True, False])
def test_a_vmapped_search_is_one_batch_with_the_same_answers(ctx_batched: bool) -> None:
    """``jax.vmap`` of ``alphabeta`` (as ``jax.vmap`` of a pimc bot makes it) searches the
    vmapped batches as one (its custom batching rule) and answers each as alone."""
    codes = np.random.default_rng(3).integers(0, 2**32, (3, 8), dtype=np.uint64)
    roots = Node(jnp.asarray(codes, jnp.uint32), jnp.zeros((3, 8), jnp.int32))
    seeds = jnp.asarray(np.arange(24, dtype=np.uint32).reshape(3, 8) * 7919)

    def solve(s: jax.Array, r: Node) -> search.Solved:
        return search.alphabeta(_tree, s, r, DEPTH, True, 5)

    if ctx_batched:
        together = jax.jit(jax.vmap(solve))(seeds, roots)
        assert "u32[24]" in str(jax.make_jaxpr(jax.vmap(solve))(seeds, roots))  # one batch
        alone = [solve(seeds[i], jax.tree.map(lambda x, i=i: x[i], roots)) for i in range(3)]
    else:
        together = jax.jit(jax.vmap(solve, in_axes=(None, 0)))(seeds[0], roots)
        alone = [solve(seeds[0], jax.tree.map(lambda x, i=i: x[i], roots)) for i in range(3)]
    for field in ("value", "aux", "nodes"):
        want = np.stack([np.asarray(getattr(a, field)) for a in alone])
        np.testing.assert_array_equal(np.asarray(getattr(together, field)), want)


@pytest.mark.parametrize(  # (-m slow: fewer lanes than worlds, as test_alphabeta_is_minimax's)
    "lanes", [None, pytest.param(5, marks=pytest.mark.slow), 16]
)
def test_skipped_worlds_are_not_searched_and_the_rest_answer_as_before(lanes: int | None) -> None:
    """``skip``: a skipped world answers 0 with no node searched (with ``lanes``, none takes a
    lane: more lanes than worlds left, 16, included); every other world's answer is the
    search's without ``skip``, alone and under ``jax.vmap``."""
    worlds = 24
    codes = np.random.default_rng(4).integers(0, 2**32, worlds, dtype=np.uint64)
    roots = Node(jnp.asarray(codes, jnp.uint32), jnp.zeros(worlds, jnp.int32))
    seeds = jnp.asarray(np.arange(worlds, dtype=np.uint32) * 7919)
    skip = np.zeros(worlds, bool)
    skip[[0, 1, 2, 5, 6, 11, 12, 13, 17, 20, 21, 23]] = True

    def solve(r: Node, s: jax.Array, k: jax.Array | None) -> search.Solved:
        return search.alphabeta(_tree, s, r, DEPTH, True, lanes, skip=k)

    full = jax.jit(lambda r, s: solve(r, s, None))(roots, seeds)
    part = jax.jit(solve)(roots, seeds, jnp.asarray(skip))
    for field in ("value", "aux", "nodes"):
        got, want = np.asarray(getattr(part, field)), np.asarray(getattr(full, field))
        np.testing.assert_array_equal(got[~skip], want[~skip])
        assert (got[skip] == 0).all()
    everything = jax.jit(solve)(roots, seeds, jnp.ones(worlds, bool))
    assert not np.asarray(everything.nodes).any()
    halves = jax.tree.map(lambda x: x.reshape(2, worlds // 2), (roots, seeds, jnp.asarray(skip)))
    vmapped = jax.jit(jax.vmap(solve))(*halves)
    np.testing.assert_array_equal(np.asarray(vmapped.value).reshape(-1), np.asarray(part.value))
