"""The ``Analysis`` capability: worlds consistent with what a seat knows, and playouts.

What seat p knows of the cards it cannot see: every card neither in its hand, nor played, nor
the trump card is unseen; seat x holds ``count(hands[x])`` of them (public: T less the cards it
played), none of a suit it has shown it is void in (it did not follow that suit:
``State.cannot_hold``), and the rest of the unseen cards were never dealt.

``resample_hidden`` draws a world uniformly from every deal of the unseen cards that fits
(``deal_unseen``): a weighted rejection sampler.  A try deals the seats one at a time, the most
constrained first, each taking a uniform subset of the unseen cards it may hold that are still
free, so a try always respects the voids; it is accepted with probability (its number of
choices) / (an upper bound of that number), which makes the accepted deals exactly uniform.
Without voids every try is accepted.

``playout`` applies each candidate action and plays the hand out with a policy at every seat
(``core.resample.play_out``, through the public step, ``core.transition.transition``); its
values for the player are the points scored (``expected_points``, what ``sf.analyze`` maximises) and
whether the bid was made.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.resample import play_out
from spoilfive_jax.core.transition import transition
from spoilfive_jax.core.tricks import seat_bits
from spoilfive_oh_hell import game
from spoilfive_oh_hell.rules import NUM_CARDS
from spoilfive_oh_hell.state import State

FIELDS = ("expected_points", "bid_made_prob")
LABELS = {"expected_points": "points", "bid_made_prob": "P(bid made) %"}
_ALL = bits.const(range(NUM_CARDS))
MAX_ROUNDS = 1024


# ---------------------------------------------------------------------------- the sampler


def _u24(key: jax.Array, shape: tuple[int, ...]) -> jax.Array:
    return jax.random.bits(key, shape, jnp.uint32) >> 8


def _log_choose(a: jax.Array, k: jax.Array, most: int) -> jax.Array:
    """log C(a, k) for 0 <= k <= ``most`` (-inf when a < k)."""
    out = jnp.float32(0.0)
    for t in range(most):
        term = jnp.log(jnp.maximum(a - t, 0).astype(jnp.float32)) - jnp.log(jnp.float32(t + 1))
        out = out + jnp.where(t < k, term, 0.0)
    return out


def _pick(avail: Bits, k: jax.Array, u: jax.Array, most: int) -> Bits:
    """A uniform ``k``-subset of ``avail`` (k <= ``most``) from 24-bit draws ``u[most]``."""
    picked, left = Bits(jnp.uint32(0), jnp.uint32(0)), bits.count(avail)
    for t in range(most):
        on = (t < k) & (left > 0)
        i = ((u[t] * jnp.maximum(left, 1).astype(jnp.uint32)) >> 24).astype(jnp.int32)
        card = bits.where(on, bits.bit(bits.nth(avail, i)), Bits(jnp.uint32(0), jnp.uint32(0)))
        picked, avail, left = picked | card, avail.without(card), left - on.astype(jnp.int32)
    return picked


def _try(
    key: jax.Array, unseen: Bits, sizes: jax.Array, allowed: Bits, most: int
) -> tuple[Bits, jax.Array, jax.Array]:
    """One proposal: (the seats' cards uint32[N] x 2, valid, accepted)."""
    n = sizes.shape[0]
    u = _u24(key, (n * most + 1,))
    caps = bits.count(allowed)
    order = jnp.argsort(jnp.where(sizes > 0, caps, 1 << 10), stable=True)
    total = bits.count(unseen)

    def seat(carry: tuple[Bits, jax.Array], i: jax.Array) -> tuple:
        rem, log_w = carry
        x = order[i]
        avail = rem & Bits(allowed.lo[x], allowed.hi[x])
        log_w = log_w + _log_choose(bits.count(avail), sizes[x], most)
        got = _pick(avail, sizes[x], jax.lax.dynamic_slice(u, (i * most,), (most,)), most)
        return (rem.without(got), log_w), got

    scanned: tuple[tuple[Bits, jax.Array], Bits] = jax.lax.scan(
        seat, (unseen, jnp.float32(0.0)), jnp.arange(n)
    )
    (_, log_w), got = scanned
    back = jnp.argsort(order)
    hands = Bits(got.lo[back], got.hi[back])
    k = sizes[order]
    before = jnp.cumsum(k) - k
    log_b = jax.vmap(lambda a, kk: _log_choose(a, kk, most))(
        jnp.minimum(caps[order], total - before), k
    ).sum()
    valid = jnp.isfinite(log_w)
    unit = (u[-1].astype(jnp.float32) + 0.5) * jnp.float32(2.0**-24)
    return hands, valid, valid & (jnp.log(unit) <= log_w - log_b + 1e-5)


def deal_unseen(
    key: jax.Array, unseen: Bits, sizes: jax.Array, allowed: Bits, most: int
) -> tuple[Bits, jax.Array]:
    """(cards uint32[N] x 2, exact): seat x gets ``sizes[x]`` (<= ``most``) cards of ``unseen``
    within ``allowed[x]``, uniformly over every such deal.  ``exact`` is False only when no try
    of ``MAX_ROUNDS`` was accepted (then the last valid try, else the last try)."""

    def cond(carry: tuple[jax.Array, Bits, jax.Array, jax.Array]) -> jax.Array:
        i, _, _, done = carry
        return ~done & (i < MAX_ROUNDS)

    def body(carry: tuple[jax.Array, Bits, jax.Array, jax.Array]) -> tuple:
        i, hands, any_valid, _ = carry
        new, valid, accepted = _try(jax.random.fold_in(key, i), unseen, sizes, allowed, most)
        keep = any_valid & ~valid
        return i + 1, bits.where(keep, hands, new), any_valid | valid, accepted

    n = sizes.shape[0]
    none = Bits(jnp.zeros(n, jnp.uint32), jnp.zeros(n, jnp.uint32))
    start = (jnp.int32(0), none, jnp.bool_(False), jnp.bool_(False))
    _, hands, _, done = jax.lax.while_loop(cond, body, start)
    return hands, done


# ---------------------------------------------------------------------------- worlds


def hidden(state: State, player: jax.Array) -> tuple[Bits, jax.Array, Bits, Bits]:
    """(unseen cards, cards of them each seat holds int32[N], the cards each seat may hold
    uint32[N] x 2, ``player``'s own hand as a per-seat set) from what ``player`` knows."""
    n = state.num_players
    seats = jnp.arange(n)
    p = jnp.asarray(player, jnp.int32)
    mine = seat_bits(state.hands, p)
    seen = mine | state.played | bits.bit(state.trump_card)
    unseen = Bits(jnp.uint32(_ALL.lo), jnp.uint32(_ALL.hi)).without(seen)
    sizes = jnp.where(seats == p, 0, bits.count(state.hands))
    allowed = Bits(unseen.lo & ~state.cannot_hold.lo, unseen.hi & ~state.cannot_hold.hi)
    zero = jnp.uint32(0)
    own = Bits(jnp.where(seats == p, mine.lo, zero), jnp.where(seats == p, mine.hi, zero))
    return unseen, sizes, allowed, own


def resample_hidden(env: Any, key: jax.Array, state: State, player: Any) -> State:
    """One hand, jittable: a world drawn uniformly from the deals consistent with what
    ``player`` knows (its hand and the public record are kept, the other hands re-dealt)."""
    unseen, sizes, allowed, own = hidden(state, player)
    dealt, _ = deal_unseen(key, unseen, sizes, allowed, env.rules.num_tricks)
    world = state.replace(hands=own | dealt)
    return game.with_legal(world, env.rules)


def resample_hidden_many(env: Any, key: jax.Array, state: State, player: Any, count: int) -> State:
    """``count`` independent worlds (leading axis [count])."""
    keys = jax.random.split(key, count)
    return jax.vmap(lambda k: resample_hidden(env, k, state, player))(keys)  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- playouts


def analysis_fields(env: Any) -> tuple[str, ...]:
    """``expected_points`` (maximised by ``best``), ``bid_made_prob`` (a probability: its name
    ends in ``_prob``, so tables show it in %)."""
    return FIELDS


def analysis_labels(env: Any) -> dict[str, str]:
    return dict(LABELS)


def max_legal_actions(env: Any) -> int:
    """The bids 0..T (a hand holds at most T cards)."""
    return int(env.rules.num_tricks) + 1


def playout(
    env: Any,
    keys: jax.Array,
    states: State,
    actions: jax.Array,
    player: jax.Array,
    policy: Any,
) -> dict[str, jax.Array]:
    """Apply each of ``actions`` int32[B, L] to ``states`` [B] and play every hand out with
    ``policy`` (a built-in name or a jittable policy) at every seat; float32[B, L] per field of
    ``FIELDS`` for ``player`` int32[B].  ``keys`` [B]: one per state, shared by its L
    playouts (common random numbers)."""
    fn = env.builtin_policy(policy) if isinstance(policy, str) else policy
    b, width = actions.shape

    def tile(x: jax.Array) -> jax.Array:
        return jnp.repeat(x, width, axis=0)

    step = functools.partial(transition, env)  # the public step, unjitted (we are traced)
    after = jax.vmap(step)(jax.tree.map(tile, states), actions.reshape(-1))
    final, total = play_out(tile(keys), after, fn, step)
    p = tile(jnp.asarray(player, jnp.int32))[:, None]
    points = jnp.take_along_axis(total, p, axis=1)[:, 0]
    made = jnp.take_along_axis(final.tricks_won == final.bids, p, axis=1)[:, 0] & ~final.illegal
    out = {"expected_points": points, "bid_made_prob": made.astype(jnp.float32)}
    return {k: v.reshape(b, width).astype(jnp.float32) for k, v in out.items()}
