"""The PPO agent's network (extra ``rl``): features of ``observe(state, player)`` in the
engine's strength layout, the actor-critic, and the choice of an action from its logits.

Every 52-card block is re-encoded into the strength layout (``fast.POSITION``: three plain suits
by strength, then the trumps by strength), so "my highest trump" is the same input whatever the
trump suit; the 64 + 3 position logits are mapped back to the 55 actions.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.spoil_five.observe as obs_lib
from spoilfive_jax.core.cards import NUM_CARDS
from spoilfive_jax.games.spoil_five.fast import CARD, POSITION, TRUMP_SLOT

NEG = -1e9  # logit of an illegal action

# --------------------------------------------------------------------------- features


def _canon_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per trump suit: card id at each strength position (52 = no card), position of each card
    id, and the led-class -> strength-slot map."""
    card_at = np.where((CARD >= 0) & (CARD < NUM_CARDS), CARD, NUM_CARDS).astype(np.int32)
    led = np.zeros((4, 5, 4), np.float32)
    for t in range(4):
        plain = [s for s in range(4) if s != t]
        for s in plain:
            led[t, s, (0, 1, 3)[plain.index(s)]] = 1.0
        led[t, 4, TRUMP_SLOT] = 1.0
    return card_at, POSITION.astype(np.int32), led


CARD_AT, CARD_POSITION, LED_SLOT = _canon_tables()  # int32[4, 64], int32[4, 52], f32[4, 5, 4]


def _block(obs: jax.Array, offset: int, size: int) -> jax.Array:
    return obs[..., offset : offset + size]


def featurize(obs: jax.Array, mask: jax.Array, num_players: int) -> tuple[jax.Array, jax.Array]:
    """Network input float32[..., F] and the trump suit int32[...] from an observation and the
    legal mask; card blocks re-encoded in the strength layout (64 positions each)."""
    n = num_players
    lay = obs_lib.layout(n)
    trump = jnp.argmax(_block(obs, *lay["TRUMP"]), axis=-1)
    idx = jnp.asarray(CARD_AT)[trump]  # [..., 64]

    def canon(cards: jax.Array) -> jax.Array:  # [..., K, 52] -> [..., K * 64]
        padded = jnp.concatenate([cards, jnp.zeros_like(cards[..., :1])], axis=-1)
        out = jnp.take_along_axis(padded, idx[..., None, :], axis=-1)
        return out.reshape(*out.shape[:-2], -1)

    mask_f = mask.astype(jnp.float32)
    cards = jnp.concatenate(
        [
            _block(obs, *lay["HAND"])[..., None, :],
            _block(obs, *lay["PLAYED"])[..., None, :],
            _block(obs, *lay["TURNUP"])[..., None, :],
            mask_f[..., None, :NUM_CARDS],
            _block(obs, *lay["TRICK"]).reshape(*obs.shape[:-1], n, NUM_CARDS),
            _block(obs, *lay["LAST_TRICK"]).reshape(*obs.shape[:-1], n, NUM_CARDS),
        ],
        axis=-2,
    )
    led = jnp.einsum("...k,...ks->...s", _block(obs, *lay["LED"]), jnp.asarray(LED_SLOT)[trump])
    rest_start, _ = lay["TRICKS_WON"]
    parts = [
        canon(cards),
        _block(obs, *lay["TRUMP"]),
        _block(obs, obs_lib.ROBBED, obs_lib.LED - obs_lib.ROBBED),  # ROBBED, PHASE
        led,
        _block(obs, obs_lib.TRICK_NUM, obs_lib.FIXED_SIZE - obs_lib.TRICK_NUM),
        obs[..., rest_start:],  # per-seat small blocks
        mask_f[..., NUM_CARDS:],
    ]
    return jnp.concatenate(parts, axis=-1), trump


class ActorCritic(nn.Module):
    """MLP torso on ``featurize``; action logits float32[..., 55] and a value float32[...]."""

    num_players: int
    hidden: tuple[int, ...] = (256, 256)

    @nn.compact
    def __call__(self, obs: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
        x, trump = featurize(obs, mask, self.num_players)
        for width in self.hidden:
            x = nn.relu(nn.Dense(width, kernel_init=nn.initializers.orthogonal(np.sqrt(2)))(x))
        out = nn.Dense(64 + 3, kernel_init=nn.initializers.orthogonal(0.01))(x)
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(x)[..., 0]
        where = jnp.asarray(CARD_POSITION)[trump]  # [..., 52]
        card_logits = jnp.take_along_axis(out[..., :64], where, axis=-1)
        logits = jnp.concatenate([card_logits, out[..., 64:]], axis=-1)
        return jnp.where(mask, logits, NEG), value


def apply(
    net: ActorCritic, params: Any, obs: jax.Array, mask: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """(masked logits float32[..., 55], value float32[...]) of ``net`` with ``params``."""
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
