"""The Forty-Five family's trained agent without flax: its network's input, its forward pass, and
the agent the package ships.

``FamilyActorCritic`` (``rl.network``, extra ``rl``) trains on ``features``: the raw
observation and its card blocks re-encoded in the strength layout of the trump suit
(``strength.tables``: the trumps by trump strength, the plain suits by plain strength; clubs'
layout until trump is named, which the raw TRUMP block shows).  ``logits`` applies a saved
agent's parameters to them with ``jax.numpy`` alone (the same arithmetic as the flax module),
so the core package can play an agent.

``shipped_agent(env)``: the agent in the package's ``agents/`` folder for ``env``'s table
(``forty_five_ppo.npz``, ``twenty_five_ppo.npz``: 4 players with the game's default rules,
each distilled from pimc with the heuristic's advice), or None.  It is the model the best
bot (``sf.best_policy``) weighs its worlds by, and it plays as a policy itself
(``FamilyAgent``: greedy).
"""

from __future__ import annotations

import dataclasses
import functools
import os
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.observe as family_obs
import spoilfive_jax.games.forty_five.strength as strength
from spoilfive_jax.core import network
from spoilfive_jax.games.forty_five.rules import FortyFiveRules
from spoilfive_jax.games.forty_five.state import NUM_CARD_IDS

AGENTS_DIR = os.path.join(os.path.dirname(__file__), "agents")
SHIPPED = {  # game id -> the agent file the package ships
    "forty_five": "forty_five_ppo.npz",
    "twenty_five": "twenty_five_ppo.npz",
}
POSITIONS = 64  # card slots of the strength layout (53 cards and room for every variant)


@functools.cache
def _tables(rules: FortyFiveRules) -> tuple[np.ndarray, np.ndarray]:
    """Per trump suit: the card id at each strength position (53: none) int32[4, 64], and each
    card id's position int32[4, 53]."""
    position, action = strength.tables(rules)
    card_at = np.where((action >= 0) & (action < NUM_CARD_IDS), action, NUM_CARD_IDS)
    return card_at.astype(np.int32), position.astype(np.int32)


def features(
    obs: jax.Array,
    mask: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
    advice: jax.Array | None,
) -> tuple[jax.Array, jax.Array]:
    """(network input float32[..., F], each card id's strength position int32[..., 53]) of an
    observation float32[..., D], the legal mask bool[..., 64] and the advice one-hot
    float32[..., 64] (None: an agent trained without advice)."""
    n, lay = num_players, family_obs.layout(num_players)
    card_at, position = (jnp.asarray(t) for t in _tables(rules))
    trump = jnp.argmax(network.block(obs, *lay["TRUMP"]), axis=-1)
    mask_f = mask.astype(jnp.float32)
    cards = jnp.concatenate(
        [
            *(network.block(obs, *lay[b])[..., None, :] for b in ("HAND", "DISCARDS", "PLAYED")),
            network.block(obs, *lay["TURNUP"])[..., None, :],
            mask_f[..., None, :NUM_CARD_IDS],
            network.block(obs, *lay["TRICK"]).reshape(*obs.shape[:-1], n, NUM_CARD_IDS),
            network.block(obs, *lay["LAST_TRICK"]).reshape(*obs.shape[:-1], n, NUM_CARD_IDS),
            *(() if advice is None else (advice[..., None, :NUM_CARD_IDS],)),
        ],
        axis=-2,
    )
    padded = jnp.concatenate([cards, jnp.zeros_like(cards[..., :1])], axis=-1)
    canon = jnp.take_along_axis(padded, card_at[trump][..., None, :], axis=-1)
    raw = obs if advice is None else jnp.concatenate([obs, advice], axis=-1)
    x = jnp.concatenate([canon.reshape(*obs.shape[:-1], -1), raw, mask_f], axis=-1)
    return x, position[trump]


def to_logits(
    out: jax.Array,
    position: jax.Array,
    mask: jax.Array,
    advice: jax.Array | None,
    advice_weight: jax.Array | None,
) -> jax.Array:
    """The masked logits float32[..., 64] of the network's output float32[..., 64 + 11] (cards
    by strength position, then the other actions), plus ``advice_weight`` times the advice."""
    card_logits = jnp.take_along_axis(out[..., :POSITIONS], position, axis=-1)
    logits = jnp.concatenate([card_logits, out[..., POSITIONS:]], axis=-1)
    if advice is not None and advice_weight is not None:
        logits = logits + advice_weight * advice
    return jnp.where(mask, logits, network.NEG)


def logits(
    params: dict[str, Any],
    seen: jax.Array,
    mask: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
    advised: bool,
) -> jax.Array:
    """The masked logits float32[..., 64] of a saved ``FamilyActorCritic`` (its ``params``
    tree, ``params/Dense_<i>/...``) for ``network.agent_input`` float32[..., D(+64)]."""
    tree = params["params"]
    obs, advice = network.split_advice(seen, mask, advised)
    x, position = features(obs, mask, num_players, rules, advice)
    hidden = sum(1 for k in tree if k.startswith("Dense_")) - 2  # (then the logits and value)
    out = network.dense(tree[f"Dense_{hidden}"], network.relu_stack(tree, x, hidden))
    return to_logits(out, position, mask, advice, tree.get("advice_weight"))


@dataclasses.dataclass(frozen=True, eq=False)
class FamilyAgent:
    """A saved family agent for ONE table (``env``) as a greedy ``policy(key, state, player)``
    and its ``action_probs(state, player)`` (jittable, one hand; flax-free).  Hashed by
    identity, like a function (``shipped_agent`` returns one object per table)."""

    env: Any
    params: Any = dataclasses.field(repr=False)  # the parameter tree (jnp arrays)
    advice: str  # the built-in policy whose choice the network reads ("": none)
    name: str = "ppo"

    @property
    def __name__(self) -> str:  # tournament tables name policies by ``__name__``
        return self.name

    def bind(self, env: Any) -> FamilyAgent:
        """This agent for ``env``'s table, or ``ValueError`` for another table."""
        if env != self.env:
            raise ValueError(f"this agent plays {self.env!r}, not {env!r}")
        return self

    def _logits(self, state: Any, player: jax.Array) -> jax.Array:
        seen = network.agent_input(self.env, self.advice, state, player)
        env = self.env
        mask = state.legal_action_mask
        return logits(self.params, seen, mask, env.num_players, env.rules, bool(self.advice))

    def __call__(self, key: jax.Array, state: Any, player: jax.Array) -> jax.Array:
        del key  # greedy
        return jnp.argmax(self._logits(state, player)).astype(jnp.int32)

    def action_probs(self, state: Any, player: jax.Array) -> jax.Array:
        """float32[64]: the agent's chance of each action of ``player`` (0 for illegal ones)."""
        return jax.nn.softmax(self._logits(state, player))


@functools.cache
def shipped_agent(env: Any) -> FamilyAgent | None:
    """The agent the package ships for ``env``'s table (module docstring), or None: another
    game, seat count or rule option than the agent was trained for."""
    file = SHIPPED.get(env.id)
    if file is None:
        return None
    path = os.path.join(AGENTS_DIR, file)
    meta = network.read_agent_metadata(path)  # (the weights only for the table they fit)
    trained = network.rules_from_dict(meta["rules"])
    if env.num_players != meta["num_players"] or dataclasses.asdict(env.rules) != trained:
        return None
    params, _ = network.read_agent_arrays(path)
    tree = jax.tree.map(jnp.asarray, params)
    return FamilyAgent(env, tree, str(meta.get("advice", "")), str(meta.get("name", "ppo")))
