"""Policies as a concept, for every game: naming them, seating them, and playing hands with them.

A policy is a jittable ``policy(key, state, player) -> action`` on ONE hand's ``State`` of the
game (``core.env.PolicyFn``); the loops here call it through ``core.env.call_policy``, which
checks it when traced (one integer action id; no Python ``if`` on traced values).  Wherever a
tool takes a policy it accepts a *policy spec*:

- a name, resolved through ``env.builtin_policy(name)`` (``env.policy_names``: ``"random"``
  and ``"heuristic"`` everywhere (each game's own), ``"greedy"`` in the Forty-Five family);
- a callable; one that carries a ``policy_name`` attribute (a game's built-in policy object,
  e.g. ``sf.spoil_five.policies.HEURISTIC``) is resolved by that name, so a game can refuse
  another game's player;
- a list or tuple with one of those per seat;
- an unbound spec: an object with ``bind(env) -> policy`` (``sf.pimc(num_samples=...)`` without
  an env), bound here to the tool's env.

``play_out`` is THE loop that plays a hand to its end through ``env.step`` (a static scan of
``env.max_decisions`` decisions; a finished hand stands); ``play_batch`` is the same loop for a
batch, which skips a policy at the decisions where no hand needs it.  Every tool that plays hands
with arbitrary policies uses them; a game may play the same hands faster on a kernel
(``RolloutKernel.rollout_kernel``: its built-in policies, or any lineup), and ``play_public``
plays them through the step whatever kernel the game has (the kernels' reference).

This module imports no game: everything game-specific comes through ``core.env.Env``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, HandState, PolicyFn, R, S, call_policy
from spoilfive_jax.core.generic import first_legal, random_legal
from spoilfive_jax.core.transition import is_legal, transition, transition_legal

PolicySpec = str | Callable[..., Any] | Sequence[str | Callable[..., Any]]
"""A name, a jittable ``policy(key, state, player) -> action``, or a list with one per seat."""


def policy_name(policy: PolicySpec) -> str | None:
    """The built-in name of a policy spec (``"random"``, or a policy object's ``policy_name``);
    None for any other callable."""
    if isinstance(policy, str):
        return policy
    name = getattr(policy, "policy_name", None)
    return name if isinstance(name, str) else None


def resolve_one(env: Env[S, R], policy: PolicySpec) -> tuple[str | None, PolicyFn]:
    """(built-in name or None, policy function) of one seat's spec; ``ValueError`` for a name the
    game does not know or for something that is not a policy."""
    policy = bind(env, policy)
    name = policy_name(policy)
    if name is not None:
        return name, env.builtin_policy(name)
    if not callable(policy):
        names = ", ".join(repr(p) for p in env.policy_names)
        raise ValueError(
            f"a policy must be a name ({names}) or a jittable callable "
            f"policy(key, state, player) -> action, got {policy!r}"
        )
    return None, policy


def bind(env: Env[S, R], policy: PolicySpec) -> Any:
    """``policy.bind(env)`` for a spec that binds to an env (an unbound ``sf.pimc``), else the
    policy itself."""
    binder = getattr(policy, "bind", None)
    return binder(env) if callable(binder) and not isinstance(policy, str) else policy


def resolve(env: Env[S, R], policy: PolicySpec) -> tuple[tuple[str | None, PolicyFn], ...]:
    """One (name, function) per seat from a policy spec."""
    n = env.num_players
    if isinstance(policy, (list, tuple)):
        if len(policy) != n:
            raise ValueError(f"a list of policies needs one per seat ({n}), got {len(policy)}")
        return tuple(resolve_one(env, p) for p in policy)
    return (resolve_one(env, policy),) * n


@dataclasses.dataclass(frozen=True)
class Lineup:
    """The static part of who plays: the distinct policies (hashable: a ``jax.jit`` static
    argument) and their built-in names.  Which seat plays which is a runtime array
    (``seat_policy``, indices into ``policies``), so rotating seats does not recompile."""

    policies: tuple[PolicyFn, ...]
    names: tuple[str | None, ...]  # the built-in name of each policy, None for other callables

    @property
    def builtin(self) -> bool:
        """Every policy is one of the game's built-ins (a fast kernel may play them)."""
        return all(n is not None for n in self.names)


def lineup(env: Env[S, R], policy: PolicySpec) -> tuple[Lineup, np.ndarray]:
    """(the lineup, int32[N] index of each seat's policy) of a policy spec.

    The distinct policies are in a canonical order (built-ins by name, then the others by
    identity), so rotating the same policies through the seats reuses one compiled program; the
    order changes no result."""
    per_seat = resolve(env, policy)
    distinct = sorted(
        dict.fromkeys(per_seat),
        key=lambda p: (0, p[0], 0) if p[0] is not None else (1, "", id(p[1])),
    )
    seat_policy = np.array([distinct.index(p) for p in per_seat], np.int32)
    names = tuple(p[0] for p in distinct)
    return Lineup(tuple(p[1] for p in distinct), names), seat_policy


def choose(
    policies: tuple[PolicyFn, ...], seat_policy: jax.Array, key: jax.Array, state: HandState
) -> jax.Array:
    """int32[]: the action of the seat to act in one hand, by its policy (every distinct policy
    is evaluated; the seat's is selected, so this vmaps without branching)."""
    player = jnp.maximum(state.current_player, 0)
    actions = [call_policy(p, key, state, player) for p in policies]
    which = jnp.asarray(seat_policy)[player]
    out = actions[0]
    for i in range(1, len(actions)):
        out = jnp.where(which == i, actions[i], out)
    return out.astype(jnp.int32)


def play_out(
    env: Env[S, R],
    policies: tuple[PolicyFn, ...],
    seat_policy: jax.Array,
    key: jax.Array,
    state: S,
) -> tuple[S, jax.Array]:
    """Play ONE hand to its end through ``env.step``'s transition: decision ``t`` uses the
    key ``fold_in(key, t)``.  Returns (the final state, float32[N] the rewards summed over the
    hand's steps).  A static scan of ``env.max_decisions`` steps; a finished hand stands.
    (The plain ``transition``, not ``env.step``, whose batch-wide ``cond`` under ``vmap``
    would add a reduction over the batch at every decision: across devices for a sharded
    batch, as the family's sessions play theirs.)"""

    def body(carry: tuple[Any, jax.Array], t: jax.Array) -> tuple[tuple[Any, jax.Array], None]:
        st, total = carry
        a = choose(policies, seat_policy, jax.random.fold_in(key, t), st)
        st = transition(env, st, a)
        return (st, total + st.rewards), None

    zeros = jnp.zeros(env.num_players, jnp.float32)
    (state, total), _ = jax.lax.scan(
        body, (state, zeros), jnp.arange(env.max_decisions, dtype=jnp.int32)
    )
    return state, total


def play_deals(
    env: Env[S, R],
    lineup: Lineup,
    keys: caps.RunKeys,
    ids: jax.Array,
    deal: Any,
    seat_policy: jax.Array,
) -> dict[str, jax.Array]:
    """Jittable: play a batch of deals (``Rollouts.rollout_deal``/``HandScoring.known_deal``) to
    the end and return the batched ``Rollouts.outcome`` records: on the game's kernel when it
    declares one for this lineup (``RolloutKernel``, the one optional capability: Spoil Five's
    plays any lineup, the family's the built-in policies only), else through ``play_batch``
    (the public step); the same hands either way.  Every record also has ``illegal`` bool[B]:
    the hand ended on an illegal action (never with built-in policies only)."""
    fast = caps.declared(env, caps.RolloutKernel)
    kernel = fast.rollout_kernel(env, lineup.names, lineup.policies) if fast else None
    if kernel is not None:
        return {"illegal": jnp.zeros(ids.shape, bool), **kernel(deal, keys, ids, seat_policy)}
    return play_public(env, lineup, keys, ids, deal, seat_policy)


def play_public(
    env: Env[S, R],
    lineup: Lineup,
    keys: caps.RunKeys,
    ids: jax.Array,
    deal: Any,
    seat_policy: jax.Array,
) -> dict[str, jax.Array]:
    """``play_deals`` through the public step (``play_batch``) whatever kernel the game has:
    the reference every kernel is checked against (``tools.conformance``)."""
    rollouts = env.capability(caps.Rollouts)
    states = rollouts.deal_states(env, deal)
    hand_keys = rollouts.hand_keys(env, keys, ids)
    final, rewards, stray = _played(
        env, lineup.policies, seat_policy, hand_keys, states, trusted=lineup.builtin
    )
    records = jax.vmap(lambda s, r: rollouts.outcome(env, s, r))(final, rewards)
    return {**records, "illegal": final.illegal | stray}


def choose_batch(
    policies: tuple[PolicyFn, ...],
    seat_policy: jax.Array,
    keys: jax.Array,
    states: HandState,
    player: jax.Array | None = None,
    live: jax.Array | None = None,
) -> jax.Array:
    """int32[B]: ``choose`` for a batch of hands, where a policy that no live hand needs at this
    decision is not run at all (a ``lax.cond`` on the whole batch).  An expensive policy at one
    seat (``sf.pimc``) thus runs only at the decisions where some hand waits for that seat,
    not at every seat's.  A finished hand's action is 0 (stepping it changes nothing).
    ``player`` int32[B] and ``live`` bool[B]: the seat to act and the hands not over, when the
    caller has them cheaper than ``states`` (default: read from ``states``).  Each policy sees
    only the leaves it reads (``only_read``)."""
    if player is None:
        player = jnp.maximum(states.current_player, 0)
    which = jnp.asarray(seat_policy)[player]  # [B]
    wanted = ~states.terminated if live is None else live
    none = jnp.zeros(player.shape, jnp.int32)
    out = none
    for i, policy in enumerate(policies):
        mine = which == i
        given, seen = only_read(policy, keys, states)

        def run(policy: PolicyFn = policy, given: Any = given, seen: Any = seen) -> jax.Array:
            one = functools.partial(call_policy, policy)  # checked when traced
            return jax.vmap(one)(given, seen, player).astype(jnp.int32)

        acts = jax.lax.cond((mine & wanted).any(), run, lambda: none)
        out = jnp.where(mine, acts, out)
    return out


def on_kernel(key: jax.Array, state: HandState, player: jax.Array) -> jax.Array:
    """The stand-in, in ``choose_batch``'s policies, of a built-in policy whose seats a kernel
    loop chooses for itself (``RolloutKernel``'s view loops): never asked for an action that
    is used, and it reads nothing, so no view is built for it."""
    return jnp.int32(0)


def only_read(policy: PolicyFn, keys: jax.Array, states: S) -> tuple[jax.Array, S]:
    """(``keys``, ``states``) of a batch [B] with what ``policy`` does not read replaced by
    zeros: every state leaf it does not read, and the keys if it draws nothing.

    A loop that builds its states at each decision (Spoil Five's kernel view, ``RolloutKernel``)
    then builds only what the policy reads, and derives no key it does not use: the ``lax.cond``
    of ``choose_batch`` takes its operands whole, so XLA cannot drop an unread one by itself.
    Same actions: an unread input changes nothing.  What is read is found by tracing the policy
    on one hand (cached by policy and layout)."""
    leaves, treedef = jax.tree.flatten(states)
    one = tuple(jax.ShapeDtypeStruct(x.shape[1:], x.dtype) for x in leaves)
    key = jax.ShapeDtypeStruct(keys.shape[1:], keys.dtype)
    read = _read_inputs(policy, treedef, one, key)
    kept = [x if r else jnp.zeros_like(x) for x, r in zip(leaves, read[1:], strict=True)]
    return keys if read[0] else jnp.zeros_like(keys), jax.tree.unflatten(treedef, kept)


@functools.lru_cache(maxsize=256)
def _read_inputs(
    policy: PolicyFn, treedef: Any, leaves: tuple[jax.ShapeDtypeStruct, ...], key: Any
) -> tuple[bool, ...]:
    """Whether the jaxpr of ``policy`` on one hand uses its key, then each state leaf (an
    input that no equation and no output names is unread)."""

    def traced(k: jax.Array, flat: list[jax.Array], player: jax.Array) -> jax.Array:
        return call_policy(policy, k, jax.tree.unflatten(treedef, flat), player)

    seat = jax.ShapeDtypeStruct((), jnp.int32)  # (abstract, as in the loops)
    jaxpr = jax.make_jaxpr(traced)(key, list(leaves), seat).jaxpr
    used = {id(v) for eqn in jaxpr.eqns for v in eqn.invars} | {id(v) for v in jaxpr.outvars}
    return tuple(id(v) in used for v in jaxpr.invars[: 1 + len(leaves)])


def play_batch(
    env: Env[S, R],
    policies: tuple[PolicyFn, ...],
    seat_policy: jax.Array,
    keys: jax.Array,
    states: S,
) -> tuple[S, jax.Array]:
    """``play_out`` for a batch of hands [B] (keys [B], one per hand), with the same actions and
    results hand by hand; policies run only where needed (``choose_batch``)."""
    final, total, _ = _played(env, policies, seat_policy, keys, states, trusted=False)
    return final, total


def _played(
    env: Env[S, R],
    policies: tuple[PolicyFn, ...],
    seat_policy: jax.Array,
    keys: jax.Array,
    states: S,
    *,
    trusted: bool,
) -> tuple[S, jax.Array, jax.Array]:
    """``play_batch``, and bool[B]: a live hand was handed an illegal action.

    ``trusted``: the policies are the game's built-ins, which pick legal actions only.  The
    step then leaves out the illegal-action branch (``core.transition.transition_legal``: the same
    states for legal actions; a quarter of a plugin's step), and an illegal action a built-in
    picks all the same is caught by the flag, its hand's state unspecified.  Untrusted: every
    action goes through ``env.step``'s transition (the flag is never set: an illegal action
    ends its hand, ``state.illegal``), vmapped plainly: the policies already run in a ``cond``
    of their own (``choose_batch``), and the step in a second one (``env.step``'s under
    ``vmap``) made Oh Hell's rollouts of a user's policy slower (alternated runs, 479k ->
    427k hands a second)."""
    step = jax.vmap(functools.partial(transition_legal if trusted else transition, env))

    def body(
        carry: tuple[S, jax.Array, jax.Array], t: jax.Array
    ) -> tuple[tuple[S, jax.Array, jax.Array], None]:
        st, total, stray = carry
        step_keys = jax.vmap(lambda k: jax.random.fold_in(k, t))(keys)
        actions = choose_batch(policies, seat_policy, step_keys, st)
        if trusted:
            legal = jax.vmap(is_legal, in_axes=(0, 0, None))(st.legal_set, actions, env.num_actions)
            stray = stray | (~st.terminated & ~legal)
        st = step(st, actions)
        return (st, total + st.rewards, stray), None

    shape = states.current_player.shape
    zeros = jnp.zeros((*shape, env.num_players), jnp.float32)
    (final, total, stray), _ = jax.lax.scan(
        body,
        (states, zeros, jnp.zeros(shape, jnp.bool_)),
        jnp.arange(env.max_decisions, dtype=jnp.int32),
    )
    return final, total, stray


__all__ = [
    "Lineup",
    "PolicySpec",
    "bind",
    "choose",
    "choose_batch",
    "first_legal",
    "lineup",
    "on_kernel",
    "only_read",
    "play_batch",
    "play_deals",
    "play_out",
    "play_public",
    "policy_name",
    "random_legal",
    "resolve",
]
