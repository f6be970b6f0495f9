"""Observations of one hand as fixed float32 vectors (pure, jit/vmap-able, one hand each).

``observe(state, player)`` is the imperfect-information view of any seat (not only the one to
act): what that player has seen at a real table.  Seats are RELATIVE to the observer: relative
seat ``r`` is absolute seat ``(player + r) % N``, so ``r = 0`` is the observer, ``r = 1`` the
player on its left (who plays after it), and so on.  ``observe_full(state)`` is the
perfect-information view (every hand, the rob discard, the stock) for search and critics, in
ABSOLUTE seat order.

Every entry is 0/1 except the two chip entries.  Cards are one-hot over the 52 card ids
(``suit * 13 + rank``, docs/rules.md#cards-and-notation).  N = num_players.

``observe(state, player)`` -> float32[179 + 116 N] (``observation_shape(N)``; 759 for N = 5):

==================  ========  ===================================================================
block               size      content
==================  ========  ===================================================================
``HAND``            52        cards in the observer's hand (after a rob: with the turn-up)
``PLAYED``          52        every card played to a trick so far (the current trick included)
``TURNUP``          52        the turned-up card (public, even once robbed)
``TRUMP``           4         trump suit C D H S
``ROBBED``          1         the turn-up was robbed (by: ``ROBBER``); the discard is never shown
``PHASE``           4         rob decision, play, jink decision, hand over
``LED``             5         what the current trick was led with: suit C D H S, or a trump
                              (A♥ included); zeros before the lead of the trick
``TRICK_NUM``       6         tricks completed 0..5
``POT``             1         chips in the pot / N (1.0 = one ante from each of N seats)
``CARRIED``         1         chips carried in from spoiled hands / N
``JINKING``         1         a jink was declared
``TRICK``           N x 52    the CURRENT trick: card played by each relative seat so far;
                              empty at a lead (the engine's ``trick_cards`` still holds the
                              last trick then; it is shown in ``LAST_TRICK`` instead)
``LAST_TRICK``      N x 52    the trick just completed, by relative seat, shown from its
                              last card until the next lead (then zeros), and at the end
``TRICKS_WON``      N x 5     tricks won per relative seat, thermometer ``[won >= k]``, k=1..5
``DEALER``          N         relative seat of the dealer
``LEADER``          N         relative seat leading the current trick (at a lead: to lead)
``TO_ACT``          N         relative seat to act (zeros once the hand is over)
``WINNING``         N         relative seat winning the current trick (zeros if empty)
``ROBBER``          N         relative seat that robbed (zeros unless ``ROBBED``)
``JINKER``          N         relative seat that declared a jink (zeros if none)
``WINNER``          N         relative seat that took the pot (zeros unless a pot was won)
==================  ========  ===================================================================

Fixed blocks start at the constant offsets below (``HAND`` ... ``JINKING``); per-seat blocks
follow in the order of the table, at the offsets given by ``layout(N)``.  What is public: the
turn-up and who robbed it (docs/rules.md#robbing-the-pack: robbing is announced), every card played
and by whom, tricks, pot, whose turn it is (so at a rob decision the seat deciding is visible, as
at a real table).  What is hidden from ``observe``: the other hands, the stock, the rob discard
(even the robber's own: ``state.discard`` is never read here) and who was entitled to rob but
declined.

``observe_full(state)`` -> float32[283 + 169 N] (``full_observation_shape(N)``; 1128 for N = 5):
the public part of ``observe`` seen from seat 0 (its ``HAND`` block is seat 0's hand), then
``HANDS`` (N x 52, every seat's hand by absolute seat), ``DISCARD`` (52, the rob discard),
``STOCK`` (52, the cards dealt to nobody: not in a hand, not played, not the discard, and not
the turn-up unless it is still face up) and ``ENTITLED`` (N, the seat entitled to rob, whether it
robbed or not).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core.cards import NUM_CARDS
from spoilfive_jax.games.spoil_five.game import NO_CARD, TRUMP_CLASS, State
from spoilfive_jax.games.spoil_five.state import held

F32 = jnp.float32

# Fixed-size blocks: (offset, size).
HAND = 0
PLAYED = HAND + NUM_CARDS  # 52
TURNUP = PLAYED + NUM_CARDS  # 104
TRUMP = TURNUP + NUM_CARDS  # 156
ROBBED = TRUMP + 4  # 160
PHASE = ROBBED + 1  # 161
LED = PHASE + 4  # 165
TRICK_NUM = LED + 5  # 170
POT = TRICK_NUM + 6  # 176
CARRIED = POT + 1  # 177
JINKING = CARRIED + 1  # 178
FIXED_SIZE = JINKING + 1  # 179

# Per-seat blocks: name and width per seat, in order after the fixed blocks.
SEAT_BLOCKS: tuple[tuple[str, int], ...] = (
    ("TRICK", NUM_CARDS),
    ("LAST_TRICK", NUM_CARDS),
    ("TRICKS_WON", 5),
    ("DEALER", 1),
    ("LEADER", 1),
    ("TO_ACT", 1),
    ("WINNING", 1),
    ("ROBBER", 1),
    ("JINKER", 1),
    ("WINNER", 1),
)
PER_SEAT_SIZE = sum(w for _, w in SEAT_BLOCKS)  # 116
FULL_EXTRA_PER_SEAT = NUM_CARDS + 1  # HANDS and ENTITLED
FULL_EXTRA_FIXED = 2 * NUM_CARDS  # DISCARD and STOCK


def observation_shape(num_players: int) -> tuple[int]:
    """Shape of ``observe(state, player)`` for ``num_players`` seats."""
    return (FIXED_SIZE + PER_SEAT_SIZE * num_players,)


def full_observation_shape(num_players: int) -> tuple[int]:
    """Shape of ``observe_full(state)`` for ``num_players`` seats."""
    n = num_players
    return (observation_shape(n)[0] + FULL_EXTRA_PER_SEAT * n + FULL_EXTRA_FIXED,)


def layout(num_players: int, full: bool = False) -> dict[str, tuple[int, int]]:
    """``{block: (offset, size)}`` of every block of ``observe`` (``observe_full`` if ``full``)."""
    n = num_players
    out = {
        "HAND": (HAND, NUM_CARDS),
        "PLAYED": (PLAYED, NUM_CARDS),
        "TURNUP": (TURNUP, NUM_CARDS),
        "TRUMP": (TRUMP, 4),
        "ROBBED": (ROBBED, 1),
        "PHASE": (PHASE, 4),
        "LED": (LED, 5),
        "TRICK_NUM": (TRICK_NUM, 6),
        "POT": (POT, 1),
        "CARRIED": (CARRIED, 1),
        "JINKING": (JINKING, 1),
    }
    at = FIXED_SIZE
    for name, width in SEAT_BLOCKS:
        out[name] = (at, width * n)
        at += width * n
    if full:
        for name, size in (
            ("HANDS", NUM_CARDS * n),
            ("DISCARD", NUM_CARDS),
            ("STOCK", NUM_CARDS),
            ("ENTITLED", n),
        ):
            out[name] = (at, size)
            at += size
    return out


# --------------------------------------------------------------------------- helpers


def _one_hot(value: jax.Array, size: int) -> jax.Array:
    """float32[size]: one-hot of ``value`` (all zeros when ``value`` is outside 0..size-1)."""
    return (jnp.arange(size) == value).astype(F32)


def _card_planes(cards: jax.Array) -> jax.Array:
    """float32[..., 52]: one-hot of card ids (``NO_CARD`` -> zeros)."""
    return (cards[..., None] == jnp.arange(NUM_CARDS)).astype(F32)


def _rel_seat(seat: jax.Array, origin: jax.Array, n: int) -> jax.Array:
    """float32[N]: one-hot of ``seat`` relative to ``origin`` (zeros when ``seat`` < 0)."""
    rel = jnp.mod(seat - origin, n)
    return jnp.where(seat >= 0, _one_hot(rel, n), 0.0)


def _public(state: State, origin: jax.Array) -> jax.Array:
    """Everything of ``observe`` but the hand: the public record, seats relative to ``origin``.

    Reads no hand and never ``state.discard``.
    """
    n = state.tricks_won.shape[-1]
    order = jnp.mod(origin + jnp.arange(n), n)  # absolute seat of each relative seat
    trick = state.trick_cards[order]
    complete = (state.trick_cards != NO_CARD).all()  # the engine's stale last trick
    current = jnp.where(complete, NO_CARD, trick)
    last = jnp.where(complete, trick, NO_CARD)
    led = jnp.where(complete | (state.led_class < 0), -1, state.led_class)
    winning = jnp.where(complete | (state.led_class < 0), -1, state.best_seat)
    robber = jnp.where(state.robbed, state.robber, -1)
    won = state.tricks_won[order]
    fixed = [
        bits.to_bool(state.played, NUM_CARDS).astype(F32),
        _card_planes(state.turnup),
        _one_hot(state.trump, 4),
        state.robbed.astype(F32)[None],
        _one_hot(state.phase, 4),
        _one_hot(jnp.where(led == TRUMP_CLASS, 4, led), 5),
        _one_hot(state.trick_num, 6),
        (state.pot / n).astype(F32)[None],
        (state.carried / n).astype(F32)[None],
        (state.jinker >= 0).astype(F32)[None],
    ]
    per_seat = [
        _card_planes(current).reshape(-1),
        _card_planes(last).reshape(-1),
        (won[:, None] >= jnp.arange(1, 6)).astype(F32).reshape(-1),
        _rel_seat(state.dealer, origin, n),
        _rel_seat(state.leader, origin, n),
        _rel_seat(state.current_player, origin, n),
        _rel_seat(winning, origin, n),
        _rel_seat(robber, origin, n),
        _rel_seat(state.jinker, origin, n),
        _rel_seat(state.winner, origin, n),
    ]
    return jnp.concatenate(fixed + per_seat)


def _hand(state: State, seat: jax.Array) -> jax.Array:
    return bits.to_bool(held(state, seat), NUM_CARDS).astype(F32)


# --------------------------------------------------------------------------- public


def observe(state: State, player: Any) -> jax.Array:
    """float32[179 + 116 N]: what seat ``player`` (0..N-1) knows of one hand (module docstring).

    Depends only on the player's own hand and the public record: changing the other hands, the
    stock or the rob discard never changes it.  Batch with ``jax.vmap``.
    """
    p = jnp.asarray(player, jnp.int32)
    return jnp.concatenate([_hand(state, p), _public(state, p)])


def observe_full(state: State) -> jax.Array:
    """float32[283 + 169 N]: the perfect-information view of one hand (module docstring)."""
    n = state.tricks_won.shape[-1]
    zero = jnp.int32(0)
    hands = bits.to_bool(state.hands, NUM_CARDS).astype(F32)  # [N, 52]
    discard = _card_planes(state.discard)
    face_up = jnp.where(state.robbed, NO_CARD, state.turnup)
    used = hands.max(0) + bits.to_bool(state.played, NUM_CARDS) + discard + _card_planes(face_up)
    stock = (used == 0).astype(F32)
    return jnp.concatenate(
        [
            _hand(state, zero),
            _public(state, zero),
            hands.reshape(-1),
            discard,
            stock,
            _rel_seat(state.robber, zero, n),
        ]
    )


def current_observation(state: State) -> jax.Array:
    """``observe(state, current_player)`` for a state with any leading batch dimensions
    (the batched states of ``rl.ppo``).  Once the hand is over (``current_player == -1``) it is
    seat 0's view."""
    fn = observe
    for _ in range(np.ndim(state.current_player)):
        fn = jax.vmap(fn)
    return fn(state, jnp.maximum(state.current_player, 0))
