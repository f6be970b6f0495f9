"""Rollouts: millions of whole hands of any game inside jitted loops, chunked on the host.

Hand ``i`` of a rollout with key ``k`` is dealt and played from ``k`` and ``i`` alone (the game
decides how: ``Rollouts.rollout_keys``, ``Rollouts.rollout_deal``, ``Rollouts.hand_keys``), so
results do not depend on the batch size, the chunking or the number of devices.  Hands whose every
seat plays a built-in policy run on the game's kernel when it has one
(``RolloutKernel.rollout_kernel``); any other policy plays the same deals through ``env.step``
(``tools.policies.play_out``).

This module imports no game: everything game-specific comes through ``core.env.Env``.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env
from spoilfive_jax.core.validate import positive_int
from spoilfive_jax.tools.policies import Lineup, PolicySpec, lineup, play_deals
from spoilfive_jax.tools.sharding import batch_for, default_batch_size, shard_batch

Progress = Callable[[int, int], Any]  # progress(hands_done, hands_total)

U32 = jnp.uint32


def check_env(env: Any) -> Env[Any, Any]:
    """``env`` itself, or ``ValueError`` unless it is a game environment."""
    if not isinstance(env, Env):
        raise ValueError(
            "env must be a game environment (a spoilfive_jax.Env: sf.SpoilFive(...), "
            f"sf.FortyFive(...) or sf.make(game_id)), got {type(env).__name__}"
        )
    return env


def as_key(key: jax.Array | int) -> jax.Array:
    """A PRNG key from a key or an integer seed."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return jax.random.PRNGKey(int(key))
    return key  # type: ignore[return-value]


def batch_size_for(batch_size: Any, total: int) -> int:
    """The batch of a run of ``total`` items (``batch_size`` None: the backend's default)."""
    b = positive_int("batch_size", batch_size, allow_none=True)
    return batch_for(b or default_batch_size(), total)


# ------------------------------------------------------------------------ chunks


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _rollout_chunk(
    env: Env[Any, Any],
    who: Lineup,
    shape: tuple[int, int],
    keys: Any,
    first: jax.Array,
    count: jax.Array,
    options: dict[str, jax.Array],
    seat_policy: jax.Array,
) -> dict[str, jax.Array]:
    """Up to ``shape[0]`` batches of ``shape[1]`` hands, ids first, first+1, ...; only the
    first ``count`` batches are played (``count`` is traced: one compile for any run size),
    the rest of the output is left zero."""
    k, b = shape

    def one(i: jax.Array) -> dict[str, jax.Array]:
        ids = shard_batch(first + (i * b + jnp.arange(b, dtype=U32)))
        deal = env.capability(caps.Rollouts).rollout_deal(env, keys, ids, options)
        return play_deals(env, who, keys, ids, deal, seat_policy)

    def skip(i: jax.Array) -> dict[str, jax.Array]:
        return jax.tree.map(jnp.zeros_like, jax.eval_shape(one, i))  # type: ignore[no-any-return]

    out = jax.lax.map(lambda i: jax.lax.cond(i < count, one, skip, i), jnp.arange(k, dtype=U32))
    return jax.tree.map(lambda x: x.reshape((k * b, *x.shape[2:])), out)  # type: ignore[no-any-return]


# ------------------------------------------------------------------------ public API


@dataclasses.dataclass(frozen=True, eq=False)
class RolloutResult:
    """Per-hand outcomes of a rollout: host numpy arrays with H hands first, read as attributes
    (``result.rewards``, ``result.tricks_won``, ...).  Which fields there are is the game's
    ``Rollouts.outcome`` record; every game has ``rewards`` float32[H, N] (Spoil Five: net chips per
    seat; the Forty-Five family: the hand's points of each seat's team) and ``decisions``
    int32[H].  Spoil Five adds ``tricks_won``, ``winner``, ``jinked``, ``jink_won``, ``robbed``,
    ``robber``, ``carried_out``; the family has ``team_points``, ``bid``, ``bidder`` instead of
    ``winner`` and ``carried_out``.  ``summary()`` is the game's (``Rollouts.summarize``)."""

    fields: dict[str, np.ndarray]
    env: Env[Any, Any]
    seconds: float = 0.0  # wall time of the rollout, compile included

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("fields", "env", "seconds"):
            raise AttributeError(name)
        try:
            return self.fields[name]
        except KeyError:
            raise AttributeError(
                f"a {self.game} rollout has no field {name!r}; fields: {', '.join(self.fields)}"
            ) from None

    @property
    def game(self) -> str:
        """``env.id`` of the game played."""
        return self.env.id

    @property
    def num_hands(self) -> int:
        return int(self.fields["decisions"].shape[0])

    def summary(self) -> dict[str, Any]:
        """The game's summary of the hands (``Rollouts.summarize``): Spoil Five: win rate per seat,
        spoil and jink rates, mean chips per seat, with standard errors; the family: mean
        points per seat and team, team win rates, the trick distribution, jink, rob and bid
        rates."""
        return self.env.capability(caps.Rollouts).summarize(self.env, self)

    def hands_won(self) -> np.ndarray:
        """bool[H, N]: the hands each seat won (``Rollouts.hands_won``)."""
        return self.env.capability(caps.Rollouts).hands_won(self.env, self)


def _copy_out(
    fields: dict[str, np.ndarray], out: dict[str, jax.Array], first: int, count: int, total: int
) -> None:
    """Copy a call's first ``count`` hands into the host arrays (allocated on first use)."""
    for f, v in out.items():
        x = np.asarray(v)
        if f not in fields:
            fields[f] = np.empty((total, *x.shape[1:]), x.dtype)
        fields[f][first : first + count] = x[:count]


def rollout(
    key: jax.Array | int,
    env: Env[Any, Any],
    policy: PolicySpec = "random",
    num_hands: int = 1_000_000,
    batch_size: int | None = None,
    progress: Progress | None = None,
    *,
    dealer: int = 0,
    **options: Any,
) -> RolloutResult:
    """Play ``num_hands`` independent hands with ``env``'s game, table and rules.

    policy: a built-in name (``env.policy_names``: ``"random"``, ``"heuristic"``; the family's
    ``"greedy"`` too), a jittable ``policy(key, state, player) -> action``, or a list
    with one per seat.  ``batch_size`` hands are played at once (default: 16384 on CPU, 262144
    on an accelerator); ``progress(done, total)`` is called between chunks.  Every hand has the
    given ``dealer``; the game's own options (Spoil Five: ``carried``, the pot carried into
    every hand) are keywords too.  Same key -> same hands, whatever the batch size, chunking or
    devices.  What the result holds: ``RolloutResult``.

    The Forty-Five family: independent hands, each dealt at a new game (team scores zero).
    """
    check_env(env)
    num_hands = positive_int("num_hands", num_hands)  # type: ignore[assignment]
    if num_hands >= 2**32:
        raise ValueError("num_hands must be below 2**32 per key; split the run over keys")
    deal_options = env.capability(caps.Rollouts).deal_options(env, dealer=dealer, **options)
    b = batch_size_for(batch_size, num_hands)
    who, seat_policy = lineup(env, policy)
    keys = env.capability(caps.Rollouts).rollout_keys(env, as_key(key))
    opts = {k: jnp.int32(v) for k, v in deal_options.items()}
    # Each call plays up to k batches (~256k hands: progress is reported between calls); the
    # batch count is a traced argument, so one compile serves every run size.
    k = max(1, min(16, (1 << 18) // b))
    start = time.perf_counter()
    fields: dict[str, Any] = {}
    pending: tuple[dict[str, jax.Array], int, int] | None = None  # dispatched: output, first, count
    done = 0
    while done < num_hands or pending is not None:
        call = None
        if done < num_hands:  # dispatch the next call before copying out the previous one
            count = min(k, -(-(num_hands - done) // b)) * b
            out = _rollout_chunk(
                env,
                who,
                (k, b),
                keys,
                jnp.uint32(done),
                jnp.int32(count // b),
                opts,
                jnp.asarray(seat_policy),
            )
            call = (out, done, min(count, num_hands - done))
            done += count
        if pending is not None:
            _copy_out(fields, *pending, num_hands)
            if progress is not None:
                progress(pending[1] + pending[2], num_hands)
        pending = call
    return RolloutResult(fields, env, seconds=time.perf_counter() - start)


__all__ = ["Progress", "RolloutResult", "as_key", "batch_size_for", "check_env", "rollout"]
