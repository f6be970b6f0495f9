"""``SpoilFive``: the public environment for one hand, with host-side input validation.

``init``/``step`` are pure and jit/vmap-able; ``init_from_deck``/``init_from_deal`` validate
concrete (host) inputs and raise ``ValueError`` naming the problem; ``checked_step`` is the
host-side step that refuses an illegal action instead of ending the hand.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
import spoilfive_jax.games.spoil_five.deck_deals as deck_deals
import spoilfive_jax.games.spoil_five.game as game
import spoilfive_jax.games.spoil_five.history as history
import spoilfive_jax.games.spoil_five.infer as infer
import spoilfive_jax.games.spoil_five.knowledge as knowledge
import spoilfive_jax.games.spoil_five.observe as _observe
import spoilfive_jax.games.spoil_five.presentation as presentation
import spoilfive_jax.games.spoil_five.render as render
import spoilfive_jax.games.spoil_five.rollouts as rollouts
import spoilfive_jax.games.spoil_five.session as session
import spoilfive_jax.games.spoil_five.solve as solve
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core import generic
from spoilfive_jax.core.cards import NUM_CARDS, card_str, card_symbol
from spoilfive_jax.core.env import Env, PolicyFn, checked_deal
from spoilfive_jax.core.validate import as_key, check_cards, check_int, concrete
from spoilfive_jax.games.spoil_five.game import NUM_ACTIONS, State
from spoilfive_jax.games.spoil_five.policies import BUILTIN
from spoilfive_jax.games.spoil_five.rules import Rules


class SpoilFive(Env[State, Rules]):
    """One hand of Spoil Five for ``num_players`` (2..10) under ``rules``.

    Actions: 0..51 play that card (in the rob decision: discard it and take the turn-up),
    ``PASS`` (52) declines to rob, ``JINK`` (53) / ``CLAIM`` (54) after winning tricks 1-3.

    Under ``jax.jit`` nothing can raise, so ``step`` with an illegal action ends the hand at
    once: the offender pays ``rules.illegal_penalty`` chips into the pot, which is carried to the
    next hand like a spoiled pot, every other seat loses only its ante, and ``state.illegal`` is
    set.  Stepping a terminated state returns it unchanged with zero rewards.
    """

    num_actions = NUM_ACTIONS
    rules_type = Rules
    default_num_players = 5
    phase_names = game.PHASE_NAMES

    def __init__(self, num_players: int = 5, rules: Rules | None = None) -> None:
        super().__init__(num_players, rules)

    @property
    def id(self) -> str:
        return "spoil_five"

    # ------------------------------------------------------------------ starting a hand

    def init(self, key: jax.Array | int, dealer: Any = 0, carried: Any = 0) -> State:
        """A uniformly random deal.  ``key``: a PRNG key or an int seed.  ``carried``: chips in
        the pot from spoiled hands.

        Host values of ``dealer``/``carried`` are validated.  Traced ones cannot raise: a
        dealer outside 0..N-1 gives a hand that has ended at once with ``state.illegal`` set
        and no chips moved (``core.env.checked_deal``); carried is used as given (>= 0).
        """
        key = as_key(key)
        check_int("carried", carried, 0, None)
        n, rules = self.num_players, self.rules
        return checked_deal(
            self, dealer, lambda d: _deal_random(key, _i32(d), _i32(carried), n, rules)
        )

    def init_from_deck(self, deck: Any, dealer: Any = 0, carried: Any = 0) -> State:
        """Deal from ``deck`` int[52], a permutation of 0..51, ``deck[0]`` dealt first.

        Dealing starts at the eldest hand (dealer + 1) and goes clockwise, in packets of
        ``rules.deal_packets``; card ``5N`` of the deck is turned up.  A traced deck (under
        jit/vmap) is not validated; a traced dealer is treated as in ``init``.
        """
        d = concrete(deck)
        if d is not None:
            if d.shape != (NUM_CARDS,):
                raise ValueError(f"deck must have shape (52,), got {d.shape}")
            check_cards("deck", d, NUM_CARDS, card_str)
        check_int("carried", carried, 0, None)
        deck = jnp.asarray(deck, jnp.int32)
        n, rules = self.num_players, self.rules
        return checked_deal(
            self, dealer, lambda dl: _deal_from_deck(deck, _i32(dl), _i32(carried), n, rules)
        )

    def init_from_deal(self, hands: Any, turnup: Any, dealer: Any = 0, carried: Any = 0) -> State:
        """Start from chosen hands: ``hands`` int[N, 5] card ids by seat, ``turnup`` a card id.

        Validation (concrete inputs): shape, ids in 0..51, no duplicate card anywhere, the
        turn-up not in a hand, dealer in 0..N-1, carried >= 0 (a traced dealer: as in ``init``).
        """
        n = self.num_players
        h, t = concrete(hands), concrete(turnup)
        if h is not None:
            if h.shape != (n, 5):
                raise ValueError(f"hands must have shape ({n}, 5) for {n} players, got {h.shape}")
            check_cards("hands", h, NUM_CARDS, card_str)
        if t is not None:
            if t.shape != () or not np.issubdtype(t.dtype, np.integer):
                raise ValueError(f"turnup must be one integer card id, got {turnup!r}")
            check_cards("turnup", t.reshape(1), NUM_CARDS, card_str)
            if h is not None and int(t) in set(h.reshape(-1).tolist()):
                raise ValueError(f"turnup {card_str(int(t))} is also in a hand")
        check_int("carried", carried, 0, None)
        hands, rules = jnp.asarray(hands, jnp.int32), self.rules
        return checked_deal(
            self,
            dealer,
            lambda d: _deal_hands(hands, _i32(turnup), _i32(d), _i32(carried), n, rules),
        )

    # ------------------------------------------------------------------ game hooks

    def _apply(self, state: State, action: jax.Array) -> State:
        return game.apply_action(state, action, self.rules)

    def _settle(self, state: State) -> State:
        return game.with_legal(state, self.rules)

    def _end_illegal(self, state: State) -> State:
        return game.end_illegal(state, self.rules)

    @property
    def max_decisions(self) -> int:
        """The most decisions a hand can take: a rob, 5 tricks of N cards, a jink decision."""
        return 5 * self.num_players + 2

    def action_str(self, action: Any) -> str:
        return action_str(action)

    @property
    def policy_names(self) -> tuple[str, ...]:
        return ("random", "heuristic")

    def builtin_policy(self, name: str) -> PolicyFn:
        if name not in BUILTIN:
            raise ValueError(f"unknown policy {name!r} for spoil_five; built-in: random, heuristic")
        return BUILTIN[name]

    # ------------------------------------------------------------------ observations

    def observe(self, state: State, player: Any) -> jax.Array:
        """float32[D]: seat ``player``'s imperfect-information view (``observe.observe``)."""
        return _observe.observe(state, player)

    def observe_full(self, state: State) -> jax.Array:
        """float32[D_full]: the perfect-information view (``observe.observe_full``)."""
        return _observe.observe_full(state)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of ``observe`` / ``State.observation`` for this table."""
        return _observe.observation_shape(self.num_players)

    @property
    def full_observation_shape(self) -> tuple[int, ...]:
        return _observe.full_observation_shape(self.num_players)

    # What the game can do beyond the core (``core.capabilities``), each a module of
    # functions taking the env first.
    capabilities: ClassVar[Mapping[type, object]] = {
        caps.Rollouts: rollouts,
        caps.RolloutKernel: rollouts,
        caps.HandScoring: rollouts,
        caps.Sessions: session,
        caps.Analysis: infer,
        caps.EndgameSolve: solve,
        caps.Positions: history,
        caps.Presentation: presentation,
        caps.TerminalPlay: presentation,
        caps.Rendering: render.RENDERING,
        caps.AgentInfo: presentation,
        caps.Teams: generic,
        caps.DeckDeals: deck_deals,
        caps.Knowledge: knowledge,
    }


def action_str(action: Any) -> str:
    """Text of an action id for people: a card (``"5♥"``, ``"10♦"``: ``card_symbol``), ``"PASS"``,
    ``"JINK"`` or ``"CLAIM"``."""
    a = int(action)
    if 0 <= a < NUM_CARDS:
        return card_symbol(a)
    names = {game.PASS: "PASS", game.JINK: "JINK", game.CLAIM: "CLAIM"}
    if a in names:
        return names[a]
    return f"<invalid action {a}>"


# The methods call these jitted functions, so op-by-op dispatch never happens outside jit (a
# plain ``env.init(key)`` in a notebook is one compiled call); inside a user's jit/vmap they
# simply inline.
def _i32(x: Any) -> jax.Array:
    return jnp.asarray(x, jnp.int32)


@functools.partial(jax.jit, static_argnums=(3, 4))
def _deal_random(
    key: jax.Array, dealer: jax.Array, carried: jax.Array, n: int, rules: Rules
) -> State:
    return game.deal_random(key, dealer, carried, n, rules)


@functools.partial(jax.jit, static_argnums=(3, 4))
def _deal_from_deck(
    deck: jax.Array, dealer: jax.Array, carried: jax.Array, n: int, rules: Rules
) -> State:
    return game.deal_from_deck(deck, dealer, carried, n, rules)


@functools.partial(jax.jit, static_argnums=(4, 5))
def _deal_hands(
    hands: jax.Array, turnup: jax.Array, dealer: jax.Array, carried: jax.Array, n: int, rules: Rules
) -> State:
    return game.new_hand(bits.from_positions(hands), turnup, dealer, carried, n, rules)
