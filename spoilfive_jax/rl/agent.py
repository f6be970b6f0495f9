"""Trained agents: save, load and play them as policies (extra ``rl``: flax, optax).

A saved agent is one ``.npz`` file holding the network parameters (one array per flattened
flax path, e.g. ``params/Dense_0/kernel``) and a ``__metadata__`` entry, a JSON text with the
network sizes, the table (``num_players``, ``rules``) and how it was trained, so that
``load_policy(path)`` rebuilds the network with no other argument.  ``save_agent`` also writes
the metadata next to it as ``<name>.json`` for people to read.

A policy is ``policy(key, state, player) -> action`` on ONE hand's public ``State``, jittable,
reading only ``observe(state, player)`` and ``state.legal_action_mask`` (and, for an agent
trained with advice, a built-in policy's choice: ``rl.network.agent_input``); ``sf.rollout``,
``sf.score_hands``, ``sf.evaluate`` and ``sf.play_sessions`` vmap it over hands::

    import spoilfive_jax as sf
    from spoilfive_jax.rl.agent import load_policy

    ppo = load_policy("examples/agents/ppo_seat.npz")
    env = sf.make("spoil_five", 5)
    print(sf.evaluate(0, env, {"ppo": ppo, "heuristic": "heuristic"}, num_hands=20_000).table())

Every game's agent is saved and loaded alike (``examples/agents/<game id>_ppo.npz`` for the
Forty-Five family); the metadata names the game, and the policy refuses another game's table.

Training: ``train(PPOConfig(...), num_updates)`` (``spoilfive_jax.rl.training``) or the script
``examples/train_ppo.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import zipfile
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import traverse_util

from spoilfive_jax.core.env import Env, R, S, check_state, state_owner
from spoilfive_jax.core.network import META_KEY, agent_from_entries, npz_entries
from spoilfive_jax.core.network import rules_from_dict as rules_from_dict  # (re-exported)
from spoilfive_jax.registry import env_class, make
from spoilfive_jax.rl.network import Network, agent_input, apply, choose, network_for
from spoilfive_jax.rl.ppo import PPOConfig
from spoilfive_jax.rl.training import TrainResult, seat_evaluation, train

FORMAT = "spoilfive_jax.agent/1"  # the file format's name (unchanged when modules move)
_FORMATS = (FORMAT, "spoilfive_jax.rl.agent/1")  # (the second: files written while it was used)

__all__ = [
    "FORMAT",
    "NOT_AN_AGENT",
    "Agent",
    "AgentPolicy",
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
        # (every field of the rules is saved, the family's variant too: built whole, not over
        # the game's preset)
        rules = env_class(self.game).rules_type(**rules_from_dict(self.metadata["rules"]))
        return make(self.game, self.num_players, rules=rules)

    @property
    def network(self) -> Network:
        """The network the parameters are for (metadata ``network``: ``rl.network.NETWORKS``)."""
        meta = self.metadata
        return network_for(
            self.env, tuple(meta["hidden"]), str(meta.get("network", "")), self.advice
        )

    @property
    def advice(self) -> str:
        """The built-in policy whose choice the network reads (metadata ``advice``; "": none)."""
        return str(self.metadata.get("advice", ""))

    def policy(self, greedy: bool = True) -> AgentPolicy:
        return make_policy(self, greedy)


def rules_to_dict(rules: Any) -> dict[str, Any]:
    """A rules object (a dataclass) as JSON-able options (tuples become lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(rules).items()}


def metadata_for(config: PPOConfig, **extra: Any) -> dict[str, Any]:
    """The metadata of an agent trained with ``config`` (``extra``: anything JSON-able)."""
    env = config.env
    return {
        "format": FORMAT,
        "algorithm": "ppo",
        "network": type(config.network).__name__,
        "hidden": list(config.hidden),
        "game": env.id,
        "num_players": config.num_players,
        "rules": rules_to_dict(config.rules),
        "observation_shape": list(env.observation_shape),
        "num_actions": env.num_actions,
        "opponent": config.opponent,
        "advice": config.advice,
        "teacher": config.teacher if config.teacher != "pimc" else f"pimc{config.teacher_worlds}",
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
    arrays[META_KEY] = np.array(json.dumps(metadata, sort_keys=True))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    np.savez_compressed(path, **arrays)
    with open(path[: -len(".npz")] + ".json", "w") as f:
        json.dump(metadata, f, indent=2, sort_keys=True)
        f.write("\n")
    return path


NOT_AN_AGENT = (
    "is not an agent saved by this project (spoilfive_jax.rl.agent.save_agent or "
    "examples/train_ppo.py)"
)
"""What ``load_agent`` says of a file that is not an agent (the command line says the same)."""

_NEEDED = ("num_players", "hidden", "rules")  # the metadata that rebuilds the network


def load_agent(path: str | os.PathLike[str]) -> Agent:
    """Read an agent written by ``save_agent``.  A missing or unreadable file is an ``OSError``
    (``FileNotFoundError``, ...); a file that is not an agent (not an ``.npz`` archive, no
    metadata, an unknown format, a game that is not installed) is one ``ValueError``:
    ``<path> is not an agent saved by this project (...): <why>``."""
    name = os.fspath(path)
    try:
        entries = npz_entries(name)
    except (ValueError, EOFError, zipfile.BadZipFile):
        # numpy's own words ("pickled data", "not a zip file") would mean nothing to the user
        raise ValueError(f"{name} {NOT_AN_AGENT}: not an .npz archive") from None
    try:
        params, metadata = agent_from_entries(entries)
        if not isinstance(metadata, dict) or metadata.get("format") not in _FORMATS:
            found = metadata.get("format") if isinstance(metadata, dict) else metadata
            raise ValueError(f"unknown agent format {found!r}")
        missing = [k for k in _NEEDED if k not in metadata]
        if missing:
            raise ValueError(f"its metadata lacks {', '.join(missing)}")
        agent = Agent(jax.tree.map(jnp.asarray, params), metadata)
        agent.env  # noqa: B018 - its game and rules must exist here (a plugin may be missing)
    except ValueError as e:  # json's errors are ValueErrors too
        raise ValueError(f"{name} {NOT_AN_AGENT}: {e}") from None
    return agent


@dataclasses.dataclass(frozen=True, eq=False)
class AgentPolicy:
    """``policy(key, state, player) -> action`` (int32) of a loaded agent for one hand: the most
    probable legal action (``greedy``) or a sample from the policy.

    ``bind(env)`` (which every tool calls, and the command line before any work) refuses a
    table of another game or size by name: ``this agent plays spoil_five, not forty_five``.
    Called directly on a state of another game or size, it raises the same kind of
    ``ValueError`` when traced.  Hashed by identity, like a function (a jit static argument)."""

    agent: Agent
    greedy: bool = True

    @property
    def __name__(self) -> str:  # tournament tables name policies by ``__name__``
        return str(self.agent.metadata.get("name", "ppo"))

    @functools.cached_property
    def _env(self) -> Env[Any, Any]:
        return self.agent.env

    @functools.cached_property
    def _network(self) -> Network:
        return self.agent.network

    def table_error(self, game: str, num_players: int) -> str | None:
        """Why this agent cannot play a ``num_players``-seat table of ``game`` (None: it can)."""
        mine, n = self.agent.game, self.agent.num_players
        if game != mine:
            return f"this agent plays {mine}, not {game}"
        if num_players != n:
            return f"this agent plays {n}-player {mine} tables, not {num_players}-player ones"
        return None

    def bind(self, env: Env[S, R]) -> AgentPolicy:
        """This policy for ``env``'s table, or ``ValueError`` naming the agent's game and size."""
        why = self.table_error(env.id, env.num_players)
        if why is not None:
            raise ValueError(why)
        return self

    def __call__(self, key: jax.Array, state: Any, player: jax.Array) -> jax.Array:
        env, n = self._env, self.agent.num_players
        try:
            check_state(env, state, "agent")
        except ValueError:
            seats = np.shape(state.rewards)[-1]
            raise ValueError(
                f"this agent plays {n}-player {self.agent.game} tables, got a {seats}-player "
                f"state of {state_owner(state)}"
            ) from None
        return choose(self._logits(state, player), key, self.greedy)[0]

    def _logits(self, state: Any, player: jax.Array) -> jax.Array:
        """float32[num_actions]: the agent's masked logits for ``player`` in ONE hand."""
        seen = agent_input(self._env, self.agent.advice, state, player)
        logits, _ = apply(self._network, self.agent.params, seen, state.legal_action_mask)
        return logits

    def action_probs(self, state: Any, player: jax.Array) -> jax.Array:
        """float32[num_actions]: the agent's chance of each action of ``player`` in ONE hand's
        ``state`` (0 for illegal ones; jittable): what ``pimc(..., infer_model=agent)`` weighs
        the other seats' plays by."""
        return jax.nn.softmax(self._logits(state, player))


def make_policy(agent: Agent, greedy: bool = True) -> AgentPolicy:
    """The policy of ``agent`` (``AgentPolicy``): greedy, or sampling from its distribution."""
    return AgentPolicy(agent, greedy)


def load_policy(path: str | os.PathLike[str], greedy: bool = True) -> AgentPolicy:
    """The policy of the agent saved at ``path`` (``load_agent``, ``AgentPolicy``)."""
    return make_policy(load_agent(path), greedy)
