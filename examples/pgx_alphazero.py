"""AlphaZero-style self-play on a card game through pgx and mctx (the ``pgx`` extra).

python examples/pgx_alphazero.py [--game spoil_five] [--players 2] [--iterations 3]

Each iteration plays a batch of tables for a few decisions with ``mctx.gumbel_muzero_policy``
searching every move (``pgx.experimental.auto_reset`` deals a new hand where one ends), then
fits a small network (two hidden layers, plain JAX) to the search's action weights and to the
outcomes reached.  It starts untrained and runs a few iterations: a demonstration of the
pipeline, not a strong player.

The search treats the game as two-sided and zero-sum, as AlphaZero does: a node's value is
from the side to act, a step's reward is what the acting side gained over the other side
(``rewards[actor] - rewards[an opponent]``), divided by the widest such difference
(``DeckDeals.reward_bounds``), and the value changes sign where the other side acts next.
So the table must have two sides: two players, or the Forty-Five family's two partnerships.
Two caveats: the search steps the true deal, seeing every hand (perfect-information search,
as in pgx's own examples; a fair player would search deals consistent with what it has seen),
and a hand where both sides lose (a failed jink in Spoil Five) counts as a draw.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import mctx
import numpy as np
from pgx.experimental import auto_reset

import spoilfive_jax.pgx as sfpgx
from spoilfive_jax.core import capabilities as caps

Params = dict[str, jax.Array]


class Sides(NamedTuple):
    """What the two-sided search needs of the table: each seat's side, a seat of the other
    side, and the reward scale."""

    side: jax.Array  # int32[N]
    opponent: jax.Array  # int32[N]
    scale: float


class Sample(NamedTuple):
    """One decision of self-play, for each table of the batch."""

    observation: jax.Array  # float32[B, D]
    legal: jax.Array  # bool[B, A]: the legal actions
    weights: jax.Array  # float32[B, A]: the search's improved policy
    reward: jax.Array  # float32[B]: the actor's side's gain, scaled
    discount: jax.Array  # float32[B]: 0 at a hand's end, -1 where the other side acts next


def sides_of(env: sfpgx.CardGameEnv) -> Sides:
    """The table's two sides; a ``ValueError`` for a table with more."""
    side = np.asarray(env.table.capability(caps.Teams, "the two-sided search").team_of(env.table))
    if len(set(side.tolist())) != 2:
        raise ValueError(
            f"{env.id} with {env.num_players} players has {len(set(side.tolist()))} sides; the "
            "search needs two (2 players, or the Forty-Five family's partnerships)"
        )
    opponent = np.array([int(np.flatnonzero(side != s)[0]) for s in side], np.int32)
    deals = caps.declared(env.table, caps.DeckDeals)
    low, high = deals.reward_bounds(env.table) if deals is not None else (-1.0, 1.0)
    return Sides(jnp.asarray(side, jnp.int32), jnp.asarray(opponent), float(high - low) or 1.0)


def init_params(key: jax.Array, inputs: int, actions: int, hidden: int) -> Params:
    k1, k2, k3 = jax.random.split(key, 3)

    def layer(k: jax.Array, n_in: int, n_out: int) -> jax.Array:
        return jax.random.normal(k, (n_in, n_out)) / np.sqrt(n_in)

    return {
        "w1": layer(k1, inputs, hidden),
        "b1": jnp.zeros(hidden),
        "w2": layer(k2, hidden, hidden),
        "b2": jnp.zeros(hidden),
        "heads": layer(k3, hidden, actions + 1) * 0.1,  # policy logits, then the value
    }


def forward(params: Params, observation: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Policy logits float32[..., A] and a value in -1..1 float32[...]."""
    h = jax.nn.relu(observation @ params["w1"] + params["b1"])
    h = jax.nn.relu(h @ params["w2"] + params["b2"])
    out = h @ params["heads"]
    return out[..., :-1], jnp.tanh(out[..., -1])


def gain(sides: Sides, rewards: jax.Array, actor: jax.Array) -> jax.Array:
    """The acting side's reward over the other side's, scaled to -1..1 (rewards [B, N])."""
    rows = jnp.arange(rewards.shape[0])
    return (rewards[rows, actor] - rewards[rows, sides.opponent[actor]]) / sides.scale


def make_recurrent_fn(env: sfpgx.CardGameEnv, sides: Sides) -> Callable[..., Any]:
    """mctx's model: one real step of the game for every table of the batch."""

    def recurrent_fn(params: Params, key: jax.Array, action: jax.Array, state: sfpgx.State):
        actor = state.current_player
        keys = jax.random.split(key, action.shape[0])
        state = jax.vmap(env.step)(state, action, keys)
        logits, value = forward(params, state.observation)
        logits = jnp.where(state.legal_action_mask, logits, jnp.finfo(logits.dtype).min)
        same = sides.side[state.current_player] == sides.side[actor]
        out = mctx.RecurrentFnOutput(
            reward=gain(sides, state.rewards, actor),
            discount=jnp.where(state.terminated, 0.0, jnp.where(same, 1.0, -1.0)),
            prior_logits=logits,
            value=jnp.where(state.terminated, 0.0, value),
        )
        return out, state

    return recurrent_fn


def make_self_play(env: sfpgx.CardGameEnv, sides: Sides, args: argparse.Namespace):
    """jit: (params, key, states [B]) -> (states after ``args.steps`` decisions, samples)."""
    recurrent_fn = make_recurrent_fn(env, sides)
    step = jax.vmap(auto_reset(env.step, env.init))

    def decide(params: Params, carry: tuple[sfpgx.State, jax.Array], _: None):
        state, key = carry
        key, search_key, step_key = jax.random.split(key, 3)
        # auto_reset leaves a newly dealt hand flagged with the finished hand's end: the search
        # starts from the new hand, live, as auto_reset's own step does.
        state = state.replace(
            terminated=jnp.zeros_like(state.terminated), rewards=jnp.zeros_like(state.rewards)
        )
        logits, value = forward(params, state.observation)
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
        policy = mctx.gumbel_muzero_policy(
            params,
            search_key,
            root,
            recurrent_fn,
            num_simulations=args.simulations,
            invalid_actions=~state.legal_action_mask,
            max_num_considered_actions=8,
        )
        actor = state.current_player
        after = step(state, policy.action, jax.random.split(step_key, args.batch))
        same = sides.side[after.current_player] == sides.side[actor]
        sample = Sample(
            observation=state.observation,
            legal=state.legal_action_mask,
            weights=policy.action_weights,
            reward=gain(sides, after.rewards, actor),
            discount=jnp.where(after.terminated, 0.0, jnp.where(same, 1.0, -1.0)),
        )
        return (after, key), sample

    @jax.jit
    def self_play(params: Params, key: jax.Array, states: sfpgx.State):
        (states, _), samples = jax.lax.scan(
            lambda c, x: decide(params, c, x), (states, key), None, length=args.steps
        )
        return states, samples

    return self_play


def targets(samples: Sample) -> tuple[jax.Array, jax.Array]:
    """Each decision's value target, the outcome reached from the actor's side (float32[T, B]),
    and whether it is known (the hand ended within the samples)."""

    def back(later: jax.Array, x: tuple[jax.Array, jax.Array]):
        value = x[0] + x[1] * later
        return value, value

    _, values = jax.lax.scan(
        back, jnp.zeros_like(samples.reward[0]), (samples.reward, samples.discount), reverse=True
    )
    ended = samples.discount == 0.0
    known = jax.lax.cummax(ended.astype(jnp.int32), axis=0, reverse=True) > 0
    return values, known


@jax.jit
def train_step(params: Params, samples: Sample, learning_rate: float):
    """One gradient step on the policy (cross-entropy with the search's weights) and value
    (squared error against the outcome) losses."""
    values, known = targets(samples)

    def loss_fn(p: Params) -> tuple[jax.Array, tuple[jax.Array, jax.Array]]:
        logits, value = forward(p, samples.observation)
        logits = jnp.where(samples.legal, logits, -1e9)  # (finite: 0 * log p stays 0)
        policy_loss = -jnp.sum(samples.weights * jax.nn.log_softmax(logits), -1).mean()
        value_loss = jnp.sum(known * (value - values) ** 2) / jnp.maximum(known.sum(), 1)
        return policy_loss + value_loss, (policy_loss, value_loss)

    (_, parts), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
    params = jax.tree.map(lambda w, g: w - learning_rate * g, params, grads)
    return params, parts


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="spoil_five")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--batch", type=int, default=16, help="tables played at once")
    ap.add_argument("--steps", type=int, default=12, help="decisions per table an iteration")
    ap.add_argument("--simulations", type=int, default=16, help="search simulations a move")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--updates", type=int, default=4, help="gradient steps an iteration")
    ap.add_argument("--learning-rate", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    for name in ("iterations", "batch", "steps", "simulations", "hidden", "updates"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name} must be at least 1, got {getattr(args, name)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    env = sfpgx.make(args.game, num_players=args.players)
    sides = sides_of(env)
    start = time.perf_counter()
    key, init_key, params_key = jax.random.split(jax.random.PRNGKey(args.seed), 3)
    params = init_params(params_key, env.observation_shape[0], env.num_actions, args.hidden)
    states = jax.vmap(env.init)(jax.random.split(init_key, args.batch))
    self_play = make_self_play(env, sides, args)
    print(f"{env.id} · {env.num_players} players · pgx env {env.version} · batch {args.batch}")
    for iteration in range(1, args.iterations + 1):
        key, play_key = jax.random.split(key)
        states, samples = self_play(params, play_key, states)
        for _ in range(args.updates):
            params, (policy_loss, value_loss) = train_step(params, samples, args.learning_rate)
        hands = int((samples.discount == 0.0).sum())
        print(
            f"iteration {iteration}: {hands} hands ended, policy loss {float(policy_loss):.3f}, "
            f"value loss {float(value_loss):.3f} ({time.perf_counter() - start:.1f} s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
