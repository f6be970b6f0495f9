"""Chip sessions (docs/rules.md#winning-a-hand): hands in sequence at one table, the dealer
rotating, the pot carried on spoils and failed jinks, chip stacks, until a player is broke or the
hand limit is reached; many sessions batched.  The entry point is the generic
``spoilfive_jax.play_sessions(key, env, policy, num_sessions, max_hands=, stack=)``."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.spoil_five.fast as fast
import spoilfive_jax.games.spoil_five.provider as provider
from spoilfive_jax.core.validate import positive_int
from spoilfive_jax.games.spoil_five.fast import I32, U32
from spoilfive_jax.games.spoil_five.provider import Deal
from spoilfive_jax.tools.policies import Lineup, play_deals
from spoilfive_jax.tools.sharding import batch_for, shard_batch


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


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3))
def _sessions_chunk(
    env: Any,
    who: Lineup,
    size: int,
    max_hands: int,
    keys: Any,
    first: jax.Array,
    stack: jax.Array,
    seat_policy: jax.Array,
) -> tuple[jax.Array, ...]:
    n = env.num_players
    sid = shard_batch(first + jnp.arange(size, dtype=U32))
    stacks = jnp.full((size, n), stack, I32)
    zero = jnp.zeros(size, I32)

    def hand(carry: tuple[jax.Array, ...], h: jax.Array) -> Any:
        stacks, pot, dealer, played, over = carry
        ids = sid * U32(max_hands) + h.astype(U32)
        cards, positions = fast.random_cards(keys[0], ids, 5 * n + 1)
        out = play_deals(env, who, keys, ids, Deal(cards, positions, dealer, pot), seat_policy)
        live = ~over
        chips = jnp.where(live[:, None], out["rewards"], 0.0)
        stacks = stacks + chips.astype(I32)
        pot = jnp.where(live, out["carried_out"], pot)
        dealer = jnp.where(live, jnp.where(dealer + 1 == n, 0, dealer + 1), dealer)
        played = played + live.astype(I32)
        over = over | (stacks <= 0).any(axis=1)
        return (stacks, pot, dealer, played, over), chips

    init = (stacks, zero, zero, zero, jnp.zeros(size, jnp.bool_))
    (stacks, pot, _, played, over), chips = jax.lax.scan(
        hand, init, jnp.arange(max_hands, dtype=I32)
    )
    return stacks, pot, played, over, jnp.swapaxes(chips, 0, 1)


def sessions(
    key: jax.Array,
    env: Any,
    who: Lineup,
    seat_policy: np.ndarray,
    num_sessions: int,
    max_hands: int = 100,
    stack: int = 20,
    batch_size: int | None = None,
) -> SessionResult:
    """``num_sessions`` sessions of at most ``max_hands`` hands, every seat starting with
    ``stack`` chips.  Seat 0 deals the first hand; the deal passes left each hand.  A session
    stops after the hand in which some player's stack reaches 0 or below (a player short of the
    ante still antes; a jink bonus may push a stack below 0)."""
    max_hands = positive_int("max_hands", max_hands)  # type: ignore[assignment]
    stack = positive_int("stack", stack)  # type: ignore[assignment]
    b = positive_int("batch_size", batch_size, allow_none=True)
    keys = provider.rollout_keys(env, key)
    size = batch_for(b or 4096, num_sessions)
    parts = []
    for first in range(0, num_sessions, size):
        parts.append(
            _sessions_chunk(
                env,
                who,
                size,
                max_hands,
                keys,
                jnp.uint32(first),
                jnp.int32(stack),
                jnp.asarray(seat_policy),
            )
        )
    stacks, pot, played, over, chips = (
        np.concatenate([np.asarray(p[i]) for p in parts])[:num_sessions] for i in range(5)
    )
    return SessionResult(stacks, pot, played, over, chips, int(stack))


def play_sessions(
    env: Any, key: jax.Array, lineup: Lineup, seat_policy: np.ndarray, num: int, **options: Any
) -> Any:
    """The ``Sessions`` capability: ``num`` chip sessions (options ``max_hands``, ``stack``,
    ``batch_size``; another is a ``ValueError`` naming it)."""
    unknown = set(options) - {"max_hands", "stack", "batch_size"}
    if unknown:
        raise ValueError(
            "spoil_five sessions take max_hands, stack and batch_size, not "
            + ", ".join(sorted(unknown))
        )
    return sessions(key, env, lineup, seat_policy, num, **options)
