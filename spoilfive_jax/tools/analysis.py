"""Position analysis: the value of every legal move of a position, for the player to act.

``analyze(key, env, state, num_samples, policy)`` answers "how good is each of my legal moves
here?" for ``state.current_player`` (p) by perfect-information Monte Carlo over the worlds p
cannot tell apart: each sample deals the cards p cannot see uniformly over the deals
consistent with the public history (``Analysis.resample_hidden_many``), then for each legal
action applies it and plays the hand out with ``policy`` at every seat
(``Analysis.playout``).  Every action uses the same samples and the same policy randomness
(common random numbers), so the differences between actions are estimated more precisely than
the values.

This module is game-generic: it never imports a game package.  It needs the game's
``Analysis`` capability (``core.capabilities``; a game without it gets one
``MissingCapability`` error):

- ``resample_hidden_many(env, key, state, player, count) -> State[count]``: independent
  worlds, each uniform over the deals consistent with what ``player`` knows (jittable, one
  hand);
- ``playout(env, keys, states, actions, player, policy) -> dict[str, float32[B, L]]``: apply
  each of ``actions`` int32[B, L] to the states [B] and play to the end with ``policy`` at
  every seat (one key per state, shared by its L playouts); per-rollout values for ``player``;
- ``analysis_fields(env) -> tuple[str, ...]``: the names of those values, the first is the
  one ``best`` maximises (expected chips, or points), and ``analysis_labels(env)`` their
  headings;
- ``max_legal_actions(env) -> int``: the most legal actions a decision can have;

and of the core ``env.num_actions`` and ``env.action_str`` (for ``table()``).  With
``infer_worlds`` the worlds are not uniform: each block keeps its worlds from more drawn, in
proportion to how likely each makes the other seats' plays (``sample_worlds``; the game's
``Inference`` capability).

Randomness: a position's samples are drawn in blocks of ``block_size(num_samples)`` (64, or
fewer samples): block ``j`` uses ``fold_in(key, j)`` only (one pooled resampling loop,
``resample_hidden_many``), and a chunk holds whole blocks, so a position's result is the same
whatever ``batch_size`` or whichever other positions are analysed with it.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, HandState, R, S, check_state
from spoilfive_jax.core.validate import as_key
from spoilfive_jax.tools import levers
from spoilfive_jax.tools.policies import PolicySpec, bind, resolve_one
from spoilfive_jax.tools.programs import bound_compiled_programs
from spoilfive_jax.tools.sharding import (
    host_arrays,
    one_at_a_time,
    round_to_devices,
    shard_batch,
)

DEFAULT_BATCH = 16384  # rollouts per compiled chunk
MIN_CHUNK = 256  # (position, sample) pairs of the smallest chunk
BLOCK = 64  # samples of one position resampled together (``block_size``)
DEFAULT_SOFTNESS = 0.6  # ``infer_worlds``: the share of each modelled play spread evenly over
#   the legal moves, the rest on the heuristic's choice.  Calibrated: pimc 64's plays of the
#   tricks are the Forty-Five heuristic's 62% of the time, at 3.1 legal cards on average, which
#   softness 0.59 matches (``python benchmarks/best_bot.py --agreement --deals 512``)


def legal_slots(legal: jax.Array, width: int) -> tuple[jax.Array, jax.Array]:
    """(action ids int32[width], in use bool[width]) of the legal actions of one hand's
    ``legal`` bool[A], padded with its first legal action."""
    ids = jnp.nonzero(legal, size=width, fill_value=-1)[0].astype(jnp.int32)
    used = ids >= 0
    return jnp.where(used, ids, ids[0]), used


def play_model(env: Env[S, R], model: Any, softness: float) -> Callable[[S, jax.Array], jax.Array]:
    """The model of the other seats' play that ``infer_worlds`` weighs the worlds by:
    ``probs(state, seat) -> float32[num_actions]`` (jittable), ``1 - softness`` times the
    model's chance of each action plus ``softness`` spread evenly over the legal ones.
    ``model``: a built-in policy name (a deterministic policy: its choice has all of its
    weight) or a policy with ``action_probs(state, seat)`` (a loaded agent: its distribution)."""
    if hasattr(model, "action_probs"):
        base = model.action_probs
    else:
        policy = resolve_one(env, model)[1]
        key = jax.random.PRNGKey(0)

        def base(state: S, seat: jax.Array) -> jax.Array:
            return jax.nn.one_hot(policy(key, state, seat), env.num_actions)

    def probs(state: S, seat: jax.Array) -> jax.Array:
        return (1 - softness) * base(state, seat) + softness * legal_spread(state, seat)

    return probs


def legal_spread(state: HandState, seat: jax.Array) -> jax.Array:
    """float32[num_actions]: an even chance of each legal action (``play_model``'s softness)."""
    legal = state.legal_action_mask
    return legal / jnp.maximum(legal.sum(), 1)


def block_size(num_samples: int) -> int:
    """Samples of one position drawn together (one pooled resampling loop)."""
    return min(BLOCK, int(num_samples))


def sample_worlds(
    env: Env[S, R],
    key: jax.Array,
    state: S,
    player: jax.Array,
    block: int,
    see_all: bool = False,
    infer_worlds: int = 0,
    model: Any = None,
) -> S:
    """``block`` worlds of ONE position for ``player`` (leading axis [block]; jittable): drawn by
    ``Analysis.resample_hidden_many(env, fold_in(key, 0), ...)``; ``see_all``: the position
    itself ``block`` times; ``infer_worlds`` > 0: that many drawn, then ``block`` of them kept,
    drawn without replacement in proportion to how likely each makes the other seats' plays
    under ``model`` (``Inference.play_log_likelihood``; the draw uses ``fold_in(key, 3)``)."""
    if see_all:
        return jax.tree.map(lambda x: jnp.broadcast_to(x, (block, *jnp.shape(x))), state)
    analysis = env.capability(caps.Analysis, "analyze")
    draws = infer_worlds or block
    drawn = analysis.resample_hidden_many(env, jax.random.fold_in(key, 0), state, player, draws)
    if not infer_worlds:
        return drawn
    weights = env.capability(caps.Inference, "pimc's infer_worlds").play_log_likelihood(
        env, drawn, player, model
    )
    noise = jax.random.gumbel(jax.random.fold_in(key, 3), weights.shape)
    kept = jax.lax.top_k(weights + noise, block)[1]  # (drawn in proportion, no world twice)
    return jax.tree.map(lambda x: x[kept], drawn)


def block_values(
    env: Env[S, R],
    policy: PolicySpec,
    width: int,
    block: int,
    keys: jax.Array,
    states: S,
    see_all: bool = False,
    solve_tricks: int | str = 0,
    infer_worlds: int = 0,
    model: Any = None,
) -> tuple[dict[str, jax.Array], jax.Array, jax.Array]:
    """``block`` sampled worlds of each of a batch of positions, every legal action tried in
    each (jittable).

    keys: [B] PRNG keys (one per block); states: [B] the positions (p = current player).  The
    worlds come from ``sample_worlds`` (``see_all``: every world is the position itself, hidden
    cards and all, a player who sees every hand: the cheating bound of a search;
    ``infer_worlds``, ``model``: kept by the likelihood of the other seats' plays); world
    l's playouts use the key ``fold_in(fold_in(key, 1), l)``.  ``solve_tricks`` > 0 (or
    ``"all"``): the playouts solve that many last tricks exactly (``EndgameSolve``).  Returns
    (values {field: float32[B, block, width]}, action ids int32[B, width], used bool[B, width])."""
    b = keys.shape[0]
    player = jnp.maximum(states.current_player, 0)
    worlds = jax.vmap(
        lambda k, s, p: sample_worlds(env, k, s, p, block, see_all, infer_worlds, model)
    )(keys, states, player)  # [B, block]
    lanes = jnp.arange(block)
    play_keys = jax.vmap(
        lambda k: jax.vmap(lambda lane: jax.random.fold_in(jax.random.fold_in(k, 1), lane))(lanes)
    )(keys)
    actions, used = jax.vmap(lambda m: legal_slots(m, width))(states.legal_action_mask)

    def flat(x: jax.Array) -> jax.Array:
        return x.reshape((b * block, *x.shape[2:]))

    args = (
        env,
        flat(play_keys),
        jax.tree.map(flat, worlds),
        jnp.repeat(actions, block, axis=0),
        jnp.repeat(player, block),
        policy,
    )
    if solve_tricks:
        solver = env.capability(caps.EndgameSolve, "pimc's solve_tricks")
        values = solver.solved_playout(*args, solve_tricks)
    else:
        values = env.capability(caps.Analysis, "analyze").playout(*args)
    return {f: v.reshape(b, block, width) for f, v in values.items()}, actions, used


@one_at_a_time
@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3, 8))
def _chunk(
    env: Env[S, R],
    policy: PolicySpec,
    width: int,
    block: int,
    key: jax.Array,
    states: S,
    pos: jax.Array,
    j: jax.Array,
    infer: Inferred | None = None,
) -> tuple[dict[str, jax.Array], jax.Array, jax.Array]:
    """The blocks (position pos[i], block j[i]) of one chunk, spread over the local devices."""
    pos, j = shard_batch(pos), shard_batch(j)
    chosen = jax.tree.map(lambda x: x[pos], states)
    keys = jax.vmap(lambda i: jax.random.fold_in(key, i))(j)
    if infer is None:
        return block_values(env, policy, width, block, keys, chosen)
    model = play_model(env, infer.model, infer.softness)
    return block_values(
        env, policy, width, block, keys, chosen, infer_worlds=infer.worlds, model=model
    )


@dataclasses.dataclass(frozen=True)
class Inferred:
    """``analyze``'s inference (hashable: a static argument): ``worlds`` drawn a block, kept by
    the plays' likelihood under ``model`` softened by ``softness`` (``play_model``)."""

    worlds: int
    model: Any
    softness: float


@dataclasses.dataclass(frozen=True)
class Analysis:
    """The value of each action of one position or a batch of positions (leading axes [...]).

    Every value array is float32[..., num_actions] indexed by action id, NaN where the action is
    not legal; ``<field>_se`` its standard error.  Spoil Five fields: ``expected_chips`` (p's net
    chips for the hand, as ``rewards``), ``win_prob`` (p takes the pot), ``spoil_prob`` (nobody
    takes it: a spoil or a failed jink).  Forty-Five family: ``expected_points`` (p's team's
    points for the hand, as ``rewards``) and ``make_prob`` (Auction: the bidding team makes its
    bid; NaN in the turn-up games).  Read them as attributes: ``res.win_prob``,
    ``res.win_prob_se``.
    """

    legal: np.ndarray  # bool[..., A]
    values: dict[str, np.ndarray]  # field -> float32[..., A]
    ses: dict[str, np.ndarray]  # field -> float32[..., A]
    fields: tuple[str, ...]  # the first is the one ``best`` maximises
    best: np.ndarray  # int[...]: the legal action with the highest first field
    player: np.ndarray  # int[...]: the seat analysed
    num_samples: int
    action_names: tuple[str, ...]  # text of each action id
    labels: dict[str, str] = dataclasses.field(default_factory=dict)  # field -> heading (game's)

    def __getattr__(self, name: str) -> np.ndarray:
        values = self.__dict__.get("values", {})
        ses = self.__dict__.get("ses", {})
        if name in values:
            return values[name]
        if name.endswith("_se") and name[:-3] in ses:
            return ses[name[:-3]]
        raise AttributeError(name)

    def rows(self, index: tuple[int, ...] = ()) -> list[dict[str, Any]]:
        """The legal actions of one position (``index`` into the batch axes), best first."""
        legal = self.legal[index]
        primary = self.values[self.fields[0]][index]
        order = sorted(np.flatnonzero(legal).tolist(), key=lambda a: -float(primary[a]))
        out = []
        for a in order:
            row: dict[str, Any] = {"action": int(a), "text": self.action_names[a]}
            for f in self.fields:
                row[f] = float(self.values[f][index][a])
                row[f + "_se"] = float(self.ses[f][index][a])
            out.append(row)
        return out

    def shown(self, index: tuple[int, ...]) -> list[str]:
        """The fields a table of one position shows: those with a value for some legal action
        (the family's ``make_prob`` is NaN outside Auction: no empty column)."""
        legal = self.legal[index]
        return [
            f
            for f in self.fields
            if f == self.fields[0] or not np.isnan(self.values[f][index][legal]).all()
        ]

    def cells(self, index: tuple[int, ...] | int = ()) -> tuple[list[str], list[list[str]]]:
        """(column names, rows of text cells) of one position's legal actions, best first: the
        action, then per field its value and ``± se`` (probabilities in %)."""
        if isinstance(index, int):
            index = (index,)
        fields = self.shown(index)
        columns = ["action"]
        for f in fields:
            columns += [self.labels.get(f, f), "±"]
        rows = []
        for row in self.rows(index):
            cells = [row["text"]]
            for f in fields:
                v, se = row[f], row[f + "_se"]
                if math.isnan(v):
                    cells += ["-", ""]
                elif f.endswith("_prob"):
                    cells += [f"{100 * v:.1f}", f"{100 * se:.1f}"]
                else:
                    cells += [f"{v:+.3f}", f"{se:.3f}"]
            rows.append(cells)
        return columns, rows

    def table(self, index: tuple[int, ...] | int = ()) -> str:
        """A readable table of one position's legal actions, best first (probabilities in %)."""
        if isinstance(index, int):
            index = (index,)
        fields = self.shown(index)
        lines = []
        head = f"{'action':<8}" + "".join(f"{self.labels.get(f, f):>20}" for f in fields)
        lines.append(head)
        for row in self.rows(index):
            cells = []
            for f in fields:
                v, se = row[f], row[f + "_se"]
                if math.isnan(v):
                    cells.append(f"{'-':>20}")
                elif f.endswith("_prob"):
                    cells.append(f"{100 * v:>11.1f} ± {100 * se:5.1f}")
                else:
                    cells.append(f"{v:>+11.3f} ± {se:5.3f}")
            lines.append(f"{row['text']:<8}" + "".join(cells))
        lines.append(f"({self.num_samples} samples per action, player {int(self.player[index])})")
        return "\n".join(lines)


def analyze(
    key: jax.Array | int,
    env: Env[S, R],
    state: S,
    num_samples: int = 1000,
    policy: PolicySpec = "heuristic",
    batch_size: int | None = None,
    *,
    infer_worlds: int = 0,
    infer_model: Any = "heuristic",
    softness: float = DEFAULT_SOFTNESS,
) -> Analysis:
    """Score every legal action of ``state.current_player`` (module docstring).

    state: one live hand or a batch with leading axes [...]; the result's arrays are
    [..., env.num_actions].  policy: ``"heuristic"`` (each game's own),
    ``"random"`` or any jittable ``policy(key, state, player)``.  ``batch_size``: rollouts per
    compiled chunk (the result does not depend on it).  Positions are grouped by their number
    of legal actions; a group runs in full chunks and one last chunk of a power-of-two size, so
    a call compiles at most two chunk shapes a group (each reused by later calls).  A call
    that fits one chunk at the game's ``max_legal_actions`` (a single position, a hint) tries
    that many slots whatever its count: one compiled shape serves every such call with the
    same ``num_samples`` and number of positions.
    ``infer_worlds``, ``infer_model``, ``softness``: the worlds weighed by the other seats' plays
    as ``sf.pimc``'s are (a game with the ``Inference`` capability): each block of
    ``block_size(num_samples)`` worlds is kept from ``infer_worlds`` drawn.
    """
    bound_compiled_programs()  # (tools.programs: a long-lived process stays under the limit)
    key = as_key(key)
    if isinstance(num_samples, bool) or int(num_samples) < 2:
        raise ValueError(f"num_samples must be an integer >= 2, got {num_samples!r}")
    k_count = int(num_samples)
    check_state(env, state, "analyze")
    policy = bind(env, policy)  # an unbound spec (``sf.pimc(num_samples=...)``) takes ``env``
    infer = _inferred(env, policy, infer_worlds, infer_model, softness, block_size(k_count))
    flat, batch_shape = _flat_positions(state)
    num_pos = int(np.asarray(flat.current_player).shape[0])
    width = int(env.capability(caps.Analysis, "analyze").max_legal_actions(env))
    fields = tuple(env.capability(caps.Analysis, "analyze").analysis_fields(env))
    sums, squares, actions, used = _sample(
        env, policy, key, flat, k_count, width, fields, batch_size, infer
    )
    a_count = int(env.num_actions)
    legal, values, ses = _by_action(sums, squares, actions, used, k_count, a_count, batch_shape)
    primary = np.where(legal, values[fields[0]].reshape(num_pos, a_count), -np.inf)
    best = np.argmax(primary, axis=-1).reshape(batch_shape)
    names = tuple(env.action_str(a) for a in range(a_count))
    player = np.asarray(flat.current_player).reshape(batch_shape)
    labels = dict(env.capability(caps.Analysis, "analyze").analysis_labels(env))
    return Analysis(
        legal.reshape((*batch_shape, a_count)),
        values,
        ses,
        fields,
        best,
        player,
        k_count,
        names,
        labels,
    )


def _inferred(
    env: Env[S, R],
    policy: PolicySpec,
    infer_worlds: Any,
    infer_model: Any,
    softness: Any,
    kept: int,
) -> Inferred | None:
    """``analyze``'s inference (``ValueError`` for bad arguments, ``tools.levers``; the model
    only when there is inference), or None.  ``kept``: the worlds of a block."""
    levers.check_inference(infer_worlds, softness, kept)
    if not infer_worlds:
        return None
    model = bind(env, infer_model)
    levers.check_levers(env, None, 0.0, 0, policy, int(infer_worlds), who="analyze")
    levers.check_infer_model(env, model, who="analyze")
    return Inferred(int(infer_worlds), model, float(softness))


def _flat_positions(state: S) -> tuple[S, tuple[int, ...]]:
    """(the positions on the host with one batch axis [P], the batch axes of ``state``); a
    terminated one is refused."""
    host = jax.device_get(state)
    batch_shape = tuple(np.shape(host.current_player))
    axes, count = len(batch_shape), math.prod(batch_shape)
    flat = jax.tree.map(lambda x: np.asarray(x).reshape((count, *np.shape(x)[axes:])), host)
    if np.asarray(flat.terminated).any():
        raise ValueError("analyze needs live positions: a state is terminated")
    return flat, batch_shape


def _sample(
    env: Env[S, R],
    policy: PolicySpec,
    key: jax.Array,
    flat: S,
    k_count: int,
    width: int,
    fields: tuple[str, ...],
    batch_size: int | None,
    infer: Inferred | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """The ``k_count`` samples of every position of ``flat`` [P], in chunks of whole blocks:
    per field the sums and sums of squares of each action slot's values float64[P, width], and
    the slots' action ids int64[P, width] and use bool[P, width]."""
    num_pos = int(np.asarray(flat.current_player).shape[0])
    block = block_size(k_count)
    per_pos = -(-k_count // block)  # blocks of a position (the last one may be partly used)
    sums = {f: np.zeros((num_pos, width)) for f in fields}
    squares = {f: np.zeros((num_pos, width)) for f in fields}
    actions = np.zeros((num_pos, width), np.int64)
    used = np.zeros((num_pos, width), bool)
    dev_states = jax.tree.map(jnp.asarray, flat)
    lanes = np.arange(block)
    # Positions grouped by their number of legal actions: each group's chunks try only that
    # many actions (a rollout's value does not depend on how many slots its chunk has).  A
    # call small enough for one chunk at the full width (a hint, one position) tries all
    # ``width`` slots instead: one compiled shape whatever the count (it had compiled anew,
    # some seconds, for each count met in a game), the same values.
    counts = np.maximum(np.asarray(flat.legal_action_mask).sum(-1), 1)
    if num_pos * per_pos * block * width <= int(batch_size or DEFAULT_BATCH):
        counts = np.full_like(counts, width)

    def add(out: Any, w: int, real: np.ndarray, pos: np.ndarray, j: np.ndarray) -> None:
        vals, acts, use = host_arrays(out)
        # the samples in use: real blocks, and in a position's last block the first ones
        keep = (real[:, None] & (j[:, None] * block + lanes[None, :] < k_count))[..., None]
        p_real = pos[real]
        for f in fields:
            v = np.where(keep, vals[f].astype(np.float64), 0.0)
            np.add.at(sums[f][:, :w], p_real, v.sum(1)[real])
            np.add.at(squares[f][:, :w], p_real, (v**2).sum(1)[real])
        actions[p_real, :w] = acts[real]
        used[p_real, :w] = use[real]

    # One chunk in flight ahead: the next chunk is dispatched before the last one's values are
    # read and added up, so that host work overlaps the device's (the same sums, in order).
    pending: tuple[Any, ...] | None = None
    for w in np.unique(counts).tolist():
        group = np.flatnonzero(counts == w)
        blocks = group.size * per_pos
        for first, per_chunk in _chunk_spans(w, block, blocks, batch_size):
            idx = np.arange(first, first + per_chunk)
            real = idx < blocks
            idx = np.where(real, idx, 0)
            pos, j = group[idx // per_pos], idx % per_pos
            out = _chunk(
                env,
                policy,
                w,
                block,
                key,
                dev_states,
                jnp.asarray(pos, jnp.int32),
                jnp.asarray(j),
                infer,
            )
            if pending is not None:
                add(*pending)
            pending = (out, w, real, pos, j)
    if pending is not None:
        add(*pending)
    return sums, squares, actions, used


def _chunk_spans(
    width: int, block: int, blocks: int, batch_size: int | None
) -> list[tuple[int, int]]:
    """(first block, blocks) of each chunk of a group of ``blocks`` blocks whose positions try
    ``width`` actions: about ``batch_size`` rollouts a chunk, few distinct shapes (so few
    compiles), sharded evenly.  Full chunks, then one sized to what is left (a power of two,
    so a group's last chunk is at most about half padding rather than nearly a whole chunk)."""
    smallest = max(1, MIN_CHUNK // block)
    most = max(1, int(batch_size or DEFAULT_BATCH) // (width * block))
    spans, first = [], 0
    while first < blocks:
        # (while a full chunk's worth is left this is ``most``: the same shape every time)
        size = round_to_devices(min(most, max(smallest, _pow2(blocks - first))))
        spans.append((first, size))
        first += size
    return spans


def _by_action(
    sums: dict[str, np.ndarray],
    squares: dict[str, np.ndarray],
    actions: np.ndarray,
    used: np.ndarray,
    k_count: int,
    a_count: int,
    batch_shape: tuple[int, ...],
) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The slots' sums moved to their action ids: (legal bool[P, A], per field the means and
    their standard errors float32[..., A], NaN where the action is not legal)."""
    num_pos, width = actions.shape
    legal = np.zeros((num_pos, a_count), bool)
    values, ses = {}, {}
    rows = np.repeat(np.arange(num_pos), width)
    for f in sums:
        mean = sums[f] / k_count
        var = np.maximum(squares[f] / k_count - mean**2, 0.0) * k_count / (k_count - 1)
        se = np.sqrt(var / k_count)
        out_v = np.full((num_pos, a_count), np.nan, np.float32)
        out_s = np.full((num_pos, a_count), np.nan, np.float32)
        u = used.reshape(-1)
        out_v[rows[u], actions.reshape(-1)[u]] = mean.reshape(-1)[u]
        out_s[rows[u], actions.reshape(-1)[u]] = se.reshape(-1)[u]
        values[f] = out_v.reshape((*batch_shape, a_count))
        ses[f] = out_s.reshape((*batch_shape, a_count))
    legal[rows[used.reshape(-1)], actions.reshape(-1)[used.reshape(-1)]] = True
    return legal, values, ses


def _pow2(n: int) -> int:
    """The smallest power of two >= n (chunk shapes shared between calls)."""
    return 1 << max(0, (n - 1).bit_length())


def position_env(env: Env[S, R], text: str | None = None, **fields: Any) -> Env[S, R]:
    """The table a position names (its ``players=`` and ``rules=`` fields; ``env``'s where not
    given), through the game's ``Positions`` capability."""
    return env.capability(caps.Positions, "position_env").position_env(env, text, **fields)


def position_from_history(env: Env[S, R], text: str | None = None, **fields: Any) -> S:
    """The state of a position given as text (``players=5; dealer=0; turnup=7D; player=1;
    hand=...; history=...``) or as the same fields, at ``env``'s table; a one-line
    ``ValueError`` naming the problem for an impossible or inconsistent history."""
    positions = env.capability(caps.Positions, "position_from_history")
    return positions.position_from_history(env, text, **fields)
