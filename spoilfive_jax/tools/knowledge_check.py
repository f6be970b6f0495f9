"""What ``testing.api_test`` checks of what a seat knows (``core.record``, ``core.knowledge``).

On positions of random hands, raising ``AssertionError`` naming the game and what broke:

- **the record**: ``state.moves`` holds one entry per decision taken, in order, by the seat
  that took it;
- **the deal and the record are the whole hand**: the hand's first state
  (``Knowledge.dealt_state``) replayed through the record's actions reproduces every seat's
  information state, view and legal actions;
- **the kinds**: a seat's information state has ``information_state_shape``, and the public
  observation and the seat's private one their shapes;
- with the ``Analysis`` capability, **the worlds**: every world drawn for a seat, replayed from
  its own deal through its own record, takes the same actors, phases and public actions at
  every step (each action legal), gives the seat the same information state at every step,
  and ends where the world is; the world looks the same to the seat (its information state,
  its view, its private observation) and to everyone (the public observation).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core import knowledge, record
from spoilfive_jax.core.env import Env, R, S
from spoilfive_jax.core.transition import is_legal, transition


def replay(env: Env[S, R], start: S, moves: jax.Array, player: jax.Array) -> dict[str, Any]:
    """Jittable: ``start`` stepped through the actions of ``moves`` int32[T]: per decision t
    (before it is taken) the seat to act, the phase, whether the action was legal and
    ``player``'s information state [T, ...], and the state after the last one."""
    actions = record.actions(moves)

    def step(state: S, a: jax.Array) -> tuple[S, dict[str, jax.Array]]:
        taken = a >= 0
        seen = {
            "actor": jnp.where(taken, state.current_player, -1),
            "phase": jnp.where(taken, state.phase, -1),
            "legal": ~taken | (is_legal(state.legal_set, a, env.num_actions) & ~state.terminated),
            "info": env.information_state(state, player),
        }
        after = transition(env, state, jnp.maximum(a, 0))
        return jax.tree.map(lambda x, y: jnp.where(taken, x, y), after, state), seen

    end, per_step = jax.lax.scan(step, start, actions)
    return {**per_step, "end": end}


def views(env: Env[S, R], state: S, player: jax.Array) -> dict[str, jax.Array]:
    """Jittable: everything ``player`` is shown of one hand."""
    return {
        "information state": env.information_state(state, player),
        "view": env.observe(state, player),
        "private observation": env.observe_private(state, player),
        "public observation": env.observe_public(state),
        "legal actions": state.legal_action_mask,
    }


def _row(tree: Any, i: int) -> Any:
    return jax.tree.map(lambda x: x[i], tree)


def _differs(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    return [k for k in a if not np.array_equal(np.asarray(a[k]), np.asarray(b[k]))]


def check_knowledge(env: Env[S, R], states: list[S], seed: int) -> None:
    """Every check of the module docstring on a few hands of the batched random playout
    ``states`` (one batch per decision)."""
    sizes = knowledge.shapes(env)
    shapes = (sizes["information_state"], sizes["public"], sizes["private"])
    first = knowledge.hooks(env).dealt_state
    run = jax.jit(lambda s, p: (replay(env, first(env, s), s.moves, p), views(env, s, p)))
    see = jax.jit(lambda s, p: views(env, s, p))
    picked = list(enumerate(states))[:: max(1, len(states) // 5)]
    for t, batch in picked:
        for i in range(min(2, int(np.shape(batch.current_player)[0]))):
            state = _row(batch, i)
            n_moves = int(record.count(np.asarray(state.moves)))
            assert n_moves == int(state._step_count), (
                f"{env.id}: the record holds {n_moves} decisions after {int(state._step_count)}"
            )
            for p in range(env.num_players):
                rerun, shown = run(state, jnp.int32(p))
                got = [np.shape(shown[k]) for k in ("information state", "public observation")]
                assert tuple(got) == shapes[:2], f"{env.id}: information shapes {got} != {shapes}"
                assert np.shape(shown["private observation"]) == shapes[2]
                assert np.asarray(rerun["legal"]).all(), f"{env.id}: a recorded action is illegal"
                again = see(rerun["end"], jnp.int32(p))
                bad = _differs(shown, again)
                assert not bad, (
                    f"{env.id}: the deal replayed through the record changes seat {p}'s {bad} "
                    f"(decision {t}, hand {i})"
                )
    if caps.Analysis in type(env).capabilities:
        _worlds(env, states, seed, run, see)


def _public(env: Env[S, R], moves: Any) -> np.ndarray:
    m = np.asarray(moves)
    return np.stack([record.actors(m), record.seen_by(m, -1, env.num_actions)])


def _worlds(env: Env[S, R], states: list[S], seed: int, run: Any, see: Any) -> None:
    """The world checks of the module docstring, for the seat to act and the seat after it."""
    analysis = env.capability(caps.Analysis)
    resample = jax.jit(analysis.resample_hidden_many, static_argnums=(0, 4))
    key = jax.random.PRNGKey(seed)
    for t, batch in list(enumerate(states))[1 :: max(1, len(states) // 5)]:
        live = np.flatnonzero(~np.asarray(batch.terminated))[:2]
        for i in live.tolist():
            state = _row(batch, i)
            to_act = int(state.current_player)
            for p in (to_act, (to_act + 1) % env.num_players):
                real, shown = run(state, jnp.int32(p))
                worlds = resample(env, jax.random.fold_in(key, 7 * t + i), state, jnp.int32(p), 6)
                for w in range(6):
                    world = _row(worlds, w)
                    label = f"{env.id}: a world drawn for seat {p} ({t}, {i}, {w})"
                    rerun, seen = run(world, jnp.int32(p))
                    assert np.asarray(rerun["legal"]).all(), f"{label} breaks a recorded action"
                    for k in ("actor", "phase", "info"):
                        same = np.array_equal(np.asarray(rerun[k]), np.asarray(real[k]))
                        assert same, f"{label} replays to another {k} at some decision"
                    same = np.array_equal(_public(env, world.moves), _public(env, state.moves))
                    assert same, f"{label} changes the public record"
                    bad = _differs(shown, seen)
                    if p != to_act:  # (another seat's legal actions are its own)
                        bad = [k for k in bad if k != "legal actions"]
                    assert not bad, f"{label} changes the seat's {bad}"
                    bad = _differs(seen, see(rerun["end"], jnp.int32(p)))
                    assert not bad, f"{label}: its deal replayed through its record changes {bad}"
