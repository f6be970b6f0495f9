"""Exact uniform sampling of hidden cards under per-seat constraints (jittable, one hand).

The observer cannot see a set U of cards.  Each other seat holds ``sizes[x]`` of them now and
may hold only ``allowed[x]`` (U less what its plays showed it does not hold); the rest of U lies
face down elsewhere (the stock, discards), with no constraint.  Optionally one card
(``bound_card``) must lie in ``bound_seat``'s hand or in its one hidden discard: the ace of
trumps after that seat robbed (it held the ace at the deal).

``deal_hidden`` draws a deal uniformly over every assignment that satisfies all of this.  Each
try deals the seats one at a time (the most constrained first), each taking a uniform subset of
its allowed cards still free, so a try is always consistent; the try is then accepted with
probability (its number of choices) / (an upper bound of it), which turns the sequential
proposal into the exact uniform distribution (rejection sampling with an exact weight).  Seats
without constraints and the unconstrained discard cost no rejection, so the acceptance rate is 1
without constraints and stays high with them; ``tries`` proposals run side by side per round
(1 by default: under ``vmap`` the loop runs as long as the slowest hand needs, and one try a
round measured fastest).  A try's uniform numbers come from a counter hash of a threefry key
(``core.deal.key_draws``), one key a round.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.deal import ace_holder, entitled_to_rob, key_draws
from spoilfive_jax.core.env import PolicyFn, S, call_policy

MAX_HIDDEN = 5  # most hidden cards in one seat's hand


class HiddenSpec(NamedTuple):
    """What an observer cannot see and the constraints on it (one hand; N seats)."""

    unseen: Bits  # uint32[] x 2: U, every card the observer cannot see
    sizes: jax.Array  # int32[N]: cards of U each seat holds now (0 for the observer), <= 5
    allowed: Bits  # uint32[N] x 2: cards of U each seat may hold
    bound_card: jax.Array  # int32[]: a card of U that must be in bound_seat's hand or its
    #   hidden discard (-1: none)
    bound_seat: jax.Array  # int32[]
    has_discard: jax.Array  # bool[]: a one-card hidden discard slot exists (bound_seat's)


class HiddenDeal(NamedTuple):
    """A deal of U: each seat's hidden cards, the discard slot's card, and the rest."""

    hands: Bits  # uint32[N] x 2: the cards of U dealt to each seat
    discard: jax.Array  # int32[]: the discard slot's card (-1 when there is no slot)
    rest: Bits  # uint32[] x 2: U less the hands and the discard (stock, other discards)
    exact: jax.Array  # bool[]: an accepted try (False only if every try of every round failed)


def _unit(u24: jax.Array) -> jax.Array:
    """A uniform float in (0, 1) from a 24-bit draw."""
    return (u24.astype(jnp.float32) + 0.5) * jnp.float32(2.0**-24)


def _pick(avail: Bits, count: jax.Array, u: jax.Array) -> Bits:
    """A uniform ``count``-subset (count <= MAX_HIDDEN) of ``avail`` from u24 draws u[5]."""

    def one(t: jax.Array, carry: tuple[Bits, Bits, jax.Array]) -> tuple[Bits, Bits, jax.Array]:
        picked, avail, left = carry
        on = (t < count) & (left > 0)
        k = ((u[t] * jnp.maximum(left, 1).astype(jnp.uint32)) >> 24).astype(jnp.int32)
        c = bits.nth(avail, jnp.minimum(k, jnp.maximum(left - 1, 0)))
        b = bits.where(on, bits.bit(c), Bits(jnp.uint32(0), jnp.uint32(0)))
        return picked | b, avail.without(b), left - on.astype(jnp.int32)

    zero = Bits(jnp.uint32(0), jnp.uint32(0))
    picked, _, _ = jax.lax.fori_loop(0, MAX_HIDDEN, one, (zero, avail, bits.count(avail)))
    return picked


_LOG_CHOOSE = np.array(  # log C(a, k) for a <= 64, k <= MAX_HIDDEN (-inf when a < k)
    [
        [math.log(math.comb(a, k)) if k <= a else -math.inf for k in range(MAX_HIDDEN + 1)]
        for a in range(65)
    ],
    np.float32,
).reshape(-1)


def _log_choose(a: jax.Array, k: jax.Array) -> jax.Array:
    """log C(a, k) for 0 <= a <= 64, 0 <= k <= MAX_HIDDEN (-inf when a < k): one table
    lookup instead of five logs."""
    return jnp.asarray(_LOG_CHOOSE)[jnp.clip(a, 0, 64) * (MAX_HIDDEN + 1) + k]


def _bound(order: jax.Array, caps: jax.Array, sizes: jax.Array, total: jax.Array) -> jax.Array:
    """log of an upper bound of the sequential proposal's choices for seat sizes ``sizes``."""
    k = sizes[order]
    before = jnp.cumsum(k) - k
    return _log_choose(jnp.minimum(caps[order], total - before), k).sum()


def _draws_per_try(spec: HiddenSpec) -> int:
    return spec.sizes.shape[0] * MAX_HIDDEN + 3


def _try(draws: jax.Array, spec: HiddenSpec) -> tuple[HiddenDeal, jax.Array]:
    """One proposal from ``draws`` (uint32[_draws_per_try(spec)] of ``core.deal.key_draws``)
    and whether it is accepted."""
    n = spec.sizes.shape[0]
    u_seats = draws[: n * MAX_HIDDEN].reshape(n, MAX_HIDDEN)
    u_branch, u_acc, u_disc = (draws[n * MAX_HIDDEN + i] for i in range(3))
    bc = spec.bound_card
    active = (bc >= 0) & bits.has(spec.unseen, jnp.maximum(bc, 0))
    bc_bit = bits.where(active, bits.bit(jnp.maximum(bc, 0)), Bits(jnp.uint32(0), jnp.uint32(0)))
    r = jnp.maximum(spec.bound_seat, 0)
    k_r = spec.sizes[r]
    seats = jnp.arange(n)
    # The bound card goes to the bound seat's hand (prob k_r / (k_r + 1): its share of the
    # seat's k_r + 1 hidden places when nothing else constrains it) or to the discard slot.
    r_may = bits.has(Bits(spec.allowed.lo[r], spec.allowed.hi[r]), jnp.maximum(bc, 0)) & (k_r >= 1)
    p_hand = jnp.where(r_may, jnp.where(spec.has_discard, k_r / (k_r + 1.0), 1.0), 0.0).astype(
        jnp.float32
    )
    to_hand = _unit(u_branch) < p_hand
    log_q = jnp.where(active, jnp.log(jnp.where(to_hand, p_hand, 1.0 - p_hand)), 0.0)

    pool = spec.unseen.without(bc_bit)
    total = bits.count(pool)
    allowed = Bits(spec.allowed.lo & pool.lo, spec.allowed.hi & pool.hi)
    caps = bits.count(allowed)  # int32[N]
    sizes_hand = spec.sizes - ((seats == r) & active).astype(jnp.int32)
    sizes = jnp.where(active & to_hand, sizes_hand, spec.sizes)
    disc_need = spec.has_discard & ~(active & ~to_hand)
    order = jnp.argsort(jnp.where(spec.sizes > 0, caps, 1 << 10), stable=True)

    def seat_step(carry: tuple[Bits, jax.Array], i: jax.Array) -> tuple:
        rem, log_w = carry
        x = order[i]
        k = sizes[x]
        avail = rem & Bits(allowed.lo[x], allowed.hi[x])
        log_w = log_w + _log_choose(bits.count(avail), k)
        got = _pick(avail, k, u_seats[i])
        return (rem.without(got), log_w), (x, got)

    scanned: tuple[tuple[Bits, jax.Array], tuple[jax.Array, Bits]] = jax.lax.scan(
        seat_step, (pool, jnp.float32(0.0)), jnp.arange(n)
    )
    (rem, log_w), (xs, got) = scanned
    inverse = jnp.argsort(xs)
    out_lo, out_hi = got.lo[inverse], got.hi[inverse]
    # The discard slot: a uniform card of what is left (a constant number of choices).
    left = bits.count(rem)
    kd = ((u_disc * jnp.maximum(left, 1).astype(jnp.uint32)) >> 24).astype(jnp.int32)
    free_card = bits.nth(rem, jnp.minimum(kd, jnp.maximum(left - 1, 0)))
    disc = jnp.where(disc_need, free_card, jnp.where(active & ~to_hand, bc, -1))
    rem = bits.where(disc_need, rem.without(bits.bit(free_card)), rem)
    bound_to_hand = active & to_hand
    out_lo = jnp.where((seats == r) & bound_to_hand, out_lo | bc_bit.lo, out_lo)
    out_hi = jnp.where((seats == r) & bound_to_hand, out_hi | bc_bit.hi, out_hi)
    valid = jnp.isfinite(log_w) & (~disc_need | (left > 0))
    log_w = log_w + jnp.where(disc_need, jnp.log(jnp.maximum(left, 1).astype(jnp.float32)), 0.0)

    # Bound: the largest weight any try can have (each branch's bound over its proposal prob).
    def disc_term(need: jax.Array, seat_sizes: jax.Array) -> jax.Array:
        free = jnp.maximum(total - seat_sizes.sum(), 1).astype(jnp.float32)
        return jnp.where(need, jnp.log(free), 0.0)

    # (The seat bounds depend on the spec only, not on the try: computed once per round.)
    seats_hand, seats_all = (
        _bound(order, caps, sizes_hand, total),
        _bound(order, caps, spec.sizes, total),
    )
    b_hand = (
        seats_hand + disc_term(spec.has_discard, sizes_hand) - jnp.log(jnp.maximum(p_hand, 1e-30))
    )
    b_disc = seats_all - jnp.log(jnp.maximum(1.0 - p_hand, 1e-30))
    both = active & (p_hand > 0) & (p_hand < 1)
    b_one = jnp.where(active & to_hand, seats_hand, seats_all) + disc_term(disc_need, sizes)
    log_b = jnp.where(both, jnp.maximum(b_hand, b_disc), b_one)  # one branch: q is 1
    accept = valid & (jnp.log(_unit(u_acc)) <= log_w - log_q - log_b + 1e-5)
    deal = HiddenDeal(Bits(out_lo, out_hi), disc.astype(jnp.int32), rem, accept)
    return deal, valid


def deal_hidden(
    key: jax.Array, spec: HiddenSpec, tries: int = 1, max_rounds: int = 1024
) -> HiddenDeal:
    """A deal of the hidden cards, uniform over every deal that satisfies ``spec``.

    Rounds of ``tries`` proposals run until one is accepted (a ``while_loop``; under ``vmap``
    it runs as long as the slowest hand needs; acceptance rates measured on heuristic games are
    0.16 to 1).  After ``max_rounds`` rounds without an accepted
    try (only for a spec with no consistent deal, or a vanishing acceptance rate) it returns a
    valid try if it met one, with ``exact`` False.
    """

    def round_(i: jax.Array) -> tuple[HiddenDeal, jax.Array]:
        m = _draws_per_try(spec)
        round_key = jax.random.fold_in(key, i)
        deals, valid = jax.vmap(lambda t: _try(key_draws(round_key, t * m, m), spec))(
            jnp.arange(tries)
        )
        j = jnp.where(deals.exact.any(), jnp.argmax(deals.exact), jnp.argmax(valid))
        return jax.tree.map(lambda x: x[j], deals), valid.any()

    def cond(carry: tuple[jax.Array, HiddenDeal, jax.Array]) -> jax.Array:
        i, deal, _ = carry
        return ~deal.exact & (i < max_rounds)

    def body(carry: tuple[jax.Array, HiddenDeal, jax.Array]) -> tuple:
        i, deal, any_valid = carry
        new, valid = round_(i)
        keep_old = any_valid & ~valid & ~new.exact
        deal = jax.tree.map(lambda a, b: jnp.where(keep_old, a, b), deal, new)
        return i + 1, deal, any_valid | valid

    n = spec.sizes.shape[0]
    zero = jnp.uint32(0)
    none = HiddenDeal(
        Bits(jnp.zeros(n, jnp.uint32), jnp.zeros(n, jnp.uint32)),
        jnp.int32(-1),
        Bits(zero, zero),
        jnp.bool_(False),
    )
    _, deal, _ = jax.lax.while_loop(cond, body, (jnp.int32(0), none, jnp.bool_(False)))
    return deal


def deal_hidden_many(
    key: jax.Array, spec: HiddenSpec, count: int, max_rounds: int = 1024
) -> HiddenDeal:
    """``count`` independent deals of the hidden cards, each uniform over the deals that
    satisfy ``spec`` (leading axis [count]).

    Pooled rejection: each round makes ``count`` proposals (lane l of round r from the draws
    ``l * m`` on of ``fold_in(key, r)``'s stream, ``core.deal.key_draws``; m draws a try) and
    the accepted ones fill the free slots in (round, lane) order.  Accepted proposals are
    independent exact draws and their order does not depend on their values, so every slot is
    an exact independent draw; the loop runs until all slots are filled, which takes about
    1 / (acceptance rate) rounds, where ``count`` separate ``deal_hidden`` calls under ``vmap``
    wait for the unluckiest of ``count`` geometric waits.
    After ``max_rounds`` rounds (only for a spec with no consistent deal, or a vanishing
    acceptance rate) the unfilled slots take a valid try if one was met, with ``exact`` False.
    """
    n = spec.sizes.shape[0]
    lanes = jnp.arange(count)

    def propose(i: jax.Array) -> tuple[HiddenDeal, jax.Array]:
        round_key = jax.random.fold_in(key, i)
        m = _draws_per_try(spec)
        return jax.vmap(lambda lane: _try(key_draws(round_key, lane * m, m), spec))(lanes)

    def cond(carry: tuple[Any, ...]) -> jax.Array:
        i, filled = carry[0], carry[1]
        return (filled < count) & (i < max_rounds)

    def body(carry: tuple[Any, ...]) -> tuple[Any, ...]:
        i, filled, out, spare, have_spare = carry
        deals, valid = propose(i)
        acc = deals.exact
        slot = jnp.where(acc, filled + jnp.cumsum(acc) - 1, count)
        out = jax.tree.map(lambda o, d: o.at[slot].set(d, mode="drop"), out, deals)
        first = jnp.argmax(valid)
        take = ~have_spare & valid.any()
        spare = jax.tree.map(lambda a, d: jnp.where(take, d[first], a), spare, deals)
        return i + 1, filled + acc.sum(), out, spare, have_spare | valid.any()

    zero = jnp.uint32(0)
    none = HiddenDeal(
        Bits(jnp.zeros(n, jnp.uint32), jnp.zeros(n, jnp.uint32)),
        jnp.int32(-1),
        Bits(zero, zero),
        jnp.bool_(False),
    )
    empty = jax.tree.map(lambda x: jnp.broadcast_to(x, (count, *jnp.shape(x))), none)
    start = (jnp.int32(0), jnp.int32(0), empty, none, jnp.bool_(False))
    _, filled, out, spare, _ = jax.lax.while_loop(cond, body, start)
    unfilled = lanes >= filled
    return jax.tree.map(
        lambda o, s: jnp.where(unfilled.reshape((-1,) + (1,) * (o.ndim - 1)), s, o), out, spare
    )


# The robbing games (Spoil Five, the Forty-Five family) share what robbing the turn-up with the
# ace of trumps tells the other seats; each game's ``infer.hidden_spec`` works out the cases
# (``nobody``, ``bound``) from its own phases and rules and builds its spec here.


def rob_spec(
    unseen: Bits,
    sizes: jax.Array,
    cannot_hold: Bits,
    ace: jax.Array,
    robbed_by: jax.Array,
    nobody: jax.Array,
    bound: jax.Array,
    has_discard: jax.Array,
) -> HiddenSpec:
    """The ``HiddenSpec`` of a robbing game: the ``unseen`` cards dealt in ``sizes`` int32[N]
    away from the public record ``cannot_hold`` uint32[N] x 2; the ace of trumps ``ace`` held
    by nobody when ``nobody`` (no seat had a rob decision) and, when ``bound`` (another seat had
    the rob decision), by that seat ``robbed_by`` or, given ``has_discard`` (it robbed), its
    unseen discard."""
    seats = jnp.arange(sizes.shape[0])
    ace_bit = bits.bit(ace)
    extra = bits.where(nobody, ace_bit, Bits(jnp.uint32(0), jnp.uint32(0)))
    not_robber = seats != robbed_by
    ex_lo = extra.lo | jnp.where(bound & not_robber, ace_bit.lo, jnp.uint32(0))
    ex_hi = extra.hi | jnp.where(bound & not_robber, ace_bit.hi, jnp.uint32(0))
    allowed = Bits(unseen.lo & ~cannot_hold.lo & ~ex_lo, unseen.hi & ~cannot_hold.hi & ~ex_hi)
    return HiddenSpec(
        unseen=unseen,
        sizes=sizes.astype(jnp.int32),
        allowed=allowed,
        bound_card=jnp.where(bound, ace, -1).astype(jnp.int32),
        bound_seat=jnp.maximum(robbed_by, 0).astype(jnp.int32),
        has_discard=has_discard,
    )


def unrobbed_robber(state: Any, hands: Bits, ace: jax.Array) -> jax.Array:
    """The ``robber`` field of a resampled world in which nobody robbed (it is hidden then):
    the dealer for a turned-up ace, the world's holder of the ace of trumps ``ace`` in
    ``hands``, or, once the ace was played, the seat that played it (kept: that play is
    public).  ``state``: the hand's state (``turnup``, ``dealer``, ``played``, ``robber``)."""
    holder = jnp.where(bits.has(state.played, ace), state.robber, ace_holder(hands, ace))
    return entitled_to_rob(state.turnup, state.dealer, holder)


def play_out(
    keys: jax.Array, states: S, policy: PolicyFn, step_one: Callable[[S, jax.Array], S]
) -> tuple[S, jax.Array]:
    """Plays a batch of hands ``states`` [B] to their ends with the jittable ``policy`` at every
    seat through ``step_one`` (the env's step of one hand), the key of decision t of hand b
    ``fold_in(keys[b], t)``: (the final states, the rewards summed over the steps [B, N])."""
    step = jax.vmap(step_one)

    def live(carry: tuple[S, jax.Array, jax.Array]) -> jax.Array:
        return (~carry[0].terminated).any()

    def body(carry: tuple[S, jax.Array, jax.Array]) -> tuple[S, jax.Array, jax.Array]:
        state, total, t = carry
        ks = jax.vmap(lambda k: jax.random.fold_in(k, t))(keys)
        one = functools.partial(call_policy, policy)  # checked when traced
        action = jax.vmap(one)(ks, state, jnp.maximum(state.current_player, 0))
        state = step(state, jnp.asarray(action, jnp.int32))
        return state, total + state.rewards, t + 1

    state, total, _ = jax.lax.while_loop(live, body, (states, states.rewards, jnp.int32(0)))
    return state, total
