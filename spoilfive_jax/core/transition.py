"""The step every game shares: ``transition`` (``env.step`` without its jit and checks),
``transition_legal`` (for actions known to be legal) and ``isolated_step`` (``env.step``'s
body: under ``vmap`` the batch's step in a ``lax.cond`` of its own).

A game writes ``_apply`` (and optionally ``_settle`` and ``_end_illegal``); this module chooses
between the legal, illegal and finished outcomes, settles the state and writes the public
record.  ``Env.step`` calls ``jit_step``."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import jax
import jax.numpy as jnp

from spoilfive_jax.core import bits, knowledge, record
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.bits import Bits

if TYPE_CHECKING:  # (``core.env`` imports this module)
    from spoilfive_jax.core.env import Env, HandState, RecordedState

S = TypeVar("S", bound="HandState")
R = TypeVar("R", bound=Hashable)


def is_legal(legal_set: Bits, action: jax.Array, num_actions: int) -> jax.Array:
    """bool: ``action`` is in ``legal_set`` (False outside ``0..num_actions-1``)."""
    a = jnp.asarray(action, jnp.int32)
    inside = (a >= 0) & (a < num_actions)
    return inside & bits.has(legal_set, jnp.clip(a, 0, num_actions - 1))


def transition(
    env: Env[S, R],
    state: S,
    action: jax.Array,
    apply: Callable[[S, jax.Array], S] | None = None,
) -> S:
    """``env.step`` without its jit (the step every game shares; for tracing by hand).
    ``apply``: in place of the game's ``_apply`` and ``_settle`` (which the step then does not
    call), for a loop that knows more of its hands than the step does (the family's hands
    before their first lead, whose loop settles their legal sets itself:
    ``forty_five.view.step_before_play``)."""
    live = ~state.terminated
    legal = is_legal(state.legal_set, action, env.num_actions)
    played = (env._apply if apply is None else apply)(state, action)
    fouled = env._end_illegal(state)
    done = _zero_rewards(state)  # a finished hand stays, paying nothing

    def choose(p: jax.Array, f: jax.Array, d: jax.Array) -> jax.Array:
        return jnp.where(live, jnp.where(legal, p, f), d)

    out = jax.tree.map(choose, played, fouled, done)
    return _recorded(env, state, env._settle(out) if apply is None else out, action)


def transition_legal(env: Env[S, R], state: S, action: jax.Array) -> S:
    """``transition`` for an ``action`` known to be legal (an analysis's own actions): the same
    state without the illegal-action branch, which the step computes for every hand (a quarter
    of the family's step).  An illegal action is applied unchecked: its state is unspecified."""
    played, done = env._apply(state, action), _zero_rewards(state)
    out = env._settle(jax.tree.map(lambda p, d: jnp.where(state.terminated, d, p), played, done))
    return _recorded(env, state, out, action)


def _recorded(env: Env[S, R], before: S, after: S, action: jax.Array) -> S:
    """``after`` with the decision taken in ``before`` (a live hand) added to its public
    record ``moves`` (``core.record``); a state without ``moves`` as it is."""
    known = caps.declared(env, knowledge.Knowledge)
    if known is None or not hasattr(before, "moves"):
        return after
    t = jnp.where(before.terminated, -1, before._step_count)
    private = known.private_action(env, cast("RecordedState", before), action)  # has ``moves``
    moves = record.written(before.moves, t, before.current_player, action, private)
    return after.replace(moves=moves)


def _zero_rewards(state: S) -> S:
    """``state`` with every reward field zeroed: ``rewards`` and any other float field whose
    name ends in ``rewards`` (the family's ``game_rewards``), the convention ``api_test``
    checks (rewards only on the step that ends a hand or a game)."""
    names = ["rewards"]
    if dataclasses.is_dataclass(state):
        names = [f.name for f in dataclasses.fields(state) if f.name.endswith("rewards")]
    return state.replace(**{n: jnp.zeros_like(getattr(state, n)) for n in names})


def _finished(env: Env[S, R], state: S, action: jax.Array) -> S:
    """``transition`` of a hand already over: ``state`` with zero rewards, settled and its
    record unchanged (the step's finished outcome, without computing the others)."""
    return _recorded(env, state, env._settle(_zero_rewards(state)), action)


def isolated_step(env: Env[S, R], state: S, action: jax.Array) -> S:
    """``transition``, which under ``jax.vmap`` runs as a computation of its own: the batch's
    step inside a ``lax.cond`` on whether any hand of the batch is live (``_finished`` if
    none is), so the batched step is one unit XLA compiles apart from the code around it.

    Why: in a loop such as ``scan(lambda s: vmap(env.step)(s, pick(s)))`` XLA:CPU otherwise
    fuses the caller's choice of action (and whatever else the loop computes from the state)
    into the step's operations, and the loop runs slower: Spoil Five's and Forty-Five's step
    loops about 1.4 times as fast in a cond, Oh Hell's 1.2 (``benchmarks/policy_speed.py``'s
    step loop, first legal action from the bitset; alternated runs).  The values are the same
    either way.  Under nested ``vmap`` the outer levels batch the ``cond`` into a select of
    its two branches, as they would a plain ``transition``.  Where the branches' types
    cannot agree, the batch steps through the plain vmapped ``transition`` instead: inside
    ``shard_map`` when the state is the same on every device and the actions are not (the
    finished branch would not vary over the mesh axis), or for a state whose leaves have
    other dtypes than the step's (``transition`` promotes them).  A ``custom_vmap`` function
    has no reverse-mode derivative: ``jax.grad`` through ``env.step`` is an error (a hand's
    outcome is not differentiable in its inputs anyway)."""

    @jax.custom_batching.custom_vmap
    def step(state: S, action: jax.Array) -> S:
        return transition(env, state, action)

    @step.def_vmap
    def batched(axis_size: int, in_batched: Any, state: S, action: jax.Array) -> tuple[S, Any]:
        def spread(x: jax.Array, batched: bool) -> jax.Array:
            return x if batched else jnp.broadcast_to(x, (axis_size, *jnp.shape(x)))

        state = jax.tree.map(spread, state, in_batched[0])
        action = spread(action, in_batched[1])
        live = jax.vmap(functools.partial(transition, env))
        over = jax.vmap(functools.partial(_finished, env))
        try:
            out = jax.lax.cond(jnp.any(~state.terminated), live, over, state, action)
        except TypeError:  # the branches' types differ: the plain step (same values)
            out = live(state, action)
        return out, jax.tree.map(lambda _: True, out)

    return step(state, action)  # type: ignore[no-any-return]


jit_step = jax.jit(isolated_step, static_argnums=0)
"""``Env.step``'s compiled call: ``isolated_step`` jitted, the env static (hashable): one
compile per table and rules; inside a user's jit/vmap it inlines."""
