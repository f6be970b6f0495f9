"""PPO for any registered game, fully jitted on vmapped tables (extra ``rl``).

Imported only by ``spoilfive_jax.rl.agent`` and the examples (it needs flax and optax); the core
package never imports it.  It talks to the game through the core ``Env`` only (``init``,
``step``, ``observe``, the legal mask, the built-in policies) and its ``Teams`` capability.

The learner holds seat ``LEARNER`` (0) and every seat of its team (``Teams.team_of``: in the
Forty-Five family at 4 players, seats 0 and 2), all played by one network; the team's reward
(seat 0's, which its partners share) is the learner's.  The dealer is drawn uniformly for every
hand, so over many hands the learner plays from every position; in Auction Forty-Fives it
bids, names trump, discards and plays.  The other seats act by the opponent policy: the game's
built-in ``"heuristic"`` or ``"random"``, or a past self (``"self"``: the network as it was at
one of the last ``pool_size`` snapshots, taken every ``pool_every`` updates, drawn uniformly for
each update and sampled from).

One environment step of the learner is: its action, then the opponents play until a learner
seat is to act again; when a hand ends on the way, its reward is the step's reward, a new hand
is dealt and the opponents play up to the learner's first decision.  ``update`` collects
``num_steps`` such steps on ``num_envs`` tables with ``lax.scan``, then runs GAE and ``epochs``
x ``minibatches`` clipped-PPO updates, all in one jitted call.  With ``num_devices`` > 1 the
tables are split over that many local devices (``sf.use_all_cores()`` on a CPU), or over every
device of every process of a run (``sf.distributed.initialize``; each process runs the same
training): each device collects and learns on its share and the gradients are averaged over the
devices, so the parameters stay the same everywhere.

Optional warm start (``train(..., warmup_updates=K)``): K iterations in which the learner's
seats play the teacher (``teacher``: the heuristic, or ``"pimc"``, the search bot
``sf.pimc(env, teacher_worlds)``) and the network learns its choices by cross-entropy (and the
value of that play), then PPO takes over from that policy.

The network (``rl.network.network_for``: Spoil Five's ``ActorCritic``, the family's
``FamilyActorCritic``, any other game's ``MLPActorCritic``) reads ``observe(state, player)`` and
the legal action mask only, and with ``advice`` a built-in policy's choice for the same
decision (``rl.network.agent_input``).

Keys: the run's key (``Runner.key``) is threefry, split once a learner step; what is drawn per
table (the learner's and the opponents' choices, the new deals) comes from counter keys derived
from it (``core.keys``: a hash a draw, not threefry), as in the rollout loops.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env
from spoilfive_jax.core.keys import as_counter
from spoilfive_jax.core.transition import transition_legal
from spoilfive_jax.registry import available_games, make, make_rules
from spoilfive_jax.rl.network import (
    Network,
    agent_input,
    apply,
    choose,
    input_shape,
    network_for,
)
from spoilfive_jax.tools.pimc import pimc
from spoilfive_jax.tools.sharding import one_at_a_time

LEARNER = 0
OPPONENTS = ("heuristic", "random", "self")
TEACHERS = ("heuristic", "pimc")
_AXIS = "tables"  # the mesh axis the tables are split over (``num_devices`` > 1)
State = Any  # a batch of the game's states (``core.env.HandState`` with a leading axis)

# --------------------------------------------------------------------------- config


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    """Everything static about a training run (hashable).  ``rules``: a rules object of
    ``game`` (None: the game's defaults, filled in)."""

    num_players: int = 5
    rules: Any = None
    opponent: str = "heuristic"  # "heuristic", "random" or "self" (a pool of past selves)
    num_envs: int = 256
    num_steps: int = 16  # learner decisions per table per update
    epochs: int = 4
    minibatches: int = 4
    lr: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (256, 256)
    reward_scale: float = 0.25  # the game's reward (chips, points) -> training reward
    game: str = "spoil_five"  # a registry id (``sf.available_games()``)
    network_name: str = ""  # ``rl.network.NETWORKS``; empty: ``network.default_network(game)``
    pool_size: int = 8  # opponent "self": past selves kept
    pool_every: int = 10  # opponent "self": updates between snapshots
    num_devices: int = 1  # devices the tables are split over (several processes: all of theirs)
    advice: str = ""  # a built-in policy whose choice the network reads (``rl.network``)
    teacher: str = "heuristic"  # whose play the warm-up imitates: "heuristic" or "pimc"
    teacher_worlds: int = 64  # teacher "pimc": its worlds a decision

    def __post_init__(self) -> None:
        if self.game not in available_games():
            known = ", ".join(available_games())
            raise ValueError(f"unknown game {self.game!r}; registered: {known}")
        if self.rules is None:
            object.__setattr__(self, "rules", make_rules(self.game))
        if self.opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {OPPONENTS}, got {self.opponent!r}")
        if self.teacher not in TEACHERS:
            raise ValueError(f"teacher must be one of {TEACHERS}, got {self.teacher!r}")
        positive = ("num_envs", "num_steps", "epochs", "minibatches", "pool_size", "pool_every")
        for name in (*positive, "teacher_worlds", "num_devices"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.num_envs % self.num_devices:
            raise ValueError(
                f"num_envs ({self.num_envs}) must be a multiple of num_devices "
                f"({self.num_devices}): each device plays an equal share of the tables"
            )
        if (self.num_envs // self.num_devices * self.num_steps) % self.minibatches:
            raise ValueError("num_envs * num_steps (per device) must be a multiple of minibatches")
        self.network  # noqa: B018 - the table and its network must exist (players, rules, name)

    @property
    def env(self) -> Env[Any, Any]:
        return make(self.game, self.num_players, rules=self.rules)

    @property
    def network(self) -> Network:
        return network_for(self.env, tuple(self.hidden), self.network_name, self.advice)

    @property
    def teacher_policy(self) -> Callable[..., jax.Array]:
        """The warm-up's teacher, ``policy(key, state, player)`` on one hand: the game's
        heuristic, or ``sf.pimc(env, teacher_worlds)`` (its worlds played out by the
        heuristic)."""
        if self.teacher == "pimc":
            return pimc(self.env, self.teacher_worlds)
        return self.env.builtin_policy("heuristic")

    @property
    def learners(self) -> np.ndarray:
        """bool[N]: the seats the learner plays (seat ``LEARNER``'s team)."""
        env = self.env
        team = np.asarray(env.capability(caps.Teams, "PPO").team_of(env))
        return team == team[LEARNER]


# --------------------------------------------------------------------------- tables


def _tree_where(cond: jax.Array, a: Any, b: Any) -> Any:
    def pick(x: jax.Array, y: jax.Array) -> jax.Array:
        c = cond.reshape(cond.shape + (1,) * (x.ndim - cond.ndim))
        return jnp.where(c, x, y)

    return jax.tree.map(pick, a, b)


def _observe(cfg: PPOConfig, state: State) -> jax.Array:
    """float32[B, D]: each table's network input (``agent_input``: the observation, and the
    advice) by its player to act (seat 0 once over)."""
    see = functools.partial(agent_input, cfg.env, cfg.advice)
    return jax.vmap(see)(state, jnp.maximum(state.current_player, 0))


def _deal(cfg: PPOConfig, key: jax.Array, num: int) -> State:
    """``num`` fresh hands, each with a uniformly drawn dealer."""
    env = cfg.env
    k1, k2 = jax.random.split(key)
    dealers = jax.random.randint(k2, (num,), 0, cfg.num_players, dtype=jnp.int32)
    return jax.vmap(lambda k, d: env.init(k, d))(jax.random.split(k1, num), dealers)


def _counter(key: jax.Array) -> jax.Array:
    """A counter key (``core.keys.COUNTER``) drawn from ``key`` of any implementation: its
    ``split``, ``fold_in`` and draws cost a hash, not threefry."""
    return as_counter(key[None])[0]


def _bot_policy(cfg: PPOConfig, net: Network, params: Any) -> Callable[..., jax.Array]:
    """actions int32[B] of the players to act, by the opponent policy (``params``: the past
    self of opponent ``"self"``)."""

    def act(key: jax.Array, state: State) -> jax.Array:
        keys = jax.random.split(key, state.current_player.shape[0])
        player = jnp.maximum(state.current_player, 0)
        if cfg.opponent == "self":
            logits, _ = apply(net, params, _observe(cfg, state), state.legal_action_mask)
            return choose(logits, key, greedy=False)[0]
        bot = cfg.env.builtin_policy(cfg.opponent)
        return jax.vmap(bot)(keys, state, player).astype(jnp.int32)

    return act


def _play_on(
    cfg: PPOConfig,
    bot: Callable[..., jax.Array],
    key: jax.Array,
    state: State,
    action: jax.Array | None,
) -> tuple[State, jax.Array, jax.Array]:
    """The learner's ``action`` (if given), then opponents play, and a finished hand is
    replaced by a new deal, until a learner seat is to act on every table.

    Returns the new tables, the learner's reward from hands that ended on the way and whether a
    hand ended (both [B]).  One ``step`` in the loop body keeps the compiled program small.
    Every action stepped here is legal by construction (the network's logits are masked, the
    built-in policies and the teacher pick legal actions), so the step leaves out the
    illegal-action branch (``core.transition.transition_legal``: the same states for legal actions).
    """
    step = jax.vmap(functools.partial(transition_legal, cfg.env))
    key = _counter(key)  # (the deals and the opponents' draws: a hash each, not threefry)
    first = jnp.bool_(action is not None)
    learner_action = jnp.zeros(state.current_player.shape, jnp.int32) if action is None else action
    limit = 2 * cfg.env.max_decisions + 1
    learners = jnp.asarray(cfg.learners)

    def waiting(s: State) -> jax.Array:
        return s.terminated | ~learners[jnp.maximum(s.current_player, 0)]

    def cond(carry: tuple[State, jax.Array, jax.Array, jax.Array]) -> jax.Array:
        s, _, _, i = carry
        return ((first & (i == 0)) | waiting(s).any()) & (i < limit)

    def body(carry: tuple[State, jax.Array, jax.Array, jax.Array]) -> Any:
        s, got, ended, i = carry
        k_deal, k_bot = jax.random.split(jax.random.fold_in(key, i))
        s = jax.lax.cond(
            s.terminated.any(),
            lambda s: _tree_where(s.terminated, _deal(cfg, k_deal, s.terminated.shape[0]), s),
            lambda s: s,
            s,
        )
        mine = first & (i == 0)
        need = mine | waiting(s)
        act = jnp.where(mine, learner_action, bot(k_bot, s))
        new = step(s, act)
        got = got + jnp.where(need, new.rewards[:, LEARNER], 0.0)
        ended = ended | (need & new.terminated)
        return _tree_where(need, new, s), got, ended, i + 1

    zero = jnp.zeros(state.current_player.shape, jnp.float32)
    no = jnp.zeros(state.current_player.shape, jnp.bool_)
    state, got, ended, _ = jax.lax.while_loop(cond, body, (state, zero, no, jnp.int32(0)))
    return state, got, ended


class Transition(NamedTuple):
    obs: jax.Array  # float32[D]
    mask: jax.Array  # bool[A]
    action: jax.Array  # int32[]
    logp: jax.Array  # float32[]
    value: jax.Array  # float32[]
    reward: jax.Array  # float32[]: the learner's reward (scaled) when a hand ended at this step
    done: jax.Array  # bool[]: a hand ended at this step


class Runner(NamedTuple):
    """What ``update`` carries from one call to the next."""

    params: Any
    opt_state: Any
    state: State  # [E] tables, a learner seat to act in each
    key: jax.Array
    update: jax.Array  # int32[]: updates done
    pool: Any = None  # opponent "self": the past selves, parameters stacked [pool_size, ...]


def _optimizer(cfg: PPOConfig, num_updates: int) -> optax.GradientTransformation:
    steps = max(num_updates, 1) * cfg.epochs * cfg.minibatches
    lr: Any = optax.linear_schedule(cfg.lr, 0.0, steps) if cfg.anneal_lr else cfg.lr
    return optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(lr, eps=1e-5))


def init_runner(cfg: PPOConfig, key: jax.Array, num_updates: int, params: Any = None) -> Runner:
    """Fresh parameters (unless given), optimizer and tables at the learner's first decision;
    with ``num_devices`` > 1 the tables are placed on their devices."""
    net, env = cfg.network, cfg.env
    k_net, k_deal, k_run = jax.random.split(key, 3)
    if params is None:
        obs = jnp.zeros(input_shape(env, cfg.advice))
        params = net.init(k_net, obs, jnp.ones((env.num_actions,), bool))
    deal = jax.jit(functools.partial(_deal, cfg), static_argnums=1)
    state = deal(k_deal, cfg.num_envs)  # ``update`` first plays up to the learner
    opt_state = _optimizer(cfg, num_updates).init(params)
    pool = None
    if cfg.opponent == "self":
        pool = jax.tree.map(lambda x: jnp.stack([x] * cfg.pool_size), params)
    runner = Runner(params, opt_state, state, k_run, jnp.int32(0), pool)
    if cfg.num_devices == 1:
        return runner
    mesh = _mesh(cfg)  # the tables split over the devices, the rest whole on each
    specs = _runner_specs(runner)
    placed: list[Any] = []
    for spec, part in zip(specs, runner, strict=True):
        if part is None:  # (no pool)
            placed.append(None)
            continue
        where = NamedSharding(mesh, spec)
        placed.append(jax.tree.map(lambda x, w=where: _place(x, w), part))
    return Runner._make(placed)


def _runner_specs(runner: Runner) -> Runner:
    """Each field's partition over the mesh: the tables split, everything else replicated."""
    rep = P()
    pool = None if runner.pool is None else rep
    return Runner._make([rep, rep, P(_AXIS), rep, rep, pool])


def _place(x: Any, sharding: NamedSharding) -> jax.Array:
    """``x`` (the same value in every process) laid out by ``sharding``, whose devices may
    belong to several processes: each process fills the pieces its own devices hold."""
    host = np.asarray(jax.device_get(x))
    return jax.make_array_from_callback(host.shape, sharding, lambda index: host[index])


def _mesh(cfg: PPOConfig) -> Mesh:
    """The devices the tables are split over, as the one axis of a mesh: the first
    ``num_devices`` of this process, or, in a run of several processes
    (``sf.distributed.initialize``), every device of every process."""
    devices = jax.devices()  # (one process: its own)
    if jax.process_count() > 1:
        if cfg.num_devices != len(devices):
            raise ValueError(
                f"num_devices={cfg.num_devices}, but a run of {jax.process_count()} processes "
                f"trains on all of their {len(devices)} devices: give num_devices={len(devices)}"
            )
        return Mesh(np.array(devices), (_AXIS,))
    if len(devices) < cfg.num_devices:
        raise ValueError(
            f"num_devices={cfg.num_devices}, but this process has {len(devices)} local "
            "device(s); call sf.use_all_cores() first thing on a CPU"
        )
    return Mesh(np.array(devices[: cfg.num_devices]), (_AXIS,))


@one_at_a_time  # (over several CPU devices: tools.sharding)
@functools.partial(jax.jit, static_argnums=(0, 1, 3))
def update(
    cfg: PPOConfig, num_updates: int, runner: Runner, imitate: bool = False
) -> tuple[Runner, dict[str, Any]]:
    """One PPO iteration: collect ``num_steps`` learner decisions on every table, then learn.

    ``num_updates``: the length of the learning-rate schedule.  ``imitate``: a warm-start
    iteration instead: the learner's seats play the teacher (``cfg.teacher``: the heuristic,
    or pimc's search), and the network learns its choices (cross-entropy) and the value of its
    play (same value loss as PPO).
    """
    opponent = runner.params
    if cfg.opponent == "self":  # a past self, drawn for this update
        filled = jnp.minimum(runner.update // cfg.pool_every + 1, cfg.pool_size)
        pick = jax.random.randint(jax.random.fold_in(runner.key, 1), (), 0, filled)
        opponent = jax.tree.map(lambda x: x[pick], runner.pool)
    if cfg.num_devices == 1:
        new, metrics = _iteration(cfg, num_updates, imitate, runner, opponent, None)
    else:
        rep, specs = P(), _runner_specs(runner)
        body = functools.partial(_iteration, cfg, num_updates, imitate, axis=_AXIS)
        new, metrics = jax.shard_map(
            body,
            mesh=_mesh(cfg),
            in_specs=(specs, rep),
            out_specs=(specs, rep),
            # (the games' loops start from constants, which the replication check would have
            # to be told about one by one; the parameters are replicated by construction: every
            # device applies the same averaged gradients)
            check_vma=False,
        )(runner, opponent)
    if cfg.opponent == "self":  # every ``pool_every`` updates the new parameters join the pool
        done = runner.update + 1
        slot = (done // cfg.pool_every) % cfg.pool_size
        keep = done % cfg.pool_every == 0
        pool = jax.tree.map(
            lambda p, x: jnp.where(keep, p.at[slot].set(x), p), runner.pool, new.params
        )
        new = new._replace(pool=pool)
    return new, metrics


def _iteration(
    cfg: PPOConfig,
    num_updates: int,
    imitate: bool,
    runner: Runner,
    opponent: Any,
    axis: str | None,
) -> tuple[Runner, dict[str, Any]]:
    """``update`` on the tables of ``runner`` (one device's share under ``axis``), the
    opponents of opponent ``"self"`` playing ``opponent``'s parameters."""
    net = cfg.network
    tx = _optimizer(cfg, num_updates)
    params = runner.params
    bot = _bot_policy(cfg, net, opponent)
    key, k_start = jax.random.split(runner.key)
    if axis is None:
        start, _, _ = _play_on(cfg, bot, k_start, runner.state, None)  # no-op once running
        state, key, traj = _collect(cfg, net, params, bot, imitate, start, key)
    else:  # each device draws its own; ``key`` goes on the same on every device
        device = jax.lax.axis_index(axis)
        start, _, _ = _play_on(cfg, bot, jax.random.fold_in(k_start, device), runner.state, None)
        local = jax.random.fold_in(key, device)
        state, _, traj = _collect(cfg, net, params, bot, imitate, start, local)
    _, last_value = apply(net, params, _observe(cfg, state), state.legal_action_mask)
    advantages = _gae(cfg, traj, last_value)
    targets = advantages + traj.value
    size = traj.reward.shape[0] * traj.reward.shape[1]
    flat = jax.tree.map(lambda x: x.reshape((size, *x.shape[2:])), (traj, advantages, targets))
    key, k_epochs = jax.random.split(key)
    if axis is not None:
        k_epochs = jax.random.fold_in(k_epochs, jax.lax.axis_index(axis))
    params, opt_state, aux = _learn(
        cfg, net, tx, imitate, params, runner.opt_state, k_epochs, flat, axis
    )
    metrics = _metrics(cfg, traj, aux, axis)
    return runner._replace(
        params=params, opt_state=opt_state, state=state, key=key, update=runner.update + 1
    ), metrics


def _collect(
    cfg: PPOConfig,
    net: Network,
    params: Any,
    bot: Callable[..., jax.Array],
    imitate: bool,
    state: State,
    key: jax.Array,
) -> tuple[State, jax.Array, Transition]:
    """``num_steps`` learner decisions on every table (one ``lax.scan``; the heuristic's in
    ``imitate`` iterations): the tables and key after them, and the transitions [T, E]."""
    teacher = cfg.teacher_policy

    def env_step(carry: tuple[State, jax.Array], _: Any) -> Any:
        state, key = carry
        key, k_act, k_play = jax.random.split(key, 3)
        k_act = _counter(k_act)  # (one categorical draw an action of every table)
        obs, mask = _observe(cfg, state), state.legal_action_mask
        logits, value = apply(net, params, obs, mask)
        action, logp = choose(logits, k_act, greedy=False)
        if imitate:
            keys = jax.random.split(k_act, action.shape[0])
            action = jax.vmap(teacher)(keys, state, state.current_player).astype(jnp.int32)
            logp = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], -1)[:, 0]
        state, chips, done = _play_on(cfg, bot, k_play, state, action)
        reward = chips * cfg.reward_scale
        return (state, key), Transition(obs, mask, action, logp, value, reward, done)

    (state, key), traj = jax.lax.scan(env_step, (state, key), None, length=cfg.num_steps)
    return state, key, traj


def _gae(cfg: PPOConfig, traj: Transition, last_value: jax.Array) -> jax.Array:
    """Generalised advantage estimates float32[T, E] of ``traj`` (a finished hand cuts the
    bootstrap), from the value ``last_value`` [E] of the tables after it."""

    def gae(carry: tuple[jax.Array, jax.Array], t: Transition) -> Any:
        adv, next_value = carry
        live = 1.0 - t.done.astype(jnp.float32)
        delta = t.reward + cfg.gamma * next_value * live - t.value
        adv = delta + cfg.gamma * cfg.gae_lambda * live * adv
        return (adv, t.value), adv

    _, advantages = jax.lax.scan(gae, (jnp.zeros_like(last_value), last_value), traj, reverse=True)
    return advantages


def _loss(
    cfg: PPOConfig,
    net: Network,
    imitate: bool,
    p: Any,
    batch: Transition,
    adv: jax.Array,
    target: jax.Array,
) -> Any:
    """(total loss, (policy loss, value loss, entropy, approx. KL)) of one minibatch: clipped
    PPO, or in ``imitate`` iterations the cross-entropy with the heuristic's choices."""
    logits, value = apply(net, p, batch.obs, batch.mask)
    logp_all = jax.nn.log_softmax(logits)
    logp = jnp.take_along_axis(logp_all, batch.action[:, None], axis=-1)[:, 0]
    ratio = jnp.exp(logp - batch.logp)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - cfg.clip, 1 + cfg.clip) * adv).mean()
    if imitate:
        pg = -logp.mean()  # cross-entropy with the heuristic's choices
    v_loss = 0.5 * ((value - target) ** 2).mean()
    probs = jnp.exp(logp_all)
    entropy = -jnp.where(batch.mask, probs * logp_all, 0.0).sum(-1).mean()
    total = pg + cfg.vf_coef * v_loss - cfg.ent_coef * entropy
    approx_kl = ((ratio - 1) - jnp.log(ratio)).mean()
    return total, (pg, v_loss, entropy, approx_kl)


def _learn(
    cfg: PPOConfig,
    net: Network,
    tx: optax.GradientTransformation,
    imitate: bool,
    params: Any,
    opt_state: Any,
    key: jax.Array,
    flat: tuple[Transition, jax.Array, jax.Array],
    axis: str | None = None,
) -> tuple[Any, Any, Any]:
    """``epochs`` passes over the flattened (transitions, advantages, targets), each shuffled
    into ``minibatches`` gradient steps: the new parameters and optimizer state, and the loss
    terms of every step [epochs, minibatches].  Under ``axis`` each device steps on its own
    minibatch and the gradients are averaged over the devices."""
    size = flat[1].shape[0]
    loss_fn = functools.partial(_loss, cfg, net, imitate)

    def epoch(carry: tuple[Any, Any, jax.Array], _: Any) -> Any:
        p, opt, k = carry
        k, sub = jax.random.split(k)
        perm = jax.random.permutation(sub, size)
        shuffled = jax.tree.map(
            lambda x: x[perm].reshape((cfg.minibatches, -1, *x.shape[1:])), flat
        )

        def minibatch(c: tuple[Any, Any], mb: Any) -> Any:
            p, opt = c
            batch, adv, target = mb
            grads, aux = jax.grad(loss_fn, has_aux=True)(p, batch, adv, target)
            if axis is not None:
                grads, aux = jax.lax.pmean((grads, aux), axis)
            upd, opt = tx.update(grads, opt, p)
            return (optax.apply_updates(p, upd), opt), aux

        (p, opt), aux = jax.lax.scan(minibatch, (p, opt), shuffled)
        return (p, opt, k), aux

    (params, opt_state, _), aux = jax.lax.scan(
        epoch, (params, opt_state, key), None, length=cfg.epochs
    )
    return params, opt_state, aux


def _metrics(cfg: PPOConfig, traj: Transition, aux: Any, axis: str | None) -> dict[str, Any]:
    """An iteration's figures: hands finished, the learner's reward in them (chips, points),
    the mean losses (over every device under ``axis``: ``aux`` is already averaged)."""
    pg, v_loss, entropy, kl = (x.mean() for x in aux)
    hands = traj.done.sum()
    got = jnp.where(traj.done, traj.reward, 0.0).sum() / cfg.reward_scale
    if axis is not None:
        hands, got = jax.lax.psum((hands, got), axis)
    return {
        "hands": hands,
        "chips": got,
        "pg_loss": pg,
        "v_loss": v_loss,
        "entropy": entropy,
        "approx_kl": kl,
    }
