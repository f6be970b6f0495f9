"""The flax-free half of the trained agents: what a network reads, a saved agent's arrays, and
dense layers applied to them.

The ``rl`` extra (flax, optax) trains agents and saves them as ``.npz`` archives
(``rl.agent.save_agent``: one float32 array per flattened parameter path such as
``params/Dense_0/kernel``, and a ``__metadata__`` JSON text).  Playing a saved agent needs none
of that: this module reads the archive with numpy and its networks apply the layers with
``jax.numpy``, so the core package can ship agents (4-player Forty-Five's and Twenty-Five's
best bots weigh their worlds by them: ``games.forty_five.agent``).

- ``agent_input(env, advice, state, player)``: float32[D], the observation and, for an agent
  trained with advice, the one-hot float32[A] of the advisor's choice;
- ``read_agent_arrays(path)``: (parameter tree of numpy arrays, metadata dict), and
  ``read_agent_metadata(path)`` alone;
- ``dense(layer, x)`` and ``relu_stack(params, x, num_hidden)``: flax's ``nn.Dense``
  (``x @ kernel + bias``), and a torso of them with ReLUs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

if TYPE_CHECKING:  # (types only)
    from spoilfive_jax.core.env import Env, HandState

S = TypeVar("S", bound="HandState")  # the env's state (``core.env.Env``'s ``S``), per call
R = TypeVar("R", bound=Hashable)  # its rules


NEG = -1e9  # logit of an illegal action
META_KEY = "__metadata__"  # the archive entry holding the metadata JSON
_ADVICE_KEY = 0  # the advisor's key (the built-in advisors are deterministic)


def agent_input(env: Env[S, R], advice: str, state: S, player: jax.Array) -> jax.Array:
    """What a network with ``advice`` reads for ``player`` in ONE hand's ``state``: float32[D],
    ``env.observe(state, player)``, then (with ``advice``) the one-hot float32[A] of the
    advisor's action."""
    obs = env.observe(state, player)
    if not advice:
        return obs
    choice = env.builtin_policy(advice)(jax.random.key(_ADVICE_KEY), state, player)
    return jnp.concatenate([obs, jax.nn.one_hot(choice, env.num_actions, dtype=obs.dtype)])


def input_shape(env: Env[S, R], advice: str) -> tuple[int, ...]:
    """The shape of ``agent_input``: the observation's, widened by the action count with
    ``advice``."""
    (size,) = env.observation_shape
    return (size + (env.num_actions if advice else 0),)


def split_advice(obs: jax.Array, mask: jax.Array, advised: bool) -> Any:
    """(observation, advice one-hot or None) of an ``agent_input`` (``mask``: the legal mask,
    whose width is the advice's)."""
    if not advised:
        return obs, None
    return obs[..., : -mask.shape[-1]], obs[..., -mask.shape[-1] :]


def block(obs: jax.Array, offset: int, size: int) -> jax.Array:
    """The ``size`` features of ``obs`` [..., D] from ``offset`` (an observation layout's block)."""
    return obs[..., offset : offset + size]


def rules_from_dict(d: dict[str, Any]) -> dict[str, Any]:
    """Rule options saved as JSON (lists where the rules hold tuples) back as the rules' fields."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}


def npz_entries(name: str) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` archive ``name`` (``ValueError`` for any other file)."""
    data = np.load(name, allow_pickle=False)
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise ValueError("a single array, not an archive")
    with data:
        return {k: data[k] for k in data.files}


def unflatten(flat: dict[str, Any]) -> dict[str, Any]:
    """``{"a/b": x}`` -> ``{"a": {"b": x}}`` (the archive's paths as a parameter tree)."""
    tree: dict[str, Any] = {}
    for path, value in flat.items():
        *parents, leaf = path.split("/")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return tree


def read_agent_arrays(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(parameter tree of numpy arrays, metadata) of an agent archive written by
    ``rl.agent.save_agent``.  ``ValueError`` for an archive without metadata;
    ``rl.agent.load_agent`` checks the rest and words its errors for users."""
    return agent_from_entries(npz_entries(os.fspath(path)))


def agent_from_entries(entries: dict[str, np.ndarray]) -> tuple[dict[str, Any], Any]:
    """(parameter tree, metadata as parsed JSON) of an agent archive's arrays (``ValueError``
    without a metadata entry or for JSON that does not parse)."""
    if META_KEY not in entries:
        raise ValueError(f"it has no {META_KEY} entry")
    weights = {k: v for k, v in entries.items() if k != META_KEY}
    return unflatten(weights), json.loads(str(entries[META_KEY]))


def read_agent_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The metadata of an agent archive, without reading its weights."""
    with np.load(os.fspath(path), allow_pickle=False) as data:
        if META_KEY not in data.files:
            raise ValueError(f"it has no {META_KEY} entry")
        meta: dict[str, Any] = json.loads(str(data[META_KEY]))
    return meta


def dense(layer: dict[str, Any], x: jax.Array) -> jax.Array:
    """flax's ``nn.Dense`` with the parameters ``layer`` ({kernel, bias}) applied to ``x``."""
    return jnp.dot(x, layer["kernel"]) + layer["bias"]


def relu_stack(params: dict[str, Any], x: jax.Array, num_hidden: int) -> jax.Array:
    """The torso of the project's networks: ``Dense_0`` .. ``Dense_<num_hidden - 1>``, each
    followed by a ReLU (the names flax gives a module's dense layers in order)."""
    for i in range(num_hidden):
        x = jax.nn.relu(dense(params[f"Dense_{i}"], x))
    return x
