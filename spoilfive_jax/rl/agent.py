"""Trained agents: save, load and play them as policies (extra ``rl``: flax, optax).

A saved agent is one ``.npz`` file holding the network parameters (one array per flattened
flax path, e.g. ``params/Dense_0/kernel``) and a ``__metadata__`` entry, a JSON text with the
network sizes, the table (``num_players``, ``rules``) and how it was trained, so that
``load_policy(path)`` rebuilds the network with no other argument.  ``save_agent`` also writes
the metadata next to it as ``<name>.json`` for people to read.

A policy is ``policy(key, state, player) -> action`` on ONE hand's public ``State``, jittable,
reading only ``observe(state, player)`` and ``state.legal_action_mask``; ``sf.rollout``,
``sf.score_hands``, ``sf.evaluate`` and ``sf.play_sessions`` vmap it over hands::

    import spoilfive_jax as sf
    from spoilfive_jax.rl.agent import load_policy

    ppo = load_policy("examples/agents/ppo_seat.npz")
    env = sf.SpoilFive(5)
    print(sf.evaluate(0, env, {"ppo": ppo, "heuristic": "heuristic"}, num_hands=20_000).table())

Training: ``train(PPOConfig(...), num_updates)`` (``spoilfive_jax.rl.ppo``) or the script
``examples/train_ppo.py``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import traverse_util

from spoilfive_jax.core.env import Env, PolicyFn
from spoilfive_jax.registry import make
from spoilfive_jax.rl.ppo import (
    ActorCritic,
    PPOConfig,
    TrainResult,
    apply,
    choose,
    seat_evaluation,
    train,
)

FORMAT = "spoilfive_jax.agent/1"  # the file format's name (unchanged when modules move)
_FORMATS = (FORMAT, "spoilfive_jax.rl.agent/1")  # (the second: files written while it was used)
_META_KEY = "__metadata__"

__all__ = [
    "FORMAT",
    "Agent",
    "PPOConfig",
    "TrainResult",
    "load_agent",
    "load_policy",
    "make_policy",
    "save_agent",
    "seat_evaluation",
    "train",
]


@dataclasses.dataclass(frozen=True)
class Agent:
    """A loaded agent: network parameters and the metadata that rebuilds the network."""

    params: Any  # flax parameter tree of ``ActorCritic``
    metadata: dict[str, Any]

    @property
    def num_players(self) -> int:
        return int(self.metadata["num_players"])

    @property
    def game(self) -> str:
        """The registry id of the game the agent plays (``spoil_five`` for files without one)."""
        return str(self.metadata.get("game", "spoil_five"))

    @property
    def rules(self) -> Any:
        return self.env.rules

    @property
    def env(self) -> Env[Any, Any]:
        return make(self.game, self.num_players, **rules_from_dict(self.metadata["rules"]))

    @property
    def network(self) -> ActorCritic:
        return ActorCritic(self.num_players, tuple(self.metadata["hidden"]))

    def policy(self, greedy: bool = True) -> PolicyFn:
        return make_policy(self, greedy)


def rules_to_dict(rules: Any) -> dict[str, Any]:
    """A rules object (a dataclass) as JSON-able options (tuples become lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(rules).items()}


def rules_from_dict(d: dict[str, Any]) -> dict[str, Any]:
    """The rule options of ``rules_to_dict`` (lists back to tuples), for ``sf.make``."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}


def metadata_for(config: PPOConfig, **extra: Any) -> dict[str, Any]:
    """The metadata of an agent trained with ``config`` (``extra``: anything JSON-able)."""
    env = config.env
    return {
        "format": FORMAT,
        "algorithm": "ppo",
        "network": "ActorCritic",
        "hidden": list(config.hidden),
        "game": env.id,
        "num_players": config.num_players,
        "rules": rules_to_dict(config.rules),
        "observation_shape": list(env.observation_shape),
        "num_actions": env.num_actions,
        "opponent": config.opponent,
        **extra,
    }


def save_agent(path: str | os.PathLike[str], params: Any, metadata: dict[str, Any]) -> str:
    """Write ``params`` and ``metadata`` to ``path`` (``.npz`` added if missing) and the
    metadata to the matching ``.json``; returns the ``.npz`` path."""
    path = os.fspath(path)
    if not path.endswith(".npz"):
        path += ".npz"
    flat = traverse_util.flatten_dict(jax.device_get(params), sep="/")
    arrays: dict[str, Any] = {k: np.asarray(v, np.float32) for k, v in flat.items()}
    arrays[_META_KEY] = np.array(json.dumps(metadata, sort_keys=True))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    np.savez_compressed(path, **arrays)
    with open(path[: -len(".npz")] + ".json", "w") as f:
        json.dump(metadata, f, indent=2, sort_keys=True)
        f.write("\n")
    return path


def load_agent(path: str | os.PathLike[str]) -> Agent:
    """Read an agent written by ``save_agent``; ``ValueError`` if it is not one."""
    with np.load(os.fspath(path), allow_pickle=False) as data:
        if _META_KEY not in data:
            raise ValueError(f"{path} is not a spoilfive_jax agent (no {_META_KEY} entry)")
        metadata = json.loads(str(data[_META_KEY]))
        flat = {k: jnp.asarray(data[k]) for k in data.files if k != _META_KEY}
    if metadata.get("format") not in _FORMATS:
        raise ValueError(f"{path}: unknown agent format {metadata.get('format')!r}")
    return Agent(traverse_util.unflatten_dict(flat, sep="/"), metadata)


def make_policy(agent: Agent, greedy: bool = True) -> PolicyFn:
    """``policy(key, state, player) -> action`` (int32) of ``agent`` for one hand: the most
    probable legal action (``greedy``) or a sample from the policy."""
    net, params = agent.network, agent.params
    n = agent.num_players
    env = agent.env

    def policy(key: jax.Array, state: Any, player: jax.Array) -> jax.Array:
        if state.tricks_won.shape[-1] != n:
            raise ValueError(
                f"this agent plays {n}-player tables, got a {state.tricks_won.shape[-1]}-player "
                "state"
            )
        logits, _ = apply(net, params, env.observe(state, player), state.legal_action_mask)
        return choose(logits, key, greedy)[0]

    policy.__name__ = str(agent.metadata.get("name", "ppo"))
    return policy


def load_policy(path: str | os.PathLike[str], greedy: bool = True) -> PolicyFn:
    """The policy of the agent saved at ``path`` (see ``make_policy``)."""
    return make_policy(load_agent(path), greedy)
