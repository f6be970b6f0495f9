"""What a Spoil Five player knows, consistent resampling of what it does not, and playouts.

``hidden_spec(state, player, rules)`` reads ONLY what ``player`` knows (its own hand, its own rob
discard if it robbed, and the public record: the turn-up, the cards played, the robber, the
per-seat ``cannot_hold`` record, hand sizes) and states the constraints on the unseen cards:

- each other seat holds none of the cards its plays showed it does not hold
  (``State.cannot_hold``, docs/rules.md#reneging under the rules in force: follow, renege);
- a seat that robbed an ace of trumps that was not turned up held that ace at the deal: the ace
  is in its hand or is its (hidden) discard, and nobody else holds it; the robber holds the
  turn-up until it plays it;
- the rob decision is public (its seat acts: it robs or declines), so the seat that had it
  was dealt the ace of trumps (it holds it, or it is its discard, until it plays it), and a
  hand with no rob decision dealt that ace to nobody (it is in the stock).

``resample_hidden`` draws a full ``State`` uniformly from the deals consistent with that
(``core.resample.deal_hidden``): the unseen cards are re-dealt to the other hands, the rob
discard and the stock.  ``playout`` plays batches of such states to the end on the fast kernel
(built-in policies) or with the env's step (any jittable policy).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax.core.bits as bits
import spoilfive_jax.games.spoil_five.fast as fast
import spoilfive_jax.games.spoil_five.game as game
import spoilfive_jax.games.spoil_five.view as view
from spoilfive_jax.core import record
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import NUM_CARDS
from spoilfive_jax.core.keys import as_counter
from spoilfive_jax.core.resample import (
    HiddenDeal,
    HiddenSpec,
    deal_hidden,
    deal_hidden_many,
    rob_spec,
)
from spoilfive_jax.core.transition import transition
from spoilfive_jax.core.tricks import seat_bits
from spoilfive_jax.games.spoil_five.game import State
from spoilfive_jax.games.spoil_five.policies import (
    BUILTIN,
    BuiltinPolicy,
    heuristic_position,
)
from spoilfive_jax.games.spoil_five.rules import Rules

_ALL = bits.const(range(NUM_CARDS))
MAX_LEGAL = 6  # five cards and PASS (a rob decision); play has at most 5, a jink 2
FIELDS = ("expected_chips", "win_prob", "spoil_prob")


def analysis_fields(env: Any) -> tuple[str, ...]:
    """``FIELDS``: the seat's net chips, the chance it takes the pot, the chance of a spoil."""
    return FIELDS


def analysis_labels(env: Any) -> dict[str, str]:
    """Table headings of ``FIELDS``."""
    return {"expected_chips": "chips", "win_prob": "win %", "spoil_prob": "spoil %"}


def max_legal_actions(env: Any) -> int:
    """``MAX_LEGAL``."""
    return MAX_LEGAL


def _zero() -> Bits:
    return Bits(jnp.uint32(0), jnp.uint32(0))


def hidden_spec(state: State, player: jax.Array | int, rules: Rules) -> tuple[HiddenSpec, Bits]:
    """(the constraints on what ``player`` cannot see, the cards it knows each seat holds).

    The second value (uint32[N] x 2) is ``player``'s own hand and the robbed turn-up while its
    robber still holds it.  Reads neither the other hands nor another seat's discard.
    """
    n = state.tricks_won.shape[0]
    seats = jnp.arange(n)
    p = jnp.asarray(player, jnp.int32)
    mine = seat_bits(state.hands, p)
    turn = bits.bit(state.turnup)
    robbed_by = jnp.where(state.robbed, state.robber, -1)
    own_discard = bits.where(
        state.robbed & (state.robber == p) & (state.discard >= 0),
        bits.bit(jnp.maximum(state.discard, 0)),
        _zero(),
    )
    seen = mine | state.played | turn | own_discard
    unseen = Bits(jnp.uint32(_ALL.lo), jnp.uint32(_ALL.hi)).without(seen)
    turn_held = state.robbed & ~bits.has(state.played, state.turnup)
    counts = bits.count(state.hands)  # public: 5 less the cards each seat played
    sizes = counts - ((seats == robbed_by) & turn_held).astype(jnp.int32)
    sizes = jnp.where(seats == p, 0, sizes)

    ace = state.trump * 13  # the ace of trumps (A♥ when hearts)
    turned_ace = state.turnup % 13 == 0
    if rules.rob == "off":
        nobody = jnp.bool_(False)
        bound = jnp.bool_(False)
    else:
        # The rob decision is public (its seat acts, robbing or declining), so its seat was
        # dealt the ace of trumps; a hand with no rob decision dealt the ace to nobody.
        shown = state.robber >= 0
        nobody = ~shown & ~turned_ace
        bound = shown & (state.robber != p) & ~turned_ace
    has_discard = state.robbed & (state.robber != p)
    holder = jnp.where(bound, state.robber, robbed_by)
    spec = rob_spec(unseen, sizes, state.cannot_hold, ace, holder, nobody, bound, has_discard)
    known_lo = jnp.where(seats == p, mine.lo, jnp.uint32(0))
    known_hi = jnp.where(seats == p, mine.hi, jnp.uint32(0))
    held = (seats == robbed_by) & turn_held
    known = Bits(
        known_lo | jnp.where(held, turn.lo, jnp.uint32(0)),
        known_hi | jnp.where(held, turn.hi, jnp.uint32(0)),
    )
    return spec, known


def dealt_hand(state: State, player: jax.Array) -> Bits:
    """uint32[1] x 2: the hand ``player`` was dealt (``Env.private_cards``): what it holds now
    and every card it played or laid away (``core.record.cards_of``), less a robbed turn-up."""
    p = jnp.asarray(player, jnp.int32)
    had = seat_bits(state.hands, p) | record.cards_of(state.moves, p, NUM_CARDS)
    took = state.robbed & (state.robber == p)
    out = bits.where(took, had.without(bits.bit(state.turnup)), had)
    return Bits(out.lo[None], out.hi[None])


def resample_hidden(env: Any, key: jax.Array, state: State, player: jax.Array | int) -> State:
    """A State drawn uniformly from the deals consistent with what ``player`` knows (one hand
    at ``env``'s table).

    ``player``'s hand and the public record are kept; the other hands, the rob discard (of
    another seat) and so the stock are re-dealt.  Jittable and vmappable.
    """
    spec, known = hidden_spec(state, player, env.rules)
    return _world(state, spec, known, deal_hidden(key, spec), env.rules)


def resample_hidden_many(
    env: Any, key: jax.Array, state: State, player: jax.Array, count: int
) -> State:
    """``count`` independent worlds as ``resample_hidden`` draws them (leading axis [count]),
    from one pooled rejection loop (``core.resample.deal_hidden_many``)."""
    spec, known = hidden_spec(state, player, env.rules)
    deals = deal_hidden_many(key, spec, count)
    return jax.vmap(lambda d: _world(state, spec, known, d, env.rules))(deals)


def _world(state: State, spec: HiddenSpec, known: Bits, deal: HiddenDeal, rules: Rules) -> State:
    """The world of ``deal``: the seat's known cards and the dealt hidden ones; the robber is
    public (``hidden_spec``), so it is kept."""
    hands = Bits(known.lo | deal.hands.lo, known.hi | deal.hands.hi)
    discard = jnp.where(spec.has_discard, deal.discard, state.discard).astype(jnp.int32)
    discard = jnp.where(state.robbed, discard, game.NO_CARD)
    # the robber's discard in the record is the world's (when it is another seat's)
    player = jnp.where(spec.has_discard, spec.bound_seat, -1)
    theirs = record.private(state.moves) & (record.actors(state.moves) == player)
    moves = record.with_actions(state.moves, theirs, jnp.broadcast_to(discard, state.moves.shape))
    world = state.replace(hands=hands, discard=discard, moves=moves)
    return game.with_legal(world, rules)  # (the seat to act may be another)


# --------------------------------------------------------------------------- playouts


def _values(rewards: jax.Array, winner: jax.Array, player: jax.Array) -> dict[str, jax.Array]:
    chips = jnp.take_along_axis(rewards, player[:, None], axis=1)[:, 0]
    return {
        "expected_chips": chips.astype(jnp.float32),
        "win_prob": (winner == player).astype(jnp.float32),
        "spoil_prob": (winner < 0).astype(jnp.float32),
    }


def playout(
    env: Any,
    keys: jax.Array,
    states: State,
    actions: jax.Array,
    player: jax.Array,
    policy: Any,
) -> dict[str, jax.Array]:
    """Apply each of ``actions`` int32[B, L] (legal) to the live ``states`` [B] and play every
    result to the end with ``policy`` at every seat of ``env``'s table (``Analysis.playout``;
    ``core.transition.transition``: the step of one hand).

    Returns float32[B, L] per field of ``FIELDS`` for seat ``player`` int32[B]: its net chips
    for the hand (``rewards``), whether it takes the pot, whether nobody does (a spoil or a
    failed jink).  ``keys``: one PRNG key per state, shared by its L playouts (common random
    numbers).  Built-in policies run on the fast kernel (the state converted once, the actions
    applied there), any other jittable policy on it too (``view.play_on``), handed counter keys
    drawn from ``keys`` (``core.keys.as_counter``).
    """
    n, rules, step = env.num_players, env.rules, functools.partial(transition, env)
    if isinstance(policy, str) and policy not in BUILTIN:
        raise ValueError(f"unknown policy {policy!r}; use 'random', 'heuristic' or a callable")
    spec: BuiltinPolicy | Callable[..., Any] = (
        BUILTIN[policy] if isinstance(policy, str) else policy
    )
    b, width = actions.shape

    def tile(x: jax.Array) -> jax.Array:
        return jnp.repeat(x, width, axis=0)

    if isinstance(spec, BuiltinPolicy):
        out = _playout_fast(keys, states, actions, player, spec.name, n, rules)
    else:  # on the kernel too, the policy reading the public State built from it (``view``)
        after = jax.vmap(step)(jax.tree.map(tile, states), actions.reshape(-1))
        rewards, winner = view.play_on(after, tile(as_counter(keys)), spec, n, rules)
        out = _values(rewards, winner, tile(player))
    return {k: v.reshape(b, width) for k, v in out.items()}


def applied_fast(
    keys: jax.Array, states: State, actions: jax.Array, n: int, rules: Rules
) -> tuple[fast.Table, fast.Hands, jax.Array]:
    """The kernel's layout of ``states`` [B] with each of ``actions`` int32[B, L] applied:
    (table, hands [B * L], the hands' ids for the random policy's draws)."""
    width = actions.shape[1]
    table, h = view.to_fast(states, n)
    table, h = jax.tree.map(lambda x: jnp.repeat(x, width, axis=0), (table, h))
    ids = jnp.repeat(jax.vmap(lambda k: jax.random.bits(k, (), jnp.uint32))(keys), width)
    a = actions.reshape(-1)
    card_pos = jnp.asarray(fast.POSITION)[table.trump, jnp.clip(a, 0, NUM_CARDS - 1)]
    special = jnp.where(
        a == game.PASS, fast.P_PASS, jnp.where(a == game.JINK, fast.P_JINK, fast.P_CLAIM)
    )
    h = fast.apply(h, table, jnp.where(a < NUM_CARDS, card_pos, special), n, rules)
    return table, h, ids


def chooser(
    kind: str, table: fast.Table, ids: jax.Array, rules: Rules
) -> Callable[[fast.Hands, jax.Array], jax.Array]:
    """``choose(hands, t) -> position``: built-in policy ``kind``'s choice on the kernel at
    decision ``t`` of the playout (the random policy hashes (seed, id, t))."""
    seed = jnp.uint32(0x5EED)

    def choose(h: fast.Hands, t: jax.Array) -> jax.Array:
        cur = fast.get(h.status, fast._F_CUR)
        lo, hi = fast.hand_of(h, table, cur)
        l_lo, l_hi = fast.legal_positions(lo, hi, h.status, rules)
        if kind == "random":
            return fast.random_choice(l_lo, l_hi, fast.mix(seed, ids, t.astype(jnp.uint32)))
        return heuristic_position(
            lo, hi, l_lo, l_hi, h.status, h.played_trumps, table.trump, table.turnup_pos
        )

    return choose


def _playout_fast(
    keys: jax.Array,
    states: State,
    actions: jax.Array,
    player: jax.Array,
    kind: str,
    n: int,
    rules: Rules,
) -> dict[str, jax.Array]:
    width = actions.shape[1]
    table, h, ids = applied_fast(keys, states, actions, n, rules)
    choose = chooser(kind, table, ids, rules)

    def live(carry: tuple[fast.Hands, jax.Array, jax.Array]) -> jax.Array:
        return (fast.get(carry[0].status, fast._F_PHASE) != fast.DONE).any()

    def body(carry: tuple[fast.Hands, jax.Array, jax.Array]) -> tuple:
        h, pos, t = carry
        h = fast.apply(h, table, pos, n, rules)
        # The next choice is carried, as in the rollout kernel (``rollouts.play_fast``): XLA
        # then computes it once instead of in every fused update of the step.
        return h, choose(h, t + 1), t + 1

    start = (h, choose(h, jnp.int32(0)), jnp.int32(0))
    h, _, _ = jax.lax.while_loop(live, body, start)
    out = fast.outcome(h, table, n, rules)
    return _values(out.rewards, out.winner, jnp.repeat(player, width))
