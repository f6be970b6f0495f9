"""Chip sessions (docs/rules.md#winning-a-hand): hands in sequence at one table, the dealer
rotating, the pot carried on spoils and failed jinks, chip stacks, until a player is broke or the
hand limit is reached; many sessions batched.  The entry point is the generic
``spoilfive_jax.play_sessions(key, env, policy, num_sessions, max_hands=, stack=)``."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.spoil_five.fast as fast
import spoilfive_jax.games.spoil_five.rollouts as rollouts
from spoilfive_jax.core.stats import array_module, masked_total, no_per_hand
from spoilfive_jax.core.validate import positive_int
from spoilfive_jax.games.spoil_five.fast import I32, U32
from spoilfive_jax.games.spoil_five.rollouts import Deal
from spoilfive_jax.tools.chunks import EPOCH, Chunk, epoch_key, hand_chunks
from spoilfive_jax.tools.policies import Lineup, play_deals
from spoilfive_jax.tools.rollout import pipelined
from spoilfive_jax.tools.sharding import (
    batch_for,
    host_arrays,
    one_at_a_time,
    replicated,
    shard_batch,
)


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
        totals = session_totals(self.stacks, self.hands_played, self.busted)
        return session_summary(totals, int(self.stacks.shape[0]))


PER_SESSION = ("stacks", "pot", "hands_played", "busted", "chips_by_hand", "winner")


@dataclasses.dataclass(frozen=True)
class SessionSummary:
    """Chip sessions played with ``per_hand=False``: the totals of the summary alone
    (``summary()`` is ``SessionResult.summary()``); a per-session field raises
    ``core.stats.NoPerHand``."""

    totals: dict[str, np.ndarray]
    sessions: int
    initial_stack: int

    def __getattr__(self, name: str) -> Any:
        if name in PER_SESSION:
            raise no_per_hand("spoil_five session run", name)
        raise AttributeError(name)

    def summary(self) -> dict[str, Any]:
        return session_summary(self.totals, self.sessions)


def session_totals(stacks: Any, played: Any, busted: Any, valid: Any = None) -> dict[str, Any]:
    """Host or jittable: what the summary of sessions needs, summed over the sessions
    ``valid`` marks (None: all): hands played, busts, wins per seat (the most chips at the
    end, the lowest seat on a tie) and chips at the end per seat."""
    xp = array_module(stacks)
    won = xp.argmax(stacks, axis=1)[:, None] == xp.arange(stacks.shape[1])
    parts = {"hands": played, "busted": busted, "wins": won, "stacks": stacks}
    return {k: masked_total(v, valid) for k, v in parts.items()}


def session_summary(totals: dict[str, Any], sessions: int) -> dict[str, Any]:
    """The summary of ``sessions`` sessions from their totals (``session_totals``)."""
    return {
        "sessions": sessions,
        "mean_hands": float(totals["hands"] / sessions),
        "bust_rate": float(totals["busted"] / sessions),
        "session_win_rate": totals["wins"] / sessions,
        "mean_final_stack": totals["stacks"] / sessions,
    }


@one_at_a_time
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


@one_at_a_time
@jax.jit
def _totals(
    stacks: jax.Array, played: jax.Array, over: jax.Array, count: jax.Array
) -> dict[str, jax.Array]:
    """A chunk's first ``count`` sessions (``_sessions_chunk``'s, still on the device) reduced
    to their totals."""
    valid = jnp.arange(stacks.shape[0]) < count
    return replicated(session_totals(stacks, played, over, valid))  # type: ignore[no-any-return]


def sessions(
    key: jax.Array,
    env: Any,
    who: Lineup,
    seat_policy: np.ndarray,
    num_sessions: int,
    max_hands: int = 100,
    stack: int = 20,
    batch_size: int | None = None,
    per_hand: bool = True,
) -> SessionResult | SessionSummary:
    """``num_sessions`` sessions of at most ``max_hands`` hands, every seat starting with
    ``stack`` chips.  Seat 0 deals the first hand; the deal passes left each hand.  A session
    stops after the hand in which some player's stack reaches 0 or below (a player short of the
    ante still antes; a jink bonus may push a stack below 0).  Hand ``h`` of session ``s`` is
    id ``s * max_hands + h`` (past 2**32 hands, of the next epoch's keys: any number of
    sessions).  ``per_hand=False``: batch by batch, only the summary's totals kept (a
    ``SessionSummary``)."""
    max_hands = positive_int("max_hands", max_hands)  # type: ignore[assignment]
    stack = positive_int("stack", stack)  # type: ignore[assignment]
    b = positive_int("batch_size", batch_size, allow_none=True)
    size = batch_for(b or 4096, num_sessions)
    common = (jnp.int32(stack), jnp.asarray(seat_policy))

    def calls(reduce: bool) -> Iterator[tuple[Any, Chunk]]:
        # An epoch holds the sessions whose hand ids fit a uint32 (``tools.chunks``).
        keys, epoch = None, -1
        for c in hand_chunks(0, num_sessions, size, max(1, EPOCH // max_hands)):
            if c.epoch != epoch:
                keys, epoch = rollouts.rollout_keys(env, epoch_key(key, c.epoch)), c.epoch
            out = _sessions_chunk(env, who, size, max_hands, keys, jnp.uint32(c.first), *common)
            yield (_totals(out[0], out[2], out[3], jnp.int32(c.hands)) if reduce else out), c

    if per_hand:
        parts: list[list[np.ndarray]] = []
        pipelined(
            calls(False), lambda out, c: parts.append([x[: c.hands] for x in host_arrays(out)])
        )
        stacks, pot, played, over, chips = (np.concatenate(x) for x in zip(*parts, strict=True))
        return SessionResult(stacks, pot, played, over, chips, int(stack))
    totals: dict[str, Any] = {}

    def consume(out: dict[str, jax.Array], c: Chunk) -> None:
        for k, v in host_arrays(out).items():
            totals[k] = totals.get(k, 0) + v.astype(np.int64)

    pipelined(calls(True), consume)
    return SessionSummary(totals, num_sessions, int(stack))


def play_sessions(
    env: Any,
    key: jax.Array,
    lineup: Lineup,
    seat_policy: np.ndarray,
    num: int,
    *,
    per_hand: bool = True,
    **options: Any,
) -> Any:
    """The ``Sessions`` capability: ``num`` chip sessions (options ``max_hands``, ``stack``,
    ``batch_size``; another is a ``ValueError`` naming it)."""
    unknown = set(options) - {"max_hands", "stack", "batch_size"}
    if unknown:
        raise ValueError(
            "spoil_five sessions take max_hands, stack and batch_size, not "
            + ", ".join(sorted(unknown))
        )
    return sessions(key, env, lineup, seat_policy, num, per_hand=per_hand, **options)
