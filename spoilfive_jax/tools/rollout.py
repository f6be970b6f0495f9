"""Rollouts: millions of whole hands of any game inside jitted loops, chunked on the host.

Hand ``i`` of a rollout with key ``k`` is dealt and played from ``k`` and ``i`` alone (the game
decides how: ``Rollouts.rollout_keys``, ``Rollouts.rollout_deal``, ``Rollouts.hand_keys``), so
results do not depend on the batch size, the chunking or the number of devices.  Hands run on the
game's kernel when it has one for the lineup (``RolloutKernel.rollout_kernel``: Spoil Five's
plays any lineup, the family's the built-in policies); any other lineup plays the same deals
through ``env.step`` (``tools.policies.play_batch``).

This module imports no game: everything game-specific comes through ``core.env.Env``.
"""

from __future__ import annotations

import dataclasses
import functools
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any, Generic

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, R, S
from spoilfive_jax.core.stats import RunStats, add_batches, batch_stats, no_per_hand, run_stats
from spoilfive_jax.core.validate import as_key, check_bool, positive_int
from spoilfive_jax.tools.checkpoint import (
    CheckpointSpec,
    ChunkWriter,
    Loop,
    as_checkpoint,
    policy_facts,
    run_chunks,
    run_facts,
)
from spoilfive_jax.tools.chunks import EPOCH, Chunk, hand_chunks, run_keys
from spoilfive_jax.tools.policies import Lineup, PolicySpec, lineup, play_deals
from spoilfive_jax.tools.programs import bound_compiled_programs
from spoilfive_jax.tools.sharding import (
    batch_for,
    default_batch_size,
    host_arrays,
    one_at_a_time,
    replicated,
    shard_batch,
)

Progress = Callable[[int, int], Any]  # progress(hands_done, hands_total)

U32 = jnp.uint32


def check_env(env: Env[S, R]) -> Env[S, R]:
    """``env`` itself, or ``ValueError`` unless it is a game environment."""
    if not isinstance(env, Env):
        raise ValueError(
            "env must be a game environment (a spoilfive_jax.Env: sf.make(game_id), "
            f"sf.spoil_five.SpoilFive(...), ...), got {type(env).__name__}"
        )
    return env


def batch_size_for(batch_size: Any, total: int) -> int:
    """The batch of a run of ``total`` items (``batch_size`` None: the backend's default)."""
    b = positive_int("batch_size", batch_size, allow_none=True)
    return batch_for(b or default_batch_size(), total)


# ------------------------------------------------------------------------ chunks


@one_at_a_time
@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def play_chunk(
    env: Env[S, R],
    who: Lineup,
    shape: tuple[int, int],
    keys: caps.RunKeys,
    first: jax.Array,
    hands: jax.Array,
    options: dict[str, jax.Array],
    seat_policy: jax.Array,
) -> dict[str, jax.Array]:
    """One call of a run (every tool's rollouts): ``shape[0]`` steps of ``shape[1]`` hands,
    the records of ids first, first+1, ..., first + k*b - 1 in that order; only the first
    ``hands`` of them are played (``hands`` is traced: one compile for any run size), the
    others' records are zero or unused.

    With the batch spread over D devices, each device plays its own contiguous block of the
    call's hands (step i, lane jj of device d: hand d*k*b/D + i*b/D + jj), so the records come
    back in order without moving between devices (with a block a step, the flat order would
    need an all-to-all of every record: across processes, over the network).  With one device
    this is hand i*b + jj: the same steps as always."""
    k, b = shape
    d = jax.device_count()
    d = d if d > 1 and b % d == 0 else 1
    per = b // d  # lanes of one device a step

    def one(i: jax.Array) -> dict[str, jax.Array]:
        lane = jnp.arange(b, dtype=U32)
        ids = shard_batch(first + (lane // per) * (k * per) + i * per + lane % per)
        deal = env.capability(caps.Rollouts).rollout_deal(env, keys, ids, options)
        return play_deals(env, who, keys, ids, deal, seat_policy)

    def skip(i: jax.Array) -> dict[str, jax.Array]:
        return jax.tree.map(jnp.zeros_like, jax.eval_shape(one, i))  # type: ignore[no-any-return]

    limit = hands.astype(U32)  # a step is needed while device 0's lanes hold hands to play
    out = jax.lax.map(
        lambda i: jax.lax.cond(i * per < limit, one, skip, i), jnp.arange(k, dtype=U32)
    )

    def in_order(x: jax.Array) -> jax.Array:  # [k, b, ...] -> [k*b, ...], hand order
        blocks = x.reshape((k, d, per, *x.shape[2:])).swapaxes(0, 1)
        return blocks.reshape((k * b, *x.shape[2:]))

    return jax.tree.map(in_order, out)  # type: ignore[no-any-return]


def hand_values(env: Env[S, R], record: dict[str, Any]) -> Any:
    """The game's values of a record (``Rollouts.hand_values``), with the hands that ended on
    an illegal action counted (``illegal``, which every rollout record has)."""
    averaged, counted = env.capability(caps.Rollouts).hand_values(env, record)
    if "illegal" in record:
        counted = {**counted, "illegal": record["illegal"]}
    return averaged, counted


@one_at_a_time
@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _chunk_stats(
    env: Env[S, R], k: int, used: int, records: dict[str, jax.Array], count: jax.Array
) -> dict[str, Any]:
    """A call's records (``play_chunk``'s, still on the device) reduced batch by batch to
    the game's statistics (``hand_values``, ``core.stats.batch_stats``) of its first
    ``count`` hands: a pytree with a leading axis of ``used`` batches (the first ``used`` of
    the call's ``k``: those that hold its hands), nothing per hand.  (The call's program is the
    per-hand one: one compile serves both.)"""
    b = records["decisions"].shape[0] // k
    batches = jax.tree.map(lambda x: x[: used * b].reshape((used, b, *x.shape[1:])), records)
    valid = jnp.arange(used * b, dtype=jnp.int32).reshape(used, b) < count
    stats = jax.vmap(lambda r, v: batch_stats(hand_values(env, r), v))(batches, valid)
    return replicated(stats)  # type: ignore[no-any-return]


def batches_used(k: int, b: int, hands: int) -> int:
    """The batches of a call of ``k`` batches of ``b`` hands that ``_chunk_stats`` reduces for
    its ``hands`` hands: those they fill, rounded up to a power of two, so that the sizes of
    run a user tries compile at most ``log2(k) + 1`` programs of statistics (each about 0.4 s
    on a 2-core CPU), not one per number of batches.  All ``k`` with several devices, where a
    call's hands are laid out device by device (``play_chunk``) and the first batches'
    records do not sit together."""
    filled = -(-hands // b)
    return k if jax.device_count() > 1 else min(k, 1 << (filled - 1).bit_length())


def calls_of(b: int) -> int:
    """Batches a call plays (~256k hands: progress is reported between calls)."""
    return max(1, min(16, (1 << 18) // b))


def pipelined(calls: Iterator[tuple[Any, Any]], consume: Callable[[Any, Any], None]) -> None:
    """``consume(output, tag)`` of each ``(output, tag)`` the iterator dispatches, one call
    behind: the device plays call i + 1 while the host copies call i out."""
    pending = None
    for call in calls:
        if pending is not None:
            consume(*pending)
        pending = call
    if pending is not None:
        consume(*pending)


# ------------------------------------------------------------------------ public API


@dataclasses.dataclass(frozen=True, eq=False)
class RolloutResult(Generic[S, R]):
    """Per-hand outcomes of a rollout: host numpy arrays with H hands first, read as attributes
    (``result.rewards``, ``result.tricks_won``, ...).  Which fields there are is the game's
    ``Rollouts.outcome`` record; every game has ``rewards`` float32[H, N] (Spoil Five: net chips per
    seat; the Forty-Five family: the hand's points of each seat's team) and ``decisions``
    int32[H].  Spoil Five adds ``tricks_won``, ``winner``, ``jinked``, ``jink_won``, ``robbed``,
    ``robber``, ``carried_out``; the family has ``team_points``, ``bid``, ``bidder`` instead of
    ``winner`` and ``carried_out``.  ``summary()`` is the game's (``Rollouts.summary_from_stats``
    of ``Rollouts.hand_values``).

    A rollout run with ``per_hand=False`` holds only the run's statistics (``stats``, a
    ``core.stats.RunStats`` of a size independent of H) and no ``fields``: ``summary()`` works,
    and reading a per-hand field (or ``hands_won()``) raises ``core.stats.NoPerHand`` (an
    ``AttributeError``) saying to pass ``per_hand=True``."""

    fields: dict[str, np.ndarray]
    env: Env[S, R]
    seconds: float = 0.0  # wall time of the rollout, compile included
    stats: RunStats | None = None  # per_hand=False: the run's statistics (no fields)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("fields", "env", "seconds", "stats"):
            raise AttributeError(name)
        if self.stats is not None:
            raise no_per_hand(f"{self.game} rollout", name)
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
    def per_hand(self) -> bool:
        """Whether the result holds the per-hand fields (``rollout(..., per_hand=True)``)."""
        return self.stats is None

    @property
    def num_hands(self) -> int:
        if self.stats is not None:
            return self.stats.hands
        return int(self.fields["decisions"].shape[0])

    def summary(self) -> dict[str, Any]:
        """The game's summary of the hands (``Rollouts.summary_from_stats``): Spoil Five: win
        rate per seat, spoil and jink rates, mean chips per seat, with standard errors; the
        family: mean points per seat and team, team win rates, the trick distribution, jink,
        rob and bid rates.  Per hand, the statistics are those of every hand at once in
        float64; streamed, pooled batch by batch (``core.stats``: the same counts and means,
        standard errors to float32 rounding).  Every game's also has ``illegal_rate``: the
        share of hands that ended on an illegal action (a custom policy's)."""
        rollouts = self.env.capability(caps.Rollouts)
        run = self.stats
        if run is None:
            run = run_stats(hand_values(self.env, self.fields))
        summary = rollouts.summary_from_stats(self.env, run, self.seconds)
        if "illegal" in run.totals:  # the share of hands that ended on an illegal action
            summary["illegal_rate"] = float(run.share("illegal"))
        return summary

    def hands_won(self) -> np.ndarray:
        """bool[H, N]: the hands each seat won (``Rollouts.hands_won``)."""
        if self.stats is not None:
            raise no_per_hand(f"{self.game} rollout", "hands_won()")
        return self.env.capability(caps.Rollouts).hands_won(self.env, self)  # type: ignore[no-any-return]


def _copy_out(
    fields: dict[str, np.ndarray], out: dict[str, jax.Array], first: int, count: int, total: int
) -> None:
    """Copy a call's first ``count`` hands into the host arrays (allocated on first use)."""
    for f, x in host_arrays(out).items():
        if f not in fields:
            fields[f] = np.empty((total, *x.shape[1:]), x.dtype)
        fields[f][first : first + count] = x[:count]


def rollout(
    key: jax.Array | int,
    env: Env[S, R],
    policy: PolicySpec = "random",
    num_hands: int = 1_000_000,
    batch_size: int | None = None,
    progress: Progress | None = None,
    *,
    dealer: int = 0,
    per_hand: bool = True,
    checkpoint: CheckpointSpec = None,
    writer: ChunkWriter | None = None,
    should_stop: Callable[[], bool] | None = None,
    **options: Any,
) -> RolloutResult[S, R]:
    """Play ``num_hands`` independent hands with ``env``'s game, table and rules.

    policy: a built-in name (``env.policy_names``: ``"random"``, ``"heuristic"``; the family's
    ``"greedy"`` too), a jittable ``policy(key, state, player) -> action``, or a list
    with one per seat.  ``batch_size`` hands are played at once (default: 16384 on CPU, 262144
    on an accelerator); ``progress(done, total)`` is called between chunks.  Every hand has the
    given ``dealer``; the game's own options (Spoil Five: ``carried``, the pot carried into
    every hand) are keywords too.  Same key -> same hands, whatever the batch size, chunking or
    devices.  What the result holds: ``RolloutResult``.

    ``per_hand``: True keeps every hand's record on the host (Spoil Five at 5 players: 59
    bytes a hand; below 2**32 hands).  False streams: each batch is reduced on the device to
    the game's summary statistics, pooled on the host in float64, so memory does not grow
    with ``num_hands`` (any number, 10**12 and beyond); the result then has ``summary()`` and
    no per-hand fields, and its summary is the per-hand one's for the same key: counts, rates
    and means of integer values (every built-in game's) exactly, standard errors to float32
    rounding (about 1e-6 relative).

    A streamed run (``per_hand=False``) can also be kept going over any time
    (``tools.checkpoint``): ``checkpoint``, a directory (or a ``Checkpoint``), saves the
    run's state after every call, and the same call with the same directory resumes after the
    last call saved, with the result of a run never stopped, bit for bit (a checkpoint of
    another run is a ``ValueError``); ``writer`` (a ``ChunkWriter``) receives every call's
    per-hand fields as they are played (the command line's ``--per-hand`` files), positioned
    with each checkpoint; ``should_stop()``, asked after every call, ends the run there when it
    returns True: the result then holds the hands done so far (``num_hands`` below the one
    asked for).  ``progress(done, total)`` is called once before the first call (``done``:
    the hands a checkpoint already holds) and after each.

    The Forty-Five family: independent hands, each dealt at a new game (team scores zero).
    """
    check_env(env)
    num_hands = positive_int("num_hands", num_hands)  # type: ignore[assignment]
    return rollout_range(
        key,
        env,
        policy,
        0,
        num_hands,
        batch_size,
        progress,
        dealer=dealer,
        per_hand=per_hand,
        checkpoint=checkpoint,
        writer=writer,
        should_stop=should_stop,
        **options,
    )


def rollout_range(
    key: jax.Array | int,
    env: Env[S, R],
    policy: PolicySpec,
    start: int,
    stop: int,
    batch_size: int | None = None,
    progress: Progress | None = None,
    *,
    dealer: int = 0,
    per_hand: bool = True,
    checkpoint: CheckpointSpec = None,
    writer: ChunkWriter | None = None,
    should_stop: Callable[[], bool] | None = None,
    **options: Any,
) -> RolloutResult[S, R]:
    """Hands ``start .. stop - 1`` of the run ``rollout(key, ...)`` would play (the same hands:
    a run can be split into ranges, e.g. one per host, and the parts' statistics pooled);
    ``rollout`` is the range from 0.  Hand ``i`` is id ``i % 2**32`` of the key material of
    epoch ``i // 2**32`` (``tools.chunks``).  ``checkpoint``, ``writer``, ``should_stop``: as
    ``rollout``'s (streamed ranges only)."""
    bound_compiled_programs()  # (tools.programs: a long-lived process stays under the limit)
    check_env(env)
    per_hand = check_bool("per_hand", per_hand)
    ckpt = as_checkpoint(checkpoint)
    if per_hand and (ckpt is not None or writer is not None or should_stop is not None):
        raise ValueError(
            "checkpoint, writer and should_stop need per_hand=False (a streamed run: a per-hand "
            "result is kept in memory, which no checkpoint holds; a writer keeps the hands in "
            "a file instead)"
        )
    if writer is not None and not isinstance(writer, ChunkWriter):
        raise ValueError(
            "writer must be a tools.checkpoint.ChunkWriter (open, write, sync, finish, close, "
            f"describe), got {type(writer).__name__}"
        )
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or start < 0:
        raise ValueError(f"start must be an integer >= 0, got {start!r}")
    total = positive_int("stop - start", stop - start)
    assert total is not None
    if per_hand and total >= EPOCH:
        raise ValueError(
            "num_hands must be below 2**32 with per_hand=True (every hand's record is kept in "
            "memory); pass per_hand=False for a summary of any number of hands"
        )
    deal_options = env.capability(caps.Rollouts).deal_options(env, dealer=dealer, **options)
    b = batch_size_for(batch_size, total)
    who, seat_policy = lineup(env, policy)
    opts = {k: jnp.int32(v) for k, v in deal_options.items()}
    run = _Run(env, who, jnp.asarray(seat_policy), opts, as_key(key), b, int(start), total)
    begin = time.perf_counter()
    if per_hand:
        return warn_illegal(RolloutResult(run.fields(progress), env, time.perf_counter() - begin))
    facts = {"policy": policy_facts(who.names, who.policies, seat_policy)}
    facts.update(range=[int(start), int(start) + total], batch=b)
    facts["options"] = {k: int(v) for k, v in deal_options.items()}
    loop = run.loop(run_facts("rollout", env, run.key, **facts), hands=writer is not None)
    end = run_chunks(loop, checkpoint=ckpt, writer=writer, progress=progress, stop=should_stop)
    return warn_illegal(RolloutResult({}, env, seconds=end.seconds, stats=end.state))


def warn_illegal(result: RolloutResult[S, R]) -> RolloutResult[S, R]:
    """Say so (a ``RuntimeWarning``) when some hands ended on an illegal action: a custom policy
    that returns an action that is not legal gives statistics of hands cut short, which
    nothing else would show (the records have ``illegal``, the summary ``illegal_rate``)."""
    illegal = illegal_hands(result)
    if illegal:
        warnings.warn(
            f"{illegal:,} of {result.num_hands:,} hands ({illegal / result.num_hands:.2%}) ended "
            "on an illegal action: a policy returned an action that was not legal, and each such "
            "hand ended at once (see illegal in the records, illegal_rate in the summary)",
            RuntimeWarning,
            stacklevel=4,  # the caller of sf.rollout
        )
    return result


def illegal_hands(result: RolloutResult[S, R]) -> int:
    """How many of a result's hands ended on an illegal action."""
    if result.stats is not None:
        return int(result.stats.totals.get("illegal", 0))
    return int(np.count_nonzero(result.fields.get("illegal", False)))


@dataclasses.dataclass(frozen=True)
class _Run(Generic[S, R]):
    """A range of hands to play, with everything its calls share."""

    env: Env[S, R]
    who: Lineup
    seat_policy: jax.Array
    opts: dict[str, jax.Array]
    key: jax.Array
    b: int
    start: int
    total: int

    def calls(self, done: int = 0, stream: bool = False, records: bool = True) -> Iterator[Any]:
        """Dispatch every call of the range from hand ``start + done`` on; yields (output,
        chunk): the call's records, (``stream``) their statistics reduced on the device, or
        both, (statistics, records).  The epoch's keys are computed once per epoch."""
        k = calls_of(self.b)
        keys, epoch = None, -1
        for c in hand_chunks(self.start + done, self.start + self.total, k * self.b):
            if c.epoch != epoch:
                keys, epoch = run_keys(self.env, self.key, c.epoch), c.epoch
            args = (keys, jnp.uint32(c.first), jnp.int32(c.hands), self.opts, self.seat_policy)
            out = play_chunk(self.env, self.who, (k, self.b), *args)
            if not stream:
                yield out, c
                continue
            used = batches_used(k, self.b, c.hands)
            stats = _chunk_stats(self.env, k, used, out, jnp.int32(c.hands))
            yield ((stats, out) if records else stats), c

    def fields(self, progress: Progress | None) -> dict[str, np.ndarray]:
        """Every hand's record, copied to host arrays call by call."""
        fields: dict[str, np.ndarray] = {}
        if progress is not None:
            progress(0, self.total)

        def consume(out: dict[str, jax.Array], c: Chunk) -> None:
            _copy_out(fields, out, c.start - self.start, c.hands, self.total)
            if progress is not None:
                progress(c.start - self.start + c.hands, self.total)

        pipelined(self.calls(), consume)
        return fields

    def loop(self, facts: dict[str, Any], hands: bool) -> Loop:
        """The streamed run (``tools.checkpoint.run_chunks``): statistics pooled call by call
        (nothing per hand on the host), and (``hands``) each call's records copied out."""

        def add(run: RunStats | None, out: Any, c: Chunk) -> RunStats:
            return add_batches(run, host_arrays(out[0] if hands else out))

        def records(out: Any, c: Chunk) -> dict[str, np.ndarray]:
            return {f: v[: c.hands] for f, v in host_arrays(out[1]).items()}

        return Loop(
            lambda done: self.calls(done, stream=True, records=hands),
            add,
            self.total,
            facts,
            records if hands else None,
        )


__all__ = [
    "Progress",
    "RolloutResult",
    "as_key",
    "batch_size_for",
    "check_env",
    "pipelined",
    "play_chunk",
    "rollout",
    "rollout_range",
]
