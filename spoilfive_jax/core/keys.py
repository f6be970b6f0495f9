"""Counter keys: the cheap random keys the rollout loops hand to policies.

A policy is called with a key at every decision of every hand.  JAX's default keys are threefry:
a ``fold_in`` and a draw cost two threefry hashes, which is more than a whole decision of the
built-in random on a rollout kernel.  ``COUNTER`` is a ``jax.extend.random`` key implementation
whose hashing is ``core.kernel.mix`` (a few multiplies and shifts), usable with every
``jax.random`` function (``fold_in``, ``split``, ``bits``, ``uniform``, ``categorical``, ...):

- A key is three uint32 words ``(a, b, c)``.  The loops give hand ``id`` of a run whose counter
  seed is ``seed`` the key ``(seed, id, UNSET)`` (``hand_keys``), and decision ``t`` the key
  ``fold_in(hand key, t)`` = ``(seed, id, t)``: a ``fold_in`` into a key whose third word is
  ``UNSET`` sets that word.  Any other ``fold_in`` or ``split`` hashes all three words into a
  fresh key whose third word is ``UNSET``.
- The bits of a key: word 0 is ``mix(a, b, c)`` (the rollout kernels' draw for decision ``t``
  of hand ``id``: so a policy that draws as the kernel does plays the kernel's hands), word
  ``i > 0`` is ``mix(word 0, i, c)``.

Same key, same numbers, on every backend and batch size.  The hash is not cryptographic and its
streams are 32-bit: fine for play and sampling, not for secrets.  The rollout kernels deal
from the same hash.  The rollouts of a game without a kernel (``core.generic``) deal each
hand through its ``init`` from the key ``deal_keys``' ``(seed, id, DEAL)``.  Keys for anything
else (an ``env.init`` key of the user's, training) stay the user's, threefry by default.  The
built-in games' and the Oh Hell example's ``init`` hash any key's words for their draws
(``core.deal.shuffled_deck``, two hashes a card), where ``jax.random.bits`` of a threefry key
would cost a threefry block every two cards.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.random import define_prng_impl

from spoilfive_jax.core.kernel import mix

U32 = jnp.uint32
UNSET = np.uint32(0xFFFFFFFF)  # the third word of a key whose decision is not set yet
DEAL = np.uint32(0xFFFFFFFE)  # the third word of a hand's deal key (``deal_keys``)
_SPLIT = np.uint32(0x5BD1E995)  # salts that keep split, fold_in and bits streams apart
_FOLD = np.uint32(0x2545F491)
_WORDS = np.uint32(0x68E31DA4)
_CHILD = np.uint32(0x9E3779B9)


def _seed(seed: jax.Array) -> jax.Array:
    s = jnp.asarray(seed).astype(U32)
    return jnp.stack([mix(s, U32(1), _FOLD), mix(s, U32(2), _SPLIT), jnp.asarray(UNSET)])


def _fold_in(key: jax.Array, data: int) -> jax.Array:  # (data: a uint32 scalar, traced)
    a, b, c = key[0], key[1], key[2]
    d = jnp.asarray(data).astype(U32)
    hashed = jnp.stack([mix(a, b, c), mix(c ^ _FOLD, a, b) ^ d, jnp.asarray(UNSET)])
    return jnp.where(c == UNSET, jnp.stack([a, b, d]), hashed)


def _split(key: jax.Array, shape: tuple[int, ...]) -> jax.Array:
    n = int(np.prod(shape))
    i = jnp.arange(n, dtype=U32)
    a, b, c = key[0], key[1], key[2]
    first = jnp.broadcast_to(mix(a ^ _SPLIT, b, c), (n,))
    second = mix(b, c, a) ^ (i * _CHILD)
    return jnp.stack([first, second, jnp.full((n,), UNSET)], -1).reshape(*shape, 3)


def _words(key: jax.Array, n: int) -> jax.Array:
    """uint32[n]: the key's first ``n`` words of bits."""
    w0 = mix(key[0], key[1], key[2])
    i = jnp.arange(n, dtype=U32)
    return jnp.where(i == 0, w0, mix(w0, i, key[2] ^ _WORDS))


def _random_bits(key: jax.Array, bit_width: int, shape: tuple[int, ...]) -> jax.Array:
    n = int(np.prod(shape))
    if bit_width == 64:
        w = _words(key, 2 * n).astype(jnp.uint64)
        return ((w[:n] << 32) | w[n:]).reshape(shape)
    w = _words(key, n)
    dtype = {8: jnp.uint8, 16: jnp.uint16, 32: jnp.uint32}[bit_width]
    return (w >> (32 - bit_width)).astype(dtype).reshape(shape)


COUNTER = define_prng_impl(
    key_shape=(3,),
    seed=_seed,
    split=_split,
    random_bits=_random_bits,
    fold_in=_fold_in,
    name="spoilfive_counter",
)


def hand_keys(seed: jax.Array, ids: jax.Array) -> jax.Array:
    """Counter keys [B] of hands ``ids`` uint32[B] of a run whose counter seed is ``seed``
    uint32: ``(seed, id, UNSET)``; ``fold_in(key, t)`` is then decision ``t``'s."""
    ids = jnp.asarray(ids, U32)
    words = [jnp.broadcast_to(jnp.asarray(seed, U32), ids.shape), ids, jnp.full_like(ids, UNSET)]
    return jax.random.wrap_key_data(jnp.stack(words, -1), impl=COUNTER)


def deal_keys(seed: jax.Array, ids: jax.Array) -> jax.Array:
    """Counter keys [B] for the deals of hands ``ids`` uint32[B]: ``(seed, id, DEAL)``, the key
    ``fold_in(hand key, DEAL)``, apart from every decision's (``t < DEAL``)."""
    return jax.vmap(lambda k: jax.random.fold_in(k, DEAL))(hand_keys(seed, ids))


def as_counter(keys: jax.Array) -> jax.Array:
    """Counter keys [B] drawn from keys [B] of any implementation (two 32-bit words of each,
    the decision unset): a playout handed ``fold_in(key, t)`` at its decision ``t`` then pays a
    hash for it, not threefry (an analysis's playouts with a policy of the user's)."""
    words = jax.vmap(lambda k: jax.random.bits(k, (2,), U32))(keys)
    return hand_keys(words[:, 0], words[:, 1])


__all__ = ["COUNTER", "DEAL", "UNSET", "as_counter", "deal_keys", "hand_keys"]
