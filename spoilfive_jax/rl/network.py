"""The PPO agent's networks (extra ``rl``) and the choice of an action from their logits.

``ActorCritic`` is Spoil Five's: every 52-card block of ``observe(state, player)`` is re-encoded
into the engine's strength layout (``core.kernel.standard_tables``: three plain suits by
strength, then the trumps by strength), so "my highest trump" is the same input whatever the
trump suit, and the 64 + 3 position logits are mapped back to the 55 actions.  ``MLPActorCritic``
serves any game: an MLP on the observation and the legal mask, one logit per action id.
``FamilyActorCritic`` is the Forty-Five family's: its card blocks re-encoded into the family's
strength layout (``forty_five.strength.tables``: the trumps by trump strength, the plain suits
by plain strength) beside the raw observation (which bidding, before trump is named, reads), and
the 64 position logits mapped back to the 53 cards.  ``network_for`` picks the one a game's
agents use (its name is saved in an agent's metadata).

Advice (``advice``: a built-in policy's name, e.g. ``"heuristic"``): the network also reads that
policy's choice for the same decision, one-hot float32[A] appended to the observation
(``agent_input``), and adds a learned multiple of it to the logits (``advice_weight``, from 0).
Training can then start from the advisor's play and learn where to play otherwise.  The advisor
reads what the player may see (the built-in policies use the player's view only), so an advised
agent sees nothing an unadvised one does not.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.agent as family_agent
import spoilfive_jax.games.spoil_five.observe as obs_lib
from spoilfive_jax.core.cards import NUM_CARDS
from spoilfive_jax.core.kernel import PLAIN_SLOTS, TRUMP_SLOT, standard_tables
from spoilfive_jax.core.network import NEG, block, split_advice
from spoilfive_jax.core.network import agent_input as agent_input  # (re-exported)
from spoilfive_jax.core.network import input_shape as input_shape  # (re-exported)
from spoilfive_jax.games.forty_five.rules import FortyFiveRules
from spoilfive_jax.games.forty_five.state import NUM_CARD_IDS

ADVISORS = ("heuristic", "greedy")  # the built-in policies a network may take advice from

# --------------------------------------------------------------------------- advice
# (``agent_input``, ``input_shape`` and ``split_advice`` are flax-free: ``core.network``)


def _take_advice(module: nn.Module, logits: jax.Array, advice: jax.Array | None) -> jax.Array:
    """``logits`` plus the learned ``advice_weight`` times the advice one-hot (none: as is)."""
    if advice is None:
        return logits
    weight = module.param("advice_weight", nn.initializers.zeros, ())
    return logits + weight * advice


# --------------------------------------------------------------------------- features


def _canon_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per trump suit: card id at each strength position (52 = no card), position of each card
    id (the engine's layout, ``core.kernel.standard_tables``), and the led-class ->
    strength-slot map."""
    position, card = standard_tables()
    card_at = np.where(card >= 0, card, NUM_CARDS).astype(np.int32)
    led = np.zeros((4, 5, 4), np.float32)
    for t in range(4):
        plain = [s for s in range(4) if s != t]
        for s in plain:
            led[t, s, PLAIN_SLOTS[plain.index(s)]] = 1.0
        led[t, 4, TRUMP_SLOT] = 1.0
    return card_at, position, led


CARD_AT, CARD_POSITION, LED_SLOT = _canon_tables()  # int32[4, 64], int32[4, 52], f32[4, 5, 4]


def featurize(obs: jax.Array, mask: jax.Array, num_players: int) -> tuple[jax.Array, jax.Array]:
    """Network input float32[..., F] and the trump suit int32[...] from an observation and the
    legal mask; card blocks re-encoded in the strength layout (64 positions each)."""
    n = num_players
    lay = obs_lib.layout(n)
    trump = jnp.argmax(block(obs, *lay["TRUMP"]), axis=-1)
    idx = jnp.asarray(CARD_AT)[trump]  # [..., 64]

    def canon(cards: jax.Array) -> jax.Array:  # [..., K, 52] -> [..., K * 64]
        padded = jnp.concatenate([cards, jnp.zeros_like(cards[..., :1])], axis=-1)
        out = jnp.take_along_axis(padded, idx[..., None, :], axis=-1)
        return out.reshape(*out.shape[:-2], -1)

    mask_f = mask.astype(jnp.float32)
    cards = jnp.concatenate(
        [
            block(obs, *lay["HAND"])[..., None, :],
            block(obs, *lay["PLAYED"])[..., None, :],
            block(obs, *lay["TURNUP"])[..., None, :],
            mask_f[..., None, :NUM_CARDS],
            block(obs, *lay["TRICK"]).reshape(*obs.shape[:-1], n, NUM_CARDS),
            block(obs, *lay["LAST_TRICK"]).reshape(*obs.shape[:-1], n, NUM_CARDS),
        ],
        axis=-2,
    )
    led = jnp.einsum("...k,...ks->...s", block(obs, *lay["LED"]), jnp.asarray(LED_SLOT)[trump])
    rest_start, _ = lay["TRICKS_WON"]
    parts = [
        canon(cards),
        block(obs, *lay["TRUMP"]),
        block(obs, obs_lib.ROBBED, obs_lib.LED - obs_lib.ROBBED),  # ROBBED, PHASE
        led,
        block(obs, obs_lib.TRICK_NUM, obs_lib.FIXED_SIZE - obs_lib.TRICK_NUM),
        obs[..., rest_start:],  # per-seat small blocks
        mask_f[..., NUM_CARDS:],
    ]
    return jnp.concatenate(parts, axis=-1), trump


class ActorCritic(nn.Module):
    """MLP torso on ``featurize``; action logits float32[..., 55] and a value float32[...]."""

    num_players: int
    hidden: tuple[int, ...] = (256, 256)
    advised: bool = False  # ``obs`` ends with an advice one-hot (``agent_input``)

    @nn.compact
    def __call__(self, obs: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
        obs, advice = split_advice(obs, mask, self.advised)
        x, trump = featurize(obs, mask, self.num_players)
        if advice is not None:
            x = jnp.concatenate([x, advice], axis=-1)
        for width in self.hidden:
            x = nn.relu(nn.Dense(width, kernel_init=nn.initializers.orthogonal(np.sqrt(2)))(x))
        out = nn.Dense(64 + 3, kernel_init=nn.initializers.orthogonal(0.01))(x)
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(x)[..., 0]
        where = jnp.asarray(CARD_POSITION)[trump]  # [..., 52]
        card_logits = jnp.take_along_axis(out[..., :64], where, axis=-1)
        logits = jnp.concatenate([card_logits, out[..., 64:]], axis=-1)
        return jnp.where(mask, _take_advice(self, logits, advice), NEG), value


class MLPActorCritic(nn.Module):
    """MLP torso on the observation float32[..., D] and the legal mask bool[..., A]; masked
    action logits float32[..., A] and a value float32[...]."""

    num_actions: int
    hidden: tuple[int, ...] = (256, 256)
    advised: bool = False  # ``obs`` ends with an advice one-hot (``agent_input``)

    @nn.compact
    def __call__(self, obs: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
        _, advice = split_advice(obs, mask, self.advised)
        x = jnp.concatenate([obs, mask.astype(jnp.float32)], axis=-1)
        for width in self.hidden:
            x = nn.relu(nn.Dense(width, kernel_init=nn.initializers.orthogonal(np.sqrt(2)))(x))
        logits = nn.Dense(self.num_actions, kernel_init=nn.initializers.orthogonal(0.01))(x)
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(x)[..., 0]
        return jnp.where(mask, _take_advice(self, logits, advice), NEG), value


class FamilyActorCritic(nn.Module):
    """The Forty-Five family's actor-critic: ``games.forty_five.agent.features`` (the raw
    observation and its card blocks in the strength layout of the trump suit) through the MLP;
    logits float32[..., 64] (``agent.to_logits``: 53 cards by position, then the 11 other
    actions) and a value float32[...].  ``agent.logits`` is its forward pass without flax."""

    num_players: int
    rules: FortyFiveRules
    hidden: tuple[int, ...] = (256, 256)
    advised: bool = False  # ``obs`` ends with an advice one-hot (``agent_input``)

    @nn.compact
    def __call__(self, obs: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
        obs, advice = split_advice(obs, mask, self.advised)
        x, position = family_agent.features(obs, mask, self.num_players, self.rules, advice)
        for width in self.hidden:
            x = nn.relu(nn.Dense(width, kernel_init=nn.initializers.orthogonal(np.sqrt(2)))(x))
        other = mask.shape[-1] - NUM_CARD_IDS
        out = nn.Dense(64 + other, kernel_init=nn.initializers.orthogonal(0.01))(x)
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(x)[..., 0]
        weight = None if advice is None else self.param("advice_weight", nn.initializers.zeros, ())
        return family_agent.to_logits(out, position, mask, advice, weight), value


Network = ActorCritic | MLPActorCritic | FamilyActorCritic
NETWORKS = ("ActorCritic", "FamilyActorCritic", "MLPActorCritic")
_FAMILY = ("forty_five", "twenty_five", "auction_forty_fives")


def default_network(game: str) -> str:
    """The network a game's agents use unless told: its own where it has one."""
    if game == "spoil_five":
        return "ActorCritic"
    return "FamilyActorCritic" if game in _FAMILY else "MLPActorCritic"


def network_for(env: Any, hidden: tuple[int, ...], name: str = "", advice: str = "") -> Network:
    """The network named ``name`` (``NETWORKS``; empty: ``default_network(env.id)``) for the
    table ``env`` (its game, seats, actions and rules: the family's network reads its strength
    layout from the rules), reading ``agent_input(env, advice, ...)``."""
    game, num_players, num_actions, rules = env.id, env.num_players, env.num_actions, env.rules
    name = name or default_network(game)
    if advice and (advice not in ADVISORS or advice not in env.policy_names):
        known = ", ".join(a for a in ADVISORS if a in env.policy_names)
        raise ValueError(f"unknown advisor {advice!r} for {game}; known: {known}")
    advised = bool(advice)
    if name == "ActorCritic":
        if game != "spoil_five":
            raise ValueError(f"the ActorCritic network reads Spoil Five observations, not {game}")
        return ActorCritic(num_players, tuple(hidden), advised)
    if name == "FamilyActorCritic":
        if game not in _FAMILY:
            raise ValueError(
                f"the FamilyActorCritic network reads the Forty-Five family's observations, "
                f"not {game}"
            )
        return FamilyActorCritic(num_players, rules, tuple(hidden), advised)
    if name == "MLPActorCritic":
        return MLPActorCritic(num_actions, tuple(hidden), advised)
    raise ValueError(f"unknown network {name!r}; known: {', '.join(NETWORKS)}")


def apply(
    net: Network, params: Any, obs: jax.Array, mask: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """(masked logits float32[..., A], value float32[...]) of ``net`` with ``params``."""
    out: Any = net.apply(params, obs, mask)
    return out


def choose(logits: jax.Array, key: jax.Array | None, greedy: bool) -> tuple[jax.Array, jax.Array]:
    """(action int32[...], its log-probability) from masked logits."""
    if greedy or key is None:
        action = jnp.argmax(logits, axis=-1)
    else:
        action = jax.random.categorical(key, logits, axis=-1)
    logp = jnp.take_along_axis(jax.nn.log_softmax(logits), action[..., None], axis=-1)[..., 0]
    return action.astype(jnp.int32), logp
