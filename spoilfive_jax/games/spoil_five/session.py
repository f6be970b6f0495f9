"""Sessions (docs/rules.md#winning-a-hand): hands in sequence at one table, the dealer rotating,
the pot carried on spoils and failed jinks, chip stacks, until a player is broke or the hand limit
is reached; many sessions batched.  Plus ``auto_reset``, the pgx-style step wrapper for RL loops."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.spoil_five.fast as fast
from spoilfive_jax.games.spoil_five.env import SpoilFive
from spoilfive_jax.games.spoil_five.fast import I32, U32
from spoilfive_jax.games.spoil_five.game import State
from spoilfive_jax.games.spoil_five.policies import PolicySpec, resolve
from spoilfive_jax.tools.rollout import Plan, _seed_of, _shard_batch, batch_for


@dataclasses.dataclass(frozen=True)
class SessionResult:
    """Batched sessions: S sessions, N seats, at most H hands each (host numpy arrays)."""

    stacks: np.ndarray  # int32[S, N]: chips at the end
    pot: np.ndarray  # int32[S]: chips left in the pot (carried from a last spoiled hand)
    hands_played: np.ndarray  # int32[S]
    busted: np.ndarray  # bool[S]: the session ended because a player had no chips left
    chips_by_hand: np.ndarray  # float32[S, H, N]: net chips of each hand (0 after the end)
    initial_stack: int

    @property
    def winner(self) -> np.ndarray:
        """int32[S]: the seat with the most chips at the end (lowest seat on a tie)."""
        return np.argmax(self.stacks, axis=1).astype(np.int32)

    def summary(self) -> dict[str, Any]:
        n = self.stacks.shape[1]
        return {
            "sessions": int(self.stacks.shape[0]),
            "mean_hands": float(self.hands_played.mean()),
            "bust_rate": float(self.busted.mean()),
            "session_win_rate": np.bincount(self.winner, minlength=n) / self.stacks.shape[0],
            "mean_final_stack": self.stacks.mean(0),
        }


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _sessions_chunk(
    plan: Plan,
    size: int,
    max_hands: int,
    key: jax.Array,
    seed: jax.Array,
    first: jax.Array,
    stack: jax.Array,
    seat_policy: jax.Array,
) -> tuple[jax.Array, ...]:
    n = plan.num_players
    sid = _shard_batch(first + jnp.arange(size, dtype=U32))
    stacks = jnp.full((size, n), stack, I32)
    zero = jnp.zeros(size, I32)

    def hand(carry: tuple[jax.Array, ...], h: jax.Array) -> Any:
        stacks, pot, dealer, played, over = carry
        ids = sid * U32(max_hands) + h.astype(U32)
        cards, positions = fast.random_cards(seed, ids, 5 * n + 1)
        out = plan.play(key, seed, ids, cards, dealer, pot, seat_policy, positions)
        live = ~over
        chips = jnp.where(live[:, None], out.rewards, 0.0)
        stacks = stacks + chips.astype(I32)
        pot = jnp.where(live, out.carried_out, pot)
        dealer = jnp.where(live, jnp.where(dealer + 1 == n, 0, dealer + 1), dealer)
        played = played + live.astype(I32)
        over = over | (stacks <= 0).any(axis=1)
        return (stacks, pot, dealer, played, over), chips

    init = (stacks, zero, zero, zero, jnp.zeros(size, jnp.bool_))
    (stacks, pot, _, played, over), chips = jax.lax.scan(
        hand, init, jnp.arange(max_hands, dtype=I32)
    )
    return stacks, pot, played, over, jnp.swapaxes(chips, 0, 1)


def play_sessions(
    key: jax.Array | int,
    env: SpoilFive,
    policy: PolicySpec = "random",
    num_sessions: int = 1000,
    max_hands: int = 100,
    stack: int = 20,
    batch_size: int | None = None,
) -> SessionResult:
    """Play ``num_sessions`` sessions of at most ``max_hands`` hands, every seat starting with
    ``stack`` chips.  Seat 0 deals the first hand; the deal passes left each hand.  A session
    stops after the hand in which some player's stack reaches 0 or below (a player short of the
    ante still antes; a jink bonus may push a stack below 0)."""
    for name, v, low in (
        ("num_sessions", num_sessions, 1),
        ("max_hands", max_hands, 1),
        ("stack", stack, 1),
    ):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")
    n = env.num_players
    plan, seat_policy = Plan.make(n, env.rules, resolve(policy, n))
    seed, pkey = _seed_of(key)
    size = batch_for(int(batch_size or 4096), int(num_sessions))
    parts = []
    for first in range(0, num_sessions, size):
        parts.append(
            _sessions_chunk(
                plan,
                size,
                int(max_hands),
                pkey,
                seed,
                jnp.uint32(first),
                jnp.int32(stack),
                jnp.asarray(seat_policy),
            )
        )
    stacks, pot, played, over, chips = (
        np.concatenate([np.asarray(p[i]) for p in parts])[:num_sessions] for i in range(5)
    )
    return SessionResult(stacks, pot, played, over, chips, int(stack))


# ------------------------------------------------------------------------ auto-reset


def auto_reset(
    step_fn: Callable[[State, jax.Array], State], init_fn: Callable[[jax.Array], State]
) -> Callable[[State, jax.Array, jax.Array], State]:
    """Wrap ``step(state, action)`` into ``step(state, action, key)`` that starts a new hand
    (``init_fn(key)``) whenever one ends, pgx style: the returned state is the new hand's first
    state but still carries the finished hand's ``rewards`` and ``terminated``/``truncated``
    flags; those are cleared at the next call before stepping.  vmap-friendly (selects, no
    ``cond``)."""

    def step(state: State, action: jax.Array, key: jax.Array) -> State:
        state = state.replace(
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            rewards=jnp.zeros_like(state.rewards),
        )
        after = step_fn(state, action)
        ended = after.terminated | after.truncated
        fresh = init_fn(key).replace(
            terminated=after.terminated, truncated=after.truncated, rewards=after.rewards
        )
        return jax.tree.map(lambda f, a: jnp.where(ended, f, a), fresh, after)

    return step
