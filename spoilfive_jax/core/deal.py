"""Dealing, shared by every game: a uniformly random deck, the deal order of five-card hands
dealt in two packets from the eldest hand (docs/rules.md#players-seats-and-the-deal), and who may
rob the turn-up (docs/rules.md#robbing-the-pack)."""

from __future__ import annotations

import functools
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import NUM_CARDS
from spoilfive_jax.core.kernel import mix32
from spoilfive_jax.core.knowledge import Knowledge

if TYPE_CHECKING:  # (types only)
    from spoilfive_jax.core.env import Env, HandState, RecordedState

S = TypeVar("S", bound="HandState")  # the env's state (``core.env.Env``'s ``S``), per call
R = TypeVar("R", bound=Hashable)  # its rules


class Packets(Protocol):
    """Any rules object that says how a hand is dealt: ``deal_packets`` (first round, second)."""

    @property
    def deal_packets(self) -> tuple[int, int]: ...


def deal_positions(num_players: int, rules: Packets) -> np.ndarray:
    """int[N, 5]: the deck positions dealt to the seat ``row + 1`` places left of the dealer.

    Row 0 is the eldest hand.  A packet of ``rules.deal_packets[0]`` goes round first, then the
    rest (any rules object with ``deal_packets``).
    """
    p1, p2 = rules.deal_packets
    n = num_players
    rows = [
        [j * p1 + i for i in range(p1)] + [p1 * n + j * p2 + i for i in range(p2)] for j in range(n)
    ]
    return np.array(rows, np.int32)


def hands_from_deck(deck: jax.Array, dealer: jax.Array, num_players: int, rules: Packets) -> Bits:
    """The five-card hands (uint32[N] x 2, by seat) dealt from ``deck`` (deck[0] first)."""
    by_offset = bits.from_positions(deck[deal_positions(num_players, rules)])  # eldest first
    shift = jnp.asarray(dealer, jnp.int32) + 1
    return Bits(jnp.roll(by_offset.lo, shift), jnp.roll(by_offset.hi, shift))


def _draw_card(avail: Bits, u: jax.Array, remaining: jax.Array) -> tuple[Bits, jax.Array]:
    """One card drawn uniformly from ``avail`` (``remaining`` cards) by a 24-bit draw ``u``:
    (the cards left, the card)."""
    k = ((u * remaining.astype(jnp.uint32)) >> 24).astype(jnp.int32)
    card = bits.nth(avail, k)
    return avail.without(bits.bit(card)), card


def _full_deck(deck_size: int) -> Bits:
    full = bits.const(range(deck_size))
    return Bits(jnp.uint32(full.lo), jnp.uint32(full.hi))


def draw_deck(u24: jax.Array, deck_size: int = NUM_CARDS) -> jax.Array:
    """A uniformly random deck prefix int32[K] of a ``deck_size``-card deck (52, or 53 with a
    joker) from uniform 24-bit integers ``u24`` uint32[K].

    Card k is drawn uniformly from the cards not yet drawn, i.e. the top K cards of a uniform
    shuffle (K <= deck_size).
    """

    def draw(avail: Bits, x: tuple[jax.Array, jax.Array]) -> tuple[Bits, jax.Array]:
        return _draw_card(avail, *x)

    k = u24.shape[0]
    remaining = jnp.arange(deck_size, deck_size - k, -1, dtype=jnp.int32)
    _, deck = jax.lax.scan(draw, _full_deck(deck_size), (u24, remaining))
    return deck


def _words(key: jax.Array) -> jax.Array:
    """uint32[W]: the words of one key (``ValueError`` for a batch of keys: ``vmap`` over it)."""
    words = jax.random.key_data(key)
    if words.ndim != 1:
        raise ValueError(
            f"one key expected (key data of shape (W,)), got key data of shape {words.shape}: "
            "vmap over a batch of keys"
        )
    return words.astype(jnp.uint32)


def _key_words(key: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The two uint32 numbers a key's stream hashes (``key_draws``): its first word and the
    sum of the others."""
    words = _words(key)
    salt = words[1:].sum(dtype=jnp.uint32) if words.shape[0] > 1 else jnp.uint32(0)
    return words[0], salt


def _draw_at(first: jax.Array, salt: jax.Array, j: jax.Array) -> jax.Array:
    return mix32(mix32(first + j * jnp.uint32(0x9E3779B9)) ^ salt) >> 8


def key_draws(key: jax.Array, first: jax.Array | int, count: int) -> jax.Array:
    """Uniform 24-bit draws ``first`` .. ``first + count - 1`` (uint32[count]) of ``key``'s
    stream: the key's words hashed with the draw's index, two rounds of ``mix32``.

    For keys whose words are themselves a hash (a split or folded threefry key: the
    resampler's round keys).  Drawing the same numbers with ``jax.random.bits`` costs a
    threefry block (20 rounds) every two words: a resampling try (23 draws at 4 players) took
    half of its time that way.  A key whose words may be structured (consecutive seeds, a
    counter key's hand ids) deals with ``deck_draws``."""
    j = jnp.asarray(first, jnp.uint32) + jnp.arange(count, dtype=jnp.uint32)
    return _draw_at(*_key_words(key), j)


def _deck_words(key: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The two uint32 numbers ``deck_draws`` hashes, from every word of the key: the first
    word and the second, each word after the second hashed into it in turn (a sum would
    give counter keys ``(a, b, c)`` and ``(a, b + 1, c - 1)`` one deck), then each of the two
    hashed with the other, so that keys differing in a counter (``PRNGKey(i)``, a counter
    key's hand id) start unrelated streams: the draws of ``key_draws`` would differ only by an
    exclusive-or of the counter under the last ``mix32``."""
    words = _words(key)
    a = words[0]
    b = words[1] if words.shape[0] > 1 else jnp.uint32(0)
    for w in words[2:]:
        b = mix32(b ^ mix32(w + jnp.uint32(0x2C1B3C6D)))
    return mix32(a ^ mix32(b + jnp.uint32(0x632BE5AB))), mix32(b ^ mix32(a + jnp.uint32(1)))


def deck_draws(key: jax.Array, count: int) -> jax.Array:
    """uint32[count]: the 24-bit draws ``shuffled_deck`` deals ``key``'s deck from (a
    ``key_draws`` stream of the key's words hashed together first, ``_deck_words``)."""
    return _draw_at(*_deck_words(key), jnp.arange(count, dtype=jnp.uint32))


def shuffled_deck(key: jax.Array, count: int, deck_size: int = NUM_CARDS) -> jax.Array:
    """int32[count]: the top ``count`` cards of a uniformly shuffled ``deck_size``-card deck,
    drawn from any key (threefry, ``core.keys.COUNTER``): ``draw_deck(deck_draws(key, count),
    deck_size)``, each draw hashed where its card is drawn (batched, the draws are not laid
    out and transposed first).  The built-in games' ``env.init``.

    Each card costs two 32-bit hashes, not half a threefry block (20 rounds) as a draw of
    ``jax.random.bits`` would: drawn that way, ``vmap(env.init)`` ran 1.4-2.0x slower and a
    pgx-style auto-reset loop, which deals at every step, 1.2-1.6x slower
    (``benchmarks/deal_speed.py``)."""
    first, salt = _deck_words(key)

    def draw(avail: Bits, j: jax.Array) -> tuple[Bits, jax.Array]:
        u = _draw_at(first, salt, j.astype(jnp.uint32))
        return _draw_card(avail, u, deck_size - j)

    _, deck = jax.lax.scan(draw, _full_deck(deck_size), jnp.arange(count, dtype=jnp.int32))
    return deck


def entitled_to_rob(turnup: jax.Array, dealer: jax.Array, holder: jax.Array) -> jax.Array:
    """int32: the seat entitled to rob the turn-up (docs/rules.md#robbing-the-pack): the dealer
    if an ace is turned up, else ``holder``, the seat dealt the ace of trumps (A♥ when hearts
    are trumps; -1 when nobody was: nobody may rob).  The rule, stated once: each layout finds
    the holder its own way (the public step from the seats' hands, ``ace_holder``; the rollout
    kernels from the deck's positions or their seats' sets; a resampled world from its hands)."""
    return jnp.where(turnup % 13 == 0, dealer, holder).astype(jnp.int32)


def ace_holder(hands: Bits, ace: jax.Array) -> jax.Array:
    """int32: the seat whose hand (``hands``: a card set a seat, ``[N]``) holds card ``ace``,
    the lowest such seat, or -1 if none does."""
    holds = bits.has(hands, ace)
    return jnp.where(holds.any(), jnp.argmax(holds).astype(jnp.int32), -1)


def rob_seat(hands: Bits, turnup: jax.Array, dealer: jax.Array) -> jax.Array:
    """int32: the seat entitled to rob the turn-up (``entitled_to_rob``), from the seats' hands: the
    dealer if an ace is turned up, else the holder of the ace of trumps, else -1."""
    return entitled_to_rob(turnup, dealer, ace_holder(hands, turnup // 13 * 13))


@functools.cache
def _programs(env: Env[S, R]) -> tuple[Any, Any]:
    """(the hand's first state, each seat's dealt cards as masks bool[N, 64]): one compiled
    call each per table (``Knowledge.dealt_state``, ``Knowledge.private_cards``)."""
    known = env.capability(Knowledge, "deck_of")
    seats = jnp.arange(env.num_players, dtype=jnp.int32)

    def masks(state: RecordedState) -> jax.Array:
        sets = jax.vmap(lambda p: known.private_cards(env, state, p))(seats)
        return bits.to_bool(Bits(sets.lo[:, 0], sets.hi[:, 0]), 64)

    return jax.jit(lambda state: known.dealt_state(env, state)), jax.jit(masks)


def first_state(env: Env[S, R], state: RecordedState) -> S:
    """The first state of ``state``'s hand (``Knowledge.dealt_state``), compiled once a table."""
    return _programs(env)[0](state)


@functools.cache
def _positions(env: Env[S, R], deals: Any, dealer: int) -> np.ndarray:
    """bool[N, 64]: the pack positions ``deals`` deals each seat (card i at position i)."""
    size = int(deals.deck_size(env))
    ident = deals.init_from_deck(env, np.arange(size, dtype=np.int32), dealer)
    return np.asarray(_programs(env)[1](ident))


def deck_with_hands(
    env: Env[S, R], deals: Any, first: RecordedState, dealer: int, head: list[int]
) -> np.ndarray:
    """Host: an order of the pack (int32[deck_size]) that deals hand ``first``'s cards: each
    seat's dealt cards (its first ``Knowledge.private_cards`` set) at the positions ``deals``
    (the game's ``DeckDeals``) deals that seat, then ``head`` (the turn-up, ...; -1s skipped)
    at the next positions in order, then every other card in ascending order.  The positions
    come from dealing the pack in its own order (card i at position i)."""
    size = int(deals.deck_size(env))
    where = _positions(env, deals, dealer)
    cards = np.asarray(_programs(env)[1](first))
    deck = np.full(size, -1, np.int32)
    for seat in range(env.num_players):
        deck[np.flatnonzero(where[seat])] = np.flatnonzero(cards[seat])
    shown = [int(c) for c in head if int(c) >= 0]
    free = np.flatnonzero(deck < 0)
    deck[free[: len(shown)]] = shown
    rest = sorted(set(range(size)) - set(deck[deck >= 0].tolist()))
    deck[deck < 0] = rest
    return deck
