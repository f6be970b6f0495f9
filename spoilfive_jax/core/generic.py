"""What every game has from the base ``Env``: the defaults of its optional hooks (an illegal
action's end, the built-in ``"random"`` policy) and the capabilities ``Rollouts``,
``AgentInfo`` and ``Teams``.

Hands are dealt by the game's ``init`` and played through the public step; the record a rollout
keeps of a hand is its rewards, tricks and decision count.  A game declares its own module in
place of this one when it deals faster or records more (``core.capabilities``); it can reuse
any function here by naming it in its own module (``hand_keys = generic.hand_keys``), or
change a few members alone: ``caps.override(caps.Rollouts, generic, outcome=my_outcome)``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import bits
from spoilfive_jax.core.kernel import random_choice
from spoilfive_jax.core.keys import deal_keys
from spoilfive_jax.core.keys import hand_keys as counter_keys
from spoilfive_jax.core.stats import RunStats, Values
from spoilfive_jax.core.validate import as_key, check_int

if TYPE_CHECKING:  # the types only: core.env declares this module as its default
    from spoilfive_jax.core.env import Env, HandState, PolicyFn

S = TypeVar("S", bound="HandState")
R = TypeVar("R", bound=Hashable)


# ---------------------------------------------------------------------------- the hooks' defaults


def end_illegal(env: Env[S, R], state: S) -> S:
    """``Env._end_illegal``'s default, pgx's: the hand ends at once, ``current_player`` (the
    offender) scores -1 and the others 0, nobody is to act, the phase is the hand's end (the
    last of ``env.phase_names``) and the decision counts.  Where the rules say what an illegal
    action costs (an ``illegal_penalty`` field or property, a finite number >= 0), the offender
    scores minus that instead.  The legal set is left to the game's ``_settle`` (every action
    once the hand is over, which ``api_test`` checks): a game that sets it elsewhere writes its
    own ``_end_illegal``."""
    penalty = getattr(env.rules, "illegal_penalty", 1)
    real = isinstance(penalty, numbers.Real) and not isinstance(penalty, (bool, np.bool_))
    if not real or not math.isfinite(penalty) or penalty < 0:
        raise ValueError(
            f"{env.id}: rules.illegal_penalty must be a finite number >= 0 (what an illegal "
            f"action costs its seat), got {penalty!r}"
        )
    offender = jnp.arange(env.num_players) == state.current_player
    ended: S = state.replace(
        current_player=jnp.int32(-1),
        phase=jnp.int32(len(env.phase_names) - 1),
        terminated=jnp.bool_(True),
        illegal=jnp.bool_(True),
        rewards=jnp.where(offender, -float(penalty), 0.0).astype(jnp.float32),
        _step_count=state._step_count + 1,
    )
    return ended


def first_legal(state: HandState) -> jax.Array:
    """int32[]: the lowest legal action of one hand's ``state`` (any game), read from the
    bitset ``state.legal_set`` in a few operations.  The same action as
    ``jnp.argmax(state.legal_action_mask)``, which reduces a boolean per action: on XLA:CPU
    that reduction costs more than a whole decision of a built-in policy.  Once the hand is
    over every action is legal (0)."""
    return bits.lowest(state.legal_set).astype(jnp.int32)


def random_legal(key: jax.Array, state: HandState) -> jax.Array:
    """int32[]: a uniformly random legal action of one hand's ``state`` (any game), from 32
    random bits of ``key`` and the bitset ``state.legal_set``: the k-th legal action with
    ``k = floor(u * count)`` for a uniform ``u`` on 24 bits (each action's chance is off by less
    than ``count / 2**24``).  No per-action draw, sum or ``cumsum`` over the action mask."""
    u = jax.random.bits(key, (), jnp.uint32)
    return random_choice(state.legal_set.lo, state.legal_set.hi, u).astype(jnp.int32)


def random_policy(key: jax.Array, state: HandState, player: jax.Array) -> jax.Array:
    """The default built-in ``"random"``: a uniform legal action (``random_legal``)."""
    return random_legal(key, state)


def builtin_policy(env: Env[S, R], name: str) -> PolicyFn:
    """``Env.builtin_policy``'s default: ``"random"`` (``random_policy``) of the game's
    ``policy_names``; any other name is a ``ValueError`` listing them."""
    if name != "random" or name not in env.policy_names:
        raise ValueError(
            f"unknown policy {name!r} for {env.id}; built-in: {', '.join(env.policy_names)}"
        )
    return random_policy


# ---------------------------------------------------------------------------- Rollouts


def score_unit(env: Env[S, R]) -> str:
    """``"points"``."""
    return "points"


def rollout_keys(env: Env[S, R], key: jax.Array) -> jax.Array:
    """The counter seed of a run (uint32, drawn from ``key``; anything but a PRNG key or an int
    seed is a ``ValueError``): ``rollout_deal`` and ``hand_keys`` here make counter keys of it
    (``core.keys``), so that a policy's ``jax.random`` call costs a hash, not threefry.  A game
    that writes its own ``rollout_deal`` or ``hand_keys`` over this ``rollout_keys`` gets this
    seed as ``keys``, not a PRNG key."""
    return jax.random.bits(as_key(key), (), jnp.uint32)


def deal_options(env: Env[S, R], dealer: Any = 0, **options: Any) -> dict[str, int]:
    """``dealer`` only (0..N-1); any other option is refused by name."""
    if options:
        raise ValueError(f"{env.id} takes no rollout option {', '.join(options)}")
    if isinstance(dealer, bool):
        raise ValueError(f"dealer must be an integer, got {dealer!r}")
    check_int("dealer", dealer, 0, env.num_players - 1)
    return {"dealer": int(dealer)}


def rollout_deal(env: Env[S, R], keys: jax.Array, ids: jax.Array, options: dict[str, Any]) -> Any:
    """The first states themselves: ``init(deal key, dealer)``, hand ``id``'s deal key the
    counter key ``core.keys.deal_keys(seed, id)`` (apart from every decision's key)."""
    return jax.vmap(lambda k: env.init(k, options["dealer"]))(deal_keys(keys, ids))


def deal_states(env: Env[S, R], deal: S) -> S:
    """The deal is the states."""
    return deal


def hand_keys(env: Env[S, R], keys: jax.Array, ids: jax.Array) -> jax.Array:
    """The counter keys ``core.keys.hand_keys(seed, ids)``: decision ``t``'s is
    ``fold_in(key, t)``."""
    return counter_keys(keys, ids)


def outcome(env: Env[S, R], state: S, rewards: jax.Array) -> dict[str, jax.Array]:
    """``rewards``, ``tricks_won`` and ``decisions``."""
    return {"rewards": rewards, "tricks_won": state.tricks_won, "decisions": state._step_count}


def hand_values(env: Env[S, R], record: dict[str, Any]) -> Values:
    """Averaged: ``rewards``; counted: ``decisions``."""
    return {"rewards": record["rewards"]}, {"decisions": record["decisions"]}


def summary_from_stats(env: Env[S, R], stats: RunStats, seconds: float) -> dict[str, Any]:
    """Hands, decisions and the mean reward of each seat with its standard error."""
    return {
        "game": env.id,
        "hands": stats.hands,
        "decisions": int(stats.totals["decisions"]),
        "mean_rewards": stats.mean("rewards"),
        "mean_rewards_se": stats.se("rewards"),
        "hands_per_s": stats.hands / seconds if seconds else float("nan"),
    }


def hands_won(env: Env[S, R], result: Any) -> Any:
    """A seat won the hands where its reward is the hand's best."""
    r = result.rewards
    return r == r.max(axis=1, keepdims=True)


# ---------------------------------------------------------------------------- AgentInfo


def observation_low(env: Env[S, R]) -> float:
    """No bound: ``-inf``."""
    return -np.inf


def final_info(env: Env[S, R], state: S) -> dict[str, Any]:
    """Whether the hand ended on an illegal action, and the tricks won."""
    return {"illegal": bool(state.illegal), "tricks_won": np.asarray(state.tricks_won).tolist()}


def state_text(env: Env[S, R], state: S) -> str:
    """The phase and tricks, then ``text_tail``."""
    head = (
        f"{env.id}: phase {env.phase_names[int(state.phase)]}, "
        f"tricks {np.asarray(state.tricks_won).tolist()}"
    )
    return "\n".join([head, *text_tail(env, state)])


# ---------------------------------------------------------------------------- Teams


def team_of(env: Env[S, R]) -> np.ndarray:
    """Every seat plays for itself."""
    return np.arange(env.num_players, dtype=np.int32)


def text_tail(env: Env[S, R], state: S) -> list[str]:
    """The current trick (where the state has ``trick_cards``) and who is to act, or the
    rewards once the hand is over."""
    trick = getattr(state, "trick_cards", None)
    lines = []
    if trick is not None:
        cards = [env.action_str(int(c)) if c >= 0 else "--" for c in np.asarray(trick)]
        lines.append("trick: " + " ".join(cards))
    if bool(state.terminated):
        lines.append(f"hand over: rewards {np.asarray(state.rewards).tolist()}")
    else:
        lines.append(f"to act: player_{int(state.current_player)}")
    return lines
