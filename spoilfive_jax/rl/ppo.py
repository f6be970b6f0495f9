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
tables are split over that many local devices (``sf.use_all_cores()`` on a CPU): each device
collects and learns on its share and the gradients are averaged over the devices, so the
parameters stay the same everywhere.

Optional warm start (``train(..., warmup_updates=K)``): K iterations in which the learner's
seats play the heuristic and the network learns its choices by cross-entropy (and the value of
that play), then PPO takes over from that policy.

The network (``rl.network.network_for``: Spoil Five's ``ActorCritic``, any other game's
``MLPActorCritic``) reads ``observe(state, player)`` and the legal action mask only.
"""

from __future__ import annotations

import dataclasses
import functools
import time
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
from spoilfive_jax.registry import available_games, make, make_rules
from spoilfive_jax.rl.network import Network, apply, choose, network_for
from spoilfive_jax.tools.policies import play_out

LEARNER = 0
OPPONENTS = ("heuristic", "random", "self")
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
    num_devices: int = 1  # local devices the tables are split over

    def __post_init__(self) -> None:
        if self.game not in available_games():
            known = ", ".join(available_games())
            raise ValueError(f"unknown game {self.game!r}; registered: {known}")
        if self.rules is None:
            object.__setattr__(self, "rules", make_rules(self.game))
        if self.opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {OPPONENTS}, got {self.opponent!r}")
        positive = ("num_envs", "num_steps", "epochs", "minibatches", "pool_size", "pool_every")
        for name in (*positive, "num_devices"):
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
        env = self.env
        return network_for(
            self.game,
            self.num_players,
            env.num_actions,
            tuple(self.hidden),
            self.network_name,
            self.rules,
        )

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
    """float32[B, D]: each table's observation by its player to act (seat 0 once over)."""
    return jax.vmap(cfg.env.observe)(state, jnp.maximum(state.current_player, 0))


def _deal(cfg: PPOConfig, key: jax.Array, num: int) -> State:
    """``num`` fresh hands, each with a uniformly drawn dealer."""
    env = cfg.env
    k1, k2 = jax.random.split(key)
    dealers = jax.random.randint(k2, (num,), 0, cfg.num_players, dtype=jnp.int32)
    return jax.vmap(lambda k, d: env.init(k, d))(jax.random.split(k1, num), dealers)


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
    """
    step = jax.vmap(cfg.env.step)
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
        obs = jnp.zeros(env.observation_shape)
        params = net.init(k_net, obs, jnp.ones((env.num_actions,), bool))
    deal = jax.jit(functools.partial(_deal, cfg), static_argnums=1)
    state = deal(k_deal, cfg.num_envs)  # ``update`` first plays up to the learner
    if cfg.num_devices > 1:
        state = jax.device_put(state, NamedSharding(_mesh(cfg), P(_AXIS)))
    opt_state = _optimizer(cfg, num_updates).init(params)
    pool = None
    if cfg.opponent == "self":
        pool = jax.tree.map(lambda x: jnp.stack([x] * cfg.pool_size), params)
    return Runner(params, opt_state, state, k_run, jnp.int32(0), pool)


def _mesh(cfg: PPOConfig) -> Mesh:
    """The first ``num_devices`` local devices, as the one axis the tables are split over."""
    devices = jax.local_devices()
    if len(devices) < cfg.num_devices:
        raise ValueError(
            f"num_devices={cfg.num_devices}, but this process has {len(devices)} local "
            "device(s); call sf.use_all_cores() first thing on a CPU"
        )
    return Mesh(np.array(devices[: cfg.num_devices]), (_AXIS,))


@functools.partial(jax.jit, static_argnums=(0, 1, 3))
def update(
    cfg: PPOConfig, num_updates: int, runner: Runner, imitate: bool = False
) -> tuple[Runner, dict[str, Any]]:
    """One PPO iteration: collect ``num_steps`` learner decisions on every table, then learn.

    ``num_updates``: the length of the learning-rate schedule.  ``imitate``: a warm-start
    iteration instead: the learner's seats play the heuristic, and the network learns its
    choices (cross-entropy) and the value of its play (same value loss as PPO).
    """
    opponent = runner.params
    if cfg.opponent == "self":  # a past self, drawn for this update
        filled = jnp.minimum(runner.update // cfg.pool_every + 1, cfg.pool_size)
        pick = jax.random.randint(jax.random.fold_in(runner.key, 1), (), 0, filled)
        opponent = jax.tree.map(lambda x: x[pick], runner.pool)
    if cfg.num_devices == 1:
        new, metrics = _iteration(cfg, num_updates, imitate, runner, opponent, None)
    else:
        rep, split = P(), P(_AXIS)
        specs = Runner._make([rep, rep, split, rep, rep, None if runner.pool is None else rep])
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
    heuristic = cfg.env.builtin_policy("heuristic")

    def env_step(carry: tuple[State, jax.Array], _: Any) -> Any:
        state, key = carry
        key, k_act, k_play = jax.random.split(key, 3)
        obs, mask = _observe(cfg, state), state.legal_action_mask
        logits, value = apply(net, params, obs, mask)
        action, logp = choose(logits, k_act, greedy=False)
        if imitate:
            keys = jax.random.split(k_act, action.shape[0])
            action = jax.vmap(heuristic)(keys, state, state.current_player).astype(jnp.int32)
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


# --------------------------------------------------------------------------- evaluation


@functools.partial(jax.jit, static_argnums=(0, 1))
def _seat_chips(
    cfg: PPOConfig,
    num_hands: int,
    params: Any,
    key: jax.Array,
    heuristic: jax.Array,
    use_agent: jax.Array,
) -> jax.Array:
    """float32[H]: the reward of the measured seat in ``num_hands`` hands (dealer 0, the
    measured seat ``h % N`` for hand ``h``) against heuristic (``heuristic``) or random bots.
    The measured seat and its partners are played by the greedy network when ``use_agent``,
    else by the bot policy itself (the baseline on the same deals).  One compile serves all
    four cases."""
    n = cfg.num_players
    env = cfg.env
    net = cfg.network
    keys = jax.random.split(key, num_hands)
    seats = jnp.arange(num_hands, dtype=jnp.int32) % n
    state = jax.vmap(lambda k: env.init(k))(keys)
    smart, plain = env.builtin_policy("heuristic"), env.builtin_policy("random")
    team = jnp.asarray(env.capability(caps.Teams, "PPO").team_of(env))

    def bot(k: jax.Array, s: State, player: jax.Array) -> jax.Array:
        return jnp.where(heuristic, smart(k, s, player), plain(k, s, player))

    def agent(k: jax.Array, s: State, player: jax.Array) -> jax.Array:
        logits, _ = apply(net, params, env.observe(s, player), s.legal_action_mask)
        return choose(logits, None, greedy=True)[0]

    def one(k: jax.Array, s: State, seat: jax.Array) -> jax.Array:
        # the measured team plays the agent (policy 1) when ``use_agent``, every other the bot
        seat_policy = ((team == team[seat]) & use_agent).astype(jnp.int32)
        _, total = play_out(env, (bot, agent), seat_policy, k, s)
        return total[seat]

    return jax.vmap(one)(keys, state, seats)  # type: ignore[no-any-return]


def seat_evaluation(
    cfg: PPOConfig, params: Any, key: jax.Array, opponent: str, num_hands: int = 4096
) -> dict[str, float]:
    """Mean reward per hand (chips, points) of the greedy agent in one seat (and its partners')
    against ``opponent`` bots (seats rotated), the bots' own mean in the same seats on the same
    deals, and 95% CIs (the gain is paired deal by deal)."""
    if opponent not in ("random", "heuristic"):
        raise ValueError(f"opponent must be 'random' or 'heuristic', got {opponent!r}")
    smart = jnp.bool_(opponent == "heuristic")
    chips = [
        np.asarray(_seat_chips(cfg, num_hands, params, key, smart, jnp.bool_(a)), np.float64)
        for a in (True, False)
    ]
    agent, base = chips

    def ci(x: np.ndarray) -> float:
        return float(1.96 * x.std(ddof=1) / np.sqrt(x.size))

    diff = agent - base
    return {
        "agent": float(agent.mean()),
        "agent_ci": ci(agent),
        "baseline": float(base.mean()),
        "baseline_ci": ci(base),
        "gain": float(diff.mean()),
        "gain_ci": ci(diff),
        "hands": num_hands,
    }


# --------------------------------------------------------------------------- training


@dataclasses.dataclass
class TrainResult:
    params: Any
    config: PPOConfig
    history: list[dict[str, Any]]  # one row per logged update
    updates: int
    hands: int  # training hands finished
    decisions: int  # learner decisions collected
    cpu_seconds: float  # process CPU time (all threads)
    wall_seconds: float


def train(
    cfg: PPOConfig,
    num_updates: int,
    seed: int = 0,
    *,
    warmup_updates: int = 0,
    max_cpu_seconds: float | None = None,
    eval_every: int = 0,
    eval_hands: int = 2048,
    log: Callable[[str], Any] | None = print,
    params: Any = None,
) -> TrainResult:
    """``warmup_updates`` imitation iterations (``update(..., imitate=True)``: learn the
    heuristic's choices in the learner's seat), then ``num_updates`` PPO updates; stop early
    once the process has used ``max_cpu_seconds`` of CPU time (all threads, compiles and
    evaluations included).

    Every ``eval_every`` updates (0: only at the end) the greedy agent is measured in one seat
    against random and heuristic bots (``seat_evaluation``) and a row is logged.
    """
    cpu0, wall0 = time.process_time(), time.perf_counter()
    total = warmup_updates + num_updates
    key = jax.random.PRNGKey(seed)
    key, k_init = jax.random.split(key)
    runner = init_runner(cfg, k_init, total, params)
    history: list[dict[str, float]] = []
    hands = 0
    chips_sum = 0.0
    hands_window = 0
    done_updates = 0
    for u in range(total):
        imitate = u < warmup_updates
        runner, metrics = update(cfg, total, runner, imitate)
        m = jax.device_get(metrics)
        hands += int(m["hands"])
        hands_window += int(m["hands"])
        chips_sum += float(m["chips"])
        done_updates = u + 1
        cpu = time.process_time() - cpu0
        out_of_time = max_cpu_seconds is not None and cpu > max_cpu_seconds
        last = done_updates in (total, warmup_updates) or out_of_time
        if (eval_every and done_updates % eval_every == 0) or last:
            key, k_eval = jax.random.split(key)
            row: dict[str, Any] = {
                "update": done_updates,
                "phase": "imitate" if imitate else "ppo",
                "hands": hands,
                "decisions": done_updates * cfg.num_envs * cfg.num_steps,
                "cpu_s": cpu,
                "wall_s": time.perf_counter() - wall0,
                "train_chips": chips_sum / max(hands_window, 1),
                "entropy": float(m["entropy"]),
                "approx_kl": float(m["approx_kl"]),
            }
            row.update(_evaluation_row(cfg, runner.params, k_eval, eval_hands))
            history.append(row)
            chips_sum, hands_window = 0.0, 0
            if log is not None:
                log(_log_line(row))
        if out_of_time:
            break
    return TrainResult(
        params=jax.device_get(runner.params),
        config=cfg,
        history=history,
        updates=done_updates,
        hands=hands,
        decisions=done_updates * cfg.num_envs * cfg.num_steps,
        cpu_seconds=time.process_time() - cpu0,
        wall_seconds=time.perf_counter() - wall0,
    )


def _evaluation_row(
    cfg: PPOConfig, params: Any, key: jax.Array, eval_hands: int
) -> dict[str, float]:
    """A logged row's evaluation columns: the greedy agent against random, then heuristic bots
    (``seat_evaluation``, the same key for both), and the gain over the bots' own play."""
    row: dict[str, float] = {}
    for opp in ("random", "heuristic"):
        ev = seat_evaluation(cfg, params, key, opp, eval_hands)
        row[f"vs_{opp}"] = ev["agent"]
        row[f"vs_{opp}_ci"] = ev["agent_ci"]
        row[f"{opp}_baseline"] = ev["baseline"]
        row[f"gain_vs_{opp}"] = ev["gain"]
        row[f"gain_vs_{opp}_ci"] = ev["gain_ci"]
    return row


def _log_line(row: dict[str, Any]) -> str:
    """One logged row as a line of text (``train``'s ``log``)."""
    return (
        f"{row['phase']:7s} {row['update']:5d}  hands {row['hands']:9d}  cpu {row['cpu_s']:6.0f}s  "
        f"train {row['train_chips']:+.3f}  "
        f"vs random {row['vs_random']:+.3f}±{row['vs_random_ci']:.3f} "
        f"(random {row['random_baseline']:+.3f})  "
        f"vs heuristic {row['vs_heuristic']:+.3f}±{row['vs_heuristic_ci']:.3f} "
        f"(heuristic {row['heuristic_baseline']:+.3f}, "
        f"gain {row['gain_vs_heuristic']:+.3f}±{row['gain_vs_heuristic_ci']:.3f})  "
        f"entropy {row['entropy']:.3f}"
    )
