"""``OhHell``: the environment of one hand, with host-side input validation."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_oh_hell.game as game
import spoilfive_oh_hell.observe as _observe
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, PolicyFn, checked_deal
from spoilfive_jax.core.validate import as_key, check_cards, concrete
from spoilfive_oh_hell import (
    agent,
    deck_deals,
    history,
    infer,
    knowledge,
    play,
    presentation,
    rollouts,
)
from spoilfive_oh_hell.policies import BUILTIN
from spoilfive_oh_hell.rules import BID, NUM_CARDS, OhHellRules, card_str, card_symbol, check_table
from spoilfive_oh_hell.state import State


class OhHell(Env[State, OhHellRules]):
    """One hand of Oh Hell for 3..7 players, OpenSpiel's ``oh_hell`` (``game``).

    Actions (OpenSpiel's ids): 0..51 play that card (``rules``: ``rank * 4 + suit``), ``52 + k``
    bid k tricks; ``num_actions`` is 53 + T.  Under ``jax.jit`` nothing can raise, so an
    illegal action ends the hand at once with ``state.illegal`` set: the offender scores
    ``-(points_per_trick * T + 11)``, worse than any hand, and the others 0.
    """

    rules_type = OhHellRules
    default_num_players = 4
    phase_names = game.PHASE_NAMES
    num_actions = BID + OhHellRules().num_tricks + 1  # of the default rules; per table below
    # What it can do beyond the core (``core.capabilities``): modules of functions taking the
    # env first.
    capabilities: ClassVar[Mapping[type, object]] = {
        **Env.capabilities,
        caps.Rollouts: rollouts,
        caps.AgentInfo: agent,
        caps.Analysis: infer,
        caps.Positions: history,
        caps.Presentation: presentation,
        caps.TerminalPlay: play,
        caps.DeckDeals: deck_deals,
        caps.Knowledge: knowledge,
    }

    def __init__(self, num_players: int | None = None, rules: OhHellRules | None = None) -> None:
        super().__init__(num_players, rules)
        check_table(self.num_players, self.rules)
        # The action count depends on the rules (bids 0..T): an instance value over the class's.
        self.num_actions = game.num_actions(self.rules)

    @property
    def id(self) -> str:
        return "oh_hell"

    # ------------------------------------------------------------------ starting a hand

    def init(self, key: jax.Array | int, dealer: Any = 0) -> State:
        """A uniformly random deal with seat ``dealer`` dealing; ``key``: a PRNG key or an int
        seed.  A host dealer is checked; a traced one outside 0..N-1 gives a hand that has
        ended at once with ``state.illegal`` set, nobody scoring (``core.env.checked_deal``)."""
        key, n, rules = as_key(key), self.num_players, self.rules
        return checked_deal(
            self, dealer, lambda d: _deal_random(key, jnp.asarray(d, jnp.int32), n, rules)
        )

    def init_from_deal(self, hands: Any, trump_card: Any, dealer: Any = 0) -> State:
        """Start from chosen cards: ``hands`` int[N, T] card ids by seat, ``trump_card`` the card
        turned up, ``dealer`` 0..N-1.  Host values are checked (shape, ids, no card twice)."""
        n, t = self.num_players, self.rules.num_tricks
        h, c = concrete(hands), concrete(trump_card)
        if h is not None:
            if h.shape != (n, t):
                raise ValueError(f"hands must have shape ({n}, {t}) for {n} players, got {h.shape}")
            check_cards("hands", h, NUM_CARDS, card_str)
        if c is not None:
            if c.shape != () or not np.issubdtype(c.dtype, np.integer):
                raise ValueError(f"trump_card must be one integer card id, got {trump_card!r}")
            check_cards("trump_card", c.reshape(1), NUM_CARDS, card_str)
            if h is not None and int(c) in set(h.reshape(-1).tolist()):
                raise ValueError(f"trump_card {card_str(int(c))} is also in a hand")
        i32, rules = jnp.int32, self.rules
        h32, c32 = jnp.asarray(hands, i32), jnp.asarray(trump_card, i32)
        return checked_deal(
            self, dealer, lambda d: _deal_hands(h32, c32, jnp.asarray(d, i32), n, rules)
        )

    # ------------------------------------------------------------------ the step's parts

    def _apply(self, state: State, action: jax.Array) -> State:
        return game.apply_action(state, action, self.rules)

    def _settle(self, state: State) -> State:
        return game.with_legal(state, self.rules)

    @property
    def max_decisions(self) -> int:
        """N bids and N*T cards."""
        return self.num_players * (self.rules.num_tricks + 1)

    # ------------------------------------------------------------------ observations

    def observe(self, state: State, player: Any) -> jax.Array:
        return _observe.observe(state, player)

    def observe_full(self, state: State) -> jax.Array:
        return _observe.observe_full(state)

    # ------------------------------------------------------------------ text and policies

    def action_str(self, action: Any) -> str:
        return action_str(action, self.rules.num_tricks)

    @property
    def policy_names(self) -> tuple[str, ...]:
        return tuple(BUILTIN)

    def builtin_policy(self, name: str) -> PolicyFn:
        if name not in BUILTIN:
            raise ValueError(f"unknown policy {name!r} for oh_hell; built-in: {', '.join(BUILTIN)}")
        return BUILTIN[name]


def action_str(action: Any, num_tricks: int = 11) -> str:
    """``10♦`` for a card, ``bid 3`` for a bid."""
    a = int(action)
    if 0 <= a < NUM_CARDS:
        return card_symbol(a)
    if BID <= a <= BID + num_tricks:
        return f"bid {a - BID}"
    return f"<invalid action {a}>"


# One compiled call per table, so a plain ``env.init(key)`` is not dispatched op by op.
@functools.partial(jax.jit, static_argnums=(2, 3))
def _deal_random(key: jax.Array, dealer: jax.Array, n: int, rules: OhHellRules) -> State:
    return game.deal_random(key, dealer, n, rules)


@functools.partial(jax.jit, static_argnums=(3, 4))
def _deal_hands(
    hands: jax.Array, trump_card: jax.Array, dealer: jax.Array, n: int, rules: OhHellRules
) -> State:
    return game.new_hand(hands, trump_card, dealer, n, rules)
