"""Exact search of perfect-information game trees as array code: alpha-beta, batched over worlds.

A game describes its tree to ``alphabeta`` with a ``Tree``: jittable functions of one node (a
pytree of 32-bit scalars, written for ONE world), the moves as a 64-position bitset
(``core.bits``), and the value of a settled node as an int32 for the maximising side.  The
search is a depth-first alpha-beta with an explicit stack, run for a batch of worlds as one
``lax.while_loop`` written at the batch's level: at each iteration every world either tries the
next move of its deepest open node (a child that is settled, or whose ``Tree.bounds`` fall
outside the window, is valued at once, without a stack frame of its own, and where it was the
node's last move the node closes in the same step) or closes that node and hands its value to
its parent.  The next move and its child are worked out one iteration
ahead and kept in the loop's carry, so XLA computes the game's functions once a step.  The loop
runs until its last world is done; with ``lanes`` a few worlds are searched at a time and a lane
takes the next world when its own is done, so a batch costs about its total of steps rather
than its largest tree times its size.  With ``transpositions``, a table shared by the batch
(``core.transpositions``) keeps what each search found of the nodes ``Tree.transposes`` names,
so a node met again (by another order of the same plays, or in another root of the same world)
is settled from it where that is enough.

The stack is one int32 matrix ``[depth + 1, W]`` a world: a row per open node holding the node's
words, its untried moves, the window (alpha, beta), the best value found, the carried ``aux``
of the best line, whether the side to move maximises and the window it was opened with.  The
deepest open row lives in the carry; a step writes a row when it opens a child and reads one
when it closes a node.

Values are exact integers (points or chips), so the search is exact: with ``prune=True`` the
value is alpha-beta's, with ``prune=False`` every move is searched (the full tree: a reference
and a node count to compare with).  Moves are tried in ``Tree.order``'s order, lowest position
first by default; where several moves give the same value the first in that order is the
line taken, and ``aux`` (a second number the caller wants from the line played, such as
whether a bid is made) is read off that line: it equals the full tree's as long as the root
is searched with the full window, which ``alphabeta`` always does.  ``run_tails`` is the merge
of equivalent cards that a trick-taking game's ``Tree.moves`` can use.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Callable
from typing import Any, Generic, NamedTuple, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import bits
from spoilfive_jax.core import transpositions as tt
from spoilfive_jax.core.bits import Bits

N = TypeVar("N")  # a node: a pytree of 32-bit scalars (one world)
C = TypeVar("C")  # what one world's tree closes over

I32 = jnp.int32
INF = tt.INF  # beyond every value a tree may have (|value| < 2**30)
TRANSPOSITIONS = 1 << 18  # the games' transposition tables: 6 MB, shared by a batch
SMALL_TRANSPOSITIONS = 1 << 14  # 384 KB: in a core's cache (``transpositions_for``)


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
    ``order(node, untried: Bits) -> int32[]``: the next move to try (default: the lowest);
    ``bounds(node) -> (lo, hi)`` int32[]: values the node's cannot lie outside (default: none):
    a child whose bounds already fall outside its parent's window is not searched (its bound
    is what its search would have returned, so the value found is the same);
    ``transposes(node) -> bool[]``: the node may be reached by several lines (such as the start
    of a trick) and is worth an entry in the transposition table (``alphabeta``'s ``memory``).
    A node's value must be a function of its words and the world's ``ctx`` alone.
    """

    moves: Callable[[N], Bits]
    play: Callable[[N, jax.Array], N]
    leaf: Callable[[N], Leaf]
    maximise: Callable[[N], jax.Array]
    order: Callable[[N, Bits], jax.Array] | None = None
    bounds: Callable[[N], tuple[jax.Array, jax.Array]] | None = None
    transposes: Callable[[N], jax.Array] | None = None


class Solved(NamedTuple):
    """``alphabeta``'s result: int32[B], a number a world."""

    value: jax.Array  # the exact value for the maximising side
    aux: jax.Array  # ``Leaf.aux`` of the line found (the first best move at every node)
    nodes: jax.Array  # the children the search generated (its cost)


def run_tails(own: Bits, others: Bits, cut: Bits) -> Bits:
    """The cards of ``own`` whose nearest occupied position below, in ``own | others``, is
    also ``own``'s, not crossing a ``cut`` position (one that cannot follow the position below
    it: a suit's first, the edge of a privilege).  In a trick-taking game whose positions rank
    the cards within each suit, those cards are each equivalent to the one below them for the
    seat holding them (when ``others`` holds every card another seat holds and every played
    card that still matters), so a search need try only the lowest of each run."""

    def word(mine: jax.Array, theirs: jax.Array, stop: jax.Array) -> jax.Array:
        grow, through = mine, ~(mine | theirs) & ~stop
        for shift in (1, 2, 4, 8):  # fill upwards from own's cards through the empty positions
            grow = grow | (through & (grow << shift))
            through = through & (through << shift)
        return mine & (grow << 1) & ~stop

    return Bits(word(own.lo, others.lo, cut.lo), word(own.hi, others.hi, cut.hi))


def move_major(worlds: int, moves: int, block: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """(order, back) int[worlds * moves]: ``x[order]`` puts roots laid out world by world (a
    world's moves together, as an analysis tiles them) in move order, a ``block`` of worlds at
    a time (the block's first moves, then its second moves...), ``y[back]`` puts answers back.
    Searched in that order with ``lanes``, a world's later moves start once its first is done,
    while the transposition table still holds what that search found (the padded slots of a
    decision, which repeat its first legal move, then cost almost nothing).  A pimc decision's
    64 worlds are one block."""
    ids = np.arange(worlds * moves).reshape(worlds, moves)
    starts = range(0, worlds, block)
    order = np.concatenate([ids[s : s + block].T.reshape(-1) for s in starts])
    return order, np.argsort(order)


def root_twins(positions: jax.Array, tail: jax.Array, below: jax.Array) -> jax.Array:
    """int32[..., L]: for each of a world's L root moves, the move whose search gives its value:
    the first move of the same position (a padded repeat), or for a run's tail (``tail``: a
    move ``run_tails`` merges with the one below it) the move at position ``below`` (the
    mover's next card down), followed to the chain's end; its own index where neither (or
    where the move below is not one of the L).  ``positions`` int32[..., L]: each move's
    position in the tree's numbering; ``below`` int32[..., L]."""
    size = positions.shape[-1]
    own = jnp.arange(size, dtype=I32)
    first = jnp.argmax(positions[..., :, None] == positions[..., None, :], axis=-1).astype(I32)
    at_below = positions[..., None, :] == below[..., :, None]
    down = jnp.where(tail & at_below.any(-1), jnp.argmax(at_below, axis=-1).astype(I32), own)
    twin = jnp.where(first < own, first, down)
    for _ in range(size.bit_length()):  # (chains are acyclic: each link goes down or left)
        twin = jnp.take_along_axis(twin, twin, axis=-1)
    return twin


def transpositions_for(plies: int) -> int:
    """The transposition table's entries for solves of at most ``plies`` moves each:
    ``SMALL_TRANSPOSITIONS`` up to 20 (a whole hand at four seats), ``TRANSPOSITIONS`` beyond.
    A table that stays in the core's cache costs far less a step than one that does not, and
    it pays even where its overwrites search more nodes (384 whole hands at four seats on this
    CPU: 400 ms and 943,000 nodes against 487 ms and 849,000 with 2^18 entries); a whole hand
    at five seats or more has trees ten times larger, and there the large table wins (16 of
    Spoil Five's: 2.9 s against 3.9 s)."""
    return SMALL_TRANSPOSITIONS if plies <= 20 else TRANSPOSITIONS


def check_tricks(tricks: Any, most: int) -> int:
    """A solve's ``tricks`` as an int (``"all"``: ``most``, the whole hand), or a
    ``ValueError``: an integer from 1 to ``most``."""
    if isinstance(tricks, str) and tricks == "all":
        return most
    integral = isinstance(tricks, numbers.Integral) and not isinstance(tricks, bool)
    if not integral or not 1 <= tricks <= most:
        raise ValueError(
            f"solve_tricks must be an integer from 1 to {most} or 'all' (the whole hand), "
            f"got {tricks!r}"
        )
    return int(tricks)


# The columns of a stack row after the node's words.
_LO, _HI, _ALPHA, _BETA, _BEST, _AUX, _MAX, _ALPHA0, _BETA0 = range(9)
_WIDTH = 9


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
        alpha,
        beta,
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
    child: Any  # the node it leads to (``Tree.play``)
    settled: jax.Array  # bool[]: the child is settled (``Tree.leaf``)
    value: jax.Array  # int32[]
    aux: jax.Array  # int32[]
    moves_lo: jax.Array  # uint32[]: the child's moves (``Tree.moves``)
    moves_hi: jax.Array  # uint32[]
    maximise: jax.Array  # bool[]: the child's side to move maximises
    keyed: jax.Array  # bool[]: the child is looked up in the transposition table
    key: jax.Array  # uint32[3]: its key there (``core.transpositions``)


class _Carry(NamedTuple):
    """The search of one world (vmapped: [B] leading every field)."""

    stack: jax.Array  # int32[depth + 1, K + 9]: the open nodes below the top one
    row: jax.Array  # int32[K + 9]: the top (deepest open) node
    next: _Next
    top: jax.Array  # int32[]: the top node's depth
    nodes: jax.Array  # int32[]
    done: jax.Array  # bool[]
    value: jax.Array  # int32[]
    aux: jax.Array  # int32[]
    seed: jax.Array  # uint32[3]: where the world's keys start (``core.transpositions.seed``)


def _untried(row: jax.Array, k: int) -> Bits:
    return Bits(
        jax.lax.bitcast_convert_type(row[k + _LO], jnp.uint32),
        jax.lax.bitcast_convert_type(row[k + _HI], jnp.uint32),
    )


def _plan(
    tree: Tree[N], row: jax.Array, like: N, prune: bool, seed: jax.Array, memo: bool
) -> _Next:
    """The next move of the node of ``row`` and what its child is."""
    k = len(jax.tree.leaves(like))
    node, untried = _node(row[:k], like), _untried(row, k)
    move = tree.order(node, untried) if tree.order else bits.lowest(untried)
    child = tree.play(node, move)
    leaf, moves = tree.leaf(child), tree.moves(child)
    settled, value = leaf.settled, leaf.value
    if prune and tree.bounds is not None:  # a child that cannot reach into the window: its bound
        lo, hi = tree.bounds(child)
        low, high = hi <= row[k + _ALPHA], lo >= row[k + _BETA]
        settled = settled | low | high
        value = jnp.where(leaf.settled, value, jnp.where(low, hi, lo))
    maximise = tree.maximise(child)
    keyed, key = jnp.bool_(False), jnp.zeros(3, jnp.uint32)
    if memo and tree.transposes is not None:
        keyed, key = tree.transposes(child) & ~settled, tt.key(_words(child), seed)
    return _Next(move, child, settled, value, leaf.aux, moves.lo, moves.hi, maximise, keyed, key)


def _advance(tree: Tree[N], c: _Carry, like: N, prune: bool, memo: bool) -> tuple[_Carry, tt.Entry]:
    """One step of one world's search: try the planned move, or close the top node (and say
    what the transposition table learns: the closed node, where ``Tree.transposes``)."""
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
    moves = Bits(nx.moves_lo, nx.moves_hi)
    above = _row(nx.child, moves, row[k + _ALPHA], row[k + _BETA], nx.maximise)
    # No move left (or a cut): the top row's best goes to the row below, or is the answer; a
    # settled child that was the last move (or cut) closes its node in the same step.
    spent = ~bits.nonempty(left)
    if prune:
        spent = spent | (here[k + _ALPHA] >= here[k + _BETA])
    closed = (~open_ & ~c.done) | (open_ & nx.settled & spent)
    last = jnp.where(open_, here, row)  # (the node closed, where one is)
    pop = closed & (c.top > 0)
    under = jnp.maximum(c.top - 1, 0)
    under_row = c.stack[under]
    below = _fold(under_row, k, last[k + _BEST], last[k + _AUX])
    new = jnp.where(push, above, jnp.where(pop, below, jnp.where(open_, here, row)))
    finished = closed & (c.top == 0)
    stored = jnp.bool_(False)
    if memo and tree.transposes is not None:
        stored = closed & tree.transposes(_node(row[:k], like))
    entry = tt.Entry(
        stored, tt.key(row[:k], c.seed), last[k + _BEST], row[k + _ALPHA0], row[k + _BETA0],
        last[k + _AUX],
    )  # fmt: skip
    carry = _Carry(
        # (A write only where a child opens, of a row that depends on the row read, so XLA
        # writes the stack in place instead of copying it at every step.)
        stack=c.stack.at[jnp.where(push, c.top, c.stack.shape[0])].set(
            jnp.where(push, here, under_row), mode="drop"
        ),
        row=new,
        next=_plan(tree, new, like, prune, c.seed, memo),
        top=c.top + push.astype(I32) - pop.astype(I32),
        nodes=c.nodes + open_.astype(I32),
        done=c.done | finished,
        value=jnp.where(finished, last[k + _BEST], c.value),
        aux=jnp.where(finished, last[k + _AUX], c.aux),
        seed=c.seed,
    )
    return carry, entry


def _start(
    tree: Tree[N], root: N, depth: int, like: N, prune: bool, seed: jax.Array, memo: bool
) -> _Carry:
    """One world's search, set up at ``root``."""
    row = _row(root, tree.moves(root), I32(-INF), I32(INF), tree.maximise(root))
    settled = tree.leaf(root)
    stack = jnp.zeros((depth + 1, row.shape[0]), I32)
    zero = I32(0)
    plan = _plan(tree, row, like, prune, seed, memo)
    return _Carry(stack, row, plan, zero, zero, settled.settled, settled.value, settled.aux, seed)


class _Queue(NamedTuple):
    """The worlds waiting for a lane (``alphabeta``'s ``lanes``), and the answers so far."""

    lane_world: jax.Array  # int32[L]: the world each lane searches (its answer's index)
    next: jax.Array  # int32[]: the first world not yet handed to a lane
    value: jax.Array  # int32[B]
    aux: jax.Array  # int32[B]
    nodes: jax.Array  # int32[B]


def alphabeta(
    tree_of: Callable[[C], Tree[N]],
    ctx: C,
    roots: N,
    depth: int,
    prune: bool = True,
    lanes: int | None = None,
    transpositions: int = 0,
    skip: jax.Array | None = None,
) -> Solved:
    """The exact values of a batch of worlds (module docstring): ``roots`` [B] searched in the
    trees ``tree_of(ctx)`` (``ctx`` [B]: what each world's tree closes over, such as the hands
    and the seat it is solved for; ``tree_of`` sees one world).  ``depth``: the most moves from
    a root to a settled node.  ``prune=False`` searches every line (the full tree).

    The loop is written at the batch's level, not as ``vmap`` of a loop: a world that is done
    writes nothing, where a vmapped loop would select its whole stack at every step.

    ``lanes`` (< B): search that many worlds at a time, a lane taking the next world when its
    own is done (once an eighth of the lanes wait), so the batch costs about its total of
    steps over ``lanes`` rather than ``B`` times its largest search: worlds' trees differ in size
    by several times.  The values are the same either way.

    ``transpositions`` (a power of two; 0: none): the entries of a transposition table shared
    by the batch (``core.transpositions``), for the nodes ``Tree.transposes`` names: a node
    met again, by another line or in another world with the same ``ctx``, is valued from what
    its earlier search found where that settles it.  Only with ``prune``.  The values are the
    same; ``aux`` too (an entry's ``aux`` is used only where its value is exact).

    ``skip`` bool[B]: worlds not to search (the caller knows their values: a root move
    equivalent to another of the same world); each answers value 0, aux 0 and 0 nodes, and
    with ``lanes`` none takes a lane.

    Under ``jax.vmap`` (a batch of pimc decisions, each solving its own worlds) the vmapped
    batches are searched as one batch of all their worlds, with one queue and one table,
    rather than as a vmapped loop that would run every lane's hand-out and copy every table at
    each step."""
    if transpositions:
        tt.empty(transpositions)  # (a ValueError unless a power of two)

    if skip is None:
        b = jax.tree.leaves(roots)[0].shape[0]
        skip = jnp.zeros(b, jnp.bool_)

    @jax.custom_batching.custom_vmap
    def solve(ctx: C, roots: N, skip: jax.Array) -> Solved:
        return _alphabeta(tree_of, ctx, roots, skip, depth, prune, lanes, transpositions)

    @solve.def_vmap
    def _as_one_batch(
        size: int, batched: tuple[Any, Any, Any], ctx: C, roots: N, skip: jax.Array
    ) -> tuple[Solved, Any]:
        def flat(x: jax.Array, is_batched: bool) -> jax.Array:
            x = x if is_batched else jnp.broadcast_to(x, (size, *x.shape))
            return x.reshape((-1, *x.shape[2:]))

        ctx, roots, skip = (
            jax.tree.map(flat, t, m) for t, m in zip((ctx, roots, skip), batched, strict=True)
        )
        out = solve(ctx, roots, skip)
        every = jax.tree.map(lambda _: True, out)  # (each answer has the vmapped axis)
        return jax.tree.map(lambda x: x.reshape(size, -1), out), every

    return solve(ctx, roots, skip)


def _alphabeta(
    tree_of: Callable[[C], Tree[N]],
    ctx: C,
    roots: N,
    skip: jax.Array,
    depth: int,
    prune: bool,
    lanes: int | None,
    transpositions: int,
) -> Solved:
    """``alphabeta`` of one batch."""
    like = jax.tree.map(lambda x: x[0], roots)
    b = jax.tree.leaves(roots)[0].shape[0]
    probe = tree_of(jax.tree.map(lambda x: x[0], ctx))
    memo = prune and transpositions > 0 and probe.transposes is not None
    k = len(jax.tree.leaves(like))

    def start(c: C, root: N) -> _Carry:
        return _start(tree_of(c), root, depth, like, prune, tt.seed(c), memo)

    def step(c: _Carry, x: C, table: jax.Array) -> tuple[_Carry, jax.Array]:
        c, entry = jax.vmap(lambda c1, x1: _advance(tree_of(x1), c1, like, prune, memo))(c, x)
        if not memo:
            return c, table
        table = tt.remember(table, entry)
        nx = c.next
        alpha, beta = c.row[:, k + _ALPHA], c.row[:, k + _BETA]
        found, value, aux = tt.recall(table, nx.keyed, nx.key, alpha, beta)
        nx = nx._replace(
            settled=nx.settled | found,
            value=jnp.where(found, value, nx.value),
            aux=jnp.where(found, aux, nx.aux),
        )
        return c._replace(next=nx), table

    table = tt.empty(transpositions) if memo else tt.empty(1)
    if lanes is None or lanes >= b:
        first = jax.vmap(start)(ctx, roots)
        zero = jnp.zeros_like(first.value)
        first = first._replace(
            done=first.done | skip,
            value=jnp.where(skip, zero, first.value),
            aux=jnp.where(skip, zero, first.aux),
        )
        end, _ = jax.lax.while_loop(
            lambda c: ~c[0].done.all(), lambda c: step(c[0], ctx, c[1]), (first, table)
        )
        return Solved(end.value, end.aux, end.nodes)
    return _queued(start, step, ctx, roots, skip, b, lanes, table)


_Step = Callable[[_Carry, C, jax.Array], tuple[_Carry, jax.Array]]


def _queued(
    start: Callable[[C, N], _Carry],
    step: _Step,
    ctx: C,
    roots: N,
    skip: jax.Array,
    b: int,
    lanes: int,
    table: jax.Array,
) -> Solved:
    """``alphabeta`` with ``lanes`` worlds searched at a time (its docstring): the worlds not
    skipped are handed out in their order (``queue``), ``count`` of them."""
    queue = jnp.argsort(skip, stable=True).astype(I32)
    count = (~skip).sum().astype(I32)

    def take(tree: Any, index: jax.Array) -> Any:
        return jax.tree.map(lambda x: x[index], tree)

    def hand_out(carry: tuple[_Carry, C, _Queue]) -> tuple[_Carry, C, _Queue]:
        lane, lane_ctx, q = carry
        # Answers of the lanes just done, then each idle lane takes the next world, if any.
        finished = lane.done & (q.lane_world >= 0)
        at = jnp.where(finished, q.lane_world, b)
        q = q._replace(
            value=q.value.at[at].set(lane.value, mode="drop"),
            aux=q.aux.at[at].set(lane.aux, mode="drop"),
            nodes=q.nodes.at[at].set(lane.nodes, mode="drop"),
        )
        idle = lane.done
        slot = q.next + jnp.cumsum(idle) - 1
        gets = idle & (slot < count)
        world = queue[jnp.minimum(slot, b - 1)]
        new_ctx = take(ctx, world)
        fresh = jax.vmap(start)(new_ctx, take(roots, world))
        fresh = fresh._replace(stack=fresh.stack[:, :0])  # (the stacks stay out: ``body``)

        def pick(new: jax.Array, old: jax.Array) -> jax.Array:
            return jnp.where(gets.reshape(gets.shape + (1,) * (new.ndim - 1)), new, old)

        lane = jax.tree.map(pick, fresh, lane)
        lane_ctx = jax.tree.map(pick, new_ctx, lane_ctx)
        lane_world = jnp.where(gets, world, jnp.where(idle, -1, q.lane_world))
        q = q._replace(lane_world=lane_world, next=jnp.minimum(q.next + idle.sum(), count))
        return lane, lane_ctx, q

    def body(carry: tuple[_Carry, C, _Queue, jax.Array]) -> tuple[_Carry, C, _Queue, jax.Array]:
        lane, lane_ctx, q, table = carry
        lane, table = step(lane, lane_ctx, table)
        stack = lane.stack
        # A hand-out once an eighth of the lanes wait, while worlds wait for them, and once
        # every lane is done (the answers of lanes done meanwhile stay in their carries).
        idle = lane.done.sum()
        due = ((idle * 8 >= lanes) & (q.next < count)) | (idle == lanes)
        # (The stacks stay out of the cond, which would copy them at every step: a fresh
        # world starts at depth 0 and writes its rows before it reads them.)
        rest = (lane._replace(stack=stack[:, :0]), lane_ctx, q)
        lane, lane_ctx, q = jax.lax.cond(due, hand_out, lambda c: c, rest)
        return lane._replace(stack=stack), lane_ctx, q, table

    first = queue[:lanes]
    lane_ctx = take(ctx, first)
    zero = jnp.zeros(b, I32)
    busy = jnp.arange(lanes) < count
    q = _Queue(jnp.where(busy, first, -1), jnp.minimum(count, lanes), zero, zero, zero)
    lane = jax.vmap(start)(lane_ctx, take(roots, first))
    carry = (lane._replace(done=lane.done | ~busy), lane_ctx, q, table)
    _, _, q, _ = jax.lax.while_loop(lambda c: (c[2].lane_world >= 0).any(), body, carry)
    return Solved(q.value, q.aux, q.nodes)


__all__ = [
    "INF",
    "TRANSPOSITIONS",
    "Leaf",
    "Solved",
    "Tree",
    "alphabeta",
    "check_tricks",
    "root_twins",
    "run_tails",
    "transpositions_for",
]
