"""``SpoilFive``: the public environment for one hand, with host-side input validation.

``init``/``step`` are pure and jit/vmap-able; ``init_from_deck``/``init_from_deal`` validate
concrete (host) inputs and raise ``ValueError`` naming the problem; ``checked_step`` is the
host-side step that refuses an illegal action instead of ending the hand.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
import spoilfive_jax.games.spoil_five.game as game
import spoilfive_jax.games.spoil_five.history as _history
import spoilfive_jax.games.spoil_five.infer as _infer
import spoilfive_jax.games.spoil_five.observe as _observe
from spoilfive_jax.core.cards import NUM_CARDS, card_str
from spoilfive_jax.games.spoil_five.game import NUM_ACTIONS, State
from spoilfive_jax.games.spoil_five.rules import Rules

MIN_PLAYERS, MAX_PLAYERS = 2, 10


def _concrete(x: Any) -> np.ndarray | None:
    """The host value of ``x``, or None when it is a tracer (inside jit/vmap)."""
    if isinstance(x, jax.core.Tracer):
        return None
    return np.asarray(x)


def _check_int(name: str, value: Any, low: int, high: int | None) -> None:
    """Validate a host integer (a tracer passes: it cannot be inspected under jit)."""
    v = _concrete(value)
    if v is None:
        return
    if v.shape != () or not np.issubdtype(v.dtype, np.integer):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    iv = int(v)
    if iv < low or (high is not None and iv > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be {bound}, got {iv}")


def _check_cards(name: str, ids: np.ndarray) -> None:
    if not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"{name} must hold integer card ids, got dtype {ids.dtype}")
    bad = ids[(ids < 0) | (ids >= NUM_CARDS)]
    if bad.size:
        raise ValueError(f"{name} holds card ids outside 0..51: {sorted(set(bad.tolist()))}")
    values, counts = np.unique(ids, return_counts=True)
    dup = values[counts > 1]
    if dup.size:
        shown = ", ".join(card_str(int(c)) for c in dup)
        raise ValueError(f"{name} holds duplicate cards: {shown}")


def check_num_players(num_players: Any) -> int:
    """``num_players`` as an int, or ``ValueError`` unless it is an integer 2..10."""
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
        raise ValueError(f"num_players must be an integer 2..10, got {num_players!r}")
    if not MIN_PLAYERS <= int(num_players) <= MAX_PLAYERS:
        raise ValueError(f"num_players must be 2..10, got {num_players}")
    return int(num_players)


class SpoilFive:
    """One hand of Spoil Five for ``num_players`` (2..10) under ``rules``.

    Actions: 0..51 play that card (in the rob decision: discard it and take the turn-up),
    ``PASS`` (52) declines to rob, ``JINK`` (53) / ``CLAIM`` (54) after winning tricks 1-3.

    Under ``jax.jit`` nothing can raise, so ``step`` with an illegal action ends the hand at
    once: the offender pays ``rules.illegal_penalty`` chips into the pot, which is carried to the
    next hand like a spoiled pot, every other seat loses only its ante, and ``state.illegal`` is
    set.  Stepping a terminated state returns it unchanged with zero rewards.
    """

    num_actions: int = NUM_ACTIONS

    def __init__(self, num_players: int = 5, rules: Rules | None = None) -> None:
        num_players = check_num_players(num_players)
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a spoilfive_jax.Rules, got {type(rules).__name__}")
        self.num_players = int(num_players)
        self.rules = rules

    def __repr__(self) -> str:
        return f"SpoilFive(num_players={self.num_players}, rules={self.rules!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SpoilFive) and (self.num_players, self.rules) == (
            other.num_players,
            other.rules,
        )

    def __hash__(self) -> int:
        return hash((SpoilFive, self.num_players, self.rules))

    @property
    def id(self) -> str:
        return "spoil_five"

    # ------------------------------------------------------------------ starting a hand

    def init(self, key: jax.Array, dealer: Any = 0, carried: Any = 0) -> State:
        """A uniformly random deal.  ``carried``: chips in the pot from spoiled hands.

        Host values of ``dealer``/``carried`` are validated; traced ones are used as given
        (dealer must then lie in 0..N-1 and carried be >= 0).
        """
        self._check_dealer_carried(dealer, carried)
        return _deal_random(key, _i32(dealer), _i32(carried), self.num_players, self.rules)

    def init_from_deck(self, deck: Any, dealer: Any = 0, carried: Any = 0) -> State:
        """Deal from ``deck`` int[52], a permutation of 0..51, ``deck[0]`` dealt first.

        Dealing starts at the eldest hand (dealer + 1) and goes clockwise, in packets of
        ``rules.deal_packets``; card ``5N`` of the deck is turned up.  A traced deck (under
        jit/vmap) is not validated.
        """
        d = _concrete(deck)
        if d is not None:
            if d.shape != (NUM_CARDS,):
                raise ValueError(f"deck must have shape (52,), got {d.shape}")
            _check_cards("deck", d)
        self._check_dealer_carried(dealer, carried)
        deck = jnp.asarray(deck, jnp.int32)
        return _deal_from_deck(deck, _i32(dealer), _i32(carried), self.num_players, self.rules)

    def init_from_deal(self, hands: Any, turnup: Any, dealer: Any = 0, carried: Any = 0) -> State:
        """Start from chosen hands: ``hands`` int[N, 5] card ids by seat, ``turnup`` a card id.

        Validation (concrete inputs): shape, ids in 0..51, no duplicate card anywhere, the
        turn-up not in a hand, dealer in 0..N-1, carried >= 0.
        """
        n = self.num_players
        h, t = _concrete(hands), _concrete(turnup)
        if h is not None:
            if h.shape != (n, 5):
                raise ValueError(f"hands must have shape ({n}, 5) for {n} players, got {h.shape}")
            _check_cards("hands", h)
        if t is not None:
            if t.shape != () or not np.issubdtype(t.dtype, np.integer):
                raise ValueError(f"turnup must be one integer card id, got {turnup!r}")
            _check_cards("turnup", t.reshape(1))
            if h is not None and int(t) in set(h.reshape(-1).tolist()):
                raise ValueError(f"turnup {card_str(int(t))} is also in a hand")
        self._check_dealer_carried(dealer, carried)
        hands = jnp.asarray(hands, jnp.int32)
        return _deal_hands(hands, _i32(turnup), _i32(dealer), _i32(carried), n, self.rules)

    def _check_dealer_carried(self, dealer: Any, carried: Any) -> None:
        _check_int("dealer", dealer, 0, self.num_players - 1)
        _check_int("carried", carried, 0, None)

    # ------------------------------------------------------------------ decisions

    def step(self, state: State, action: Any, key: jax.Array | None = None) -> State:
        """Pure: the state after ``current_player`` takes ``action`` (jit/vmap-able).

        ``key`` is accepted for pgx compatibility and ignored: a hand has no chance events
        after the deal.
        """
        del key
        return _step(state, jnp.asarray(action, jnp.int32), self.rules)

    # ------------------------------------------------------------------ observations

    def observe(self, state: State, player: Any) -> jax.Array:
        """float32[D]: seat ``player``'s imperfect-information view (``observe.observe``)."""
        return _observe.observe(state, player)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of ``observe`` / ``State.observation`` for this table."""
        return _observe.observation_shape(self.num_players)

    def checked_step(self, state: State, action: Any) -> State:
        """Host-side ``step`` that raises ``ValueError`` for an illegal action (one hand)."""
        if np.asarray(state.terminated).shape != ():
            raise ValueError("checked_step takes one hand, not a batch; index the batch first")
        if bool(state.terminated):
            raise ValueError("the hand is over (state.terminated); start a new one with init")
        a = _concrete(action)
        ok = a is not None and a.shape == () and np.issubdtype(a.dtype, np.integer)
        legal = self.legal_actions(state)
        if a is None or not ok or int(a) not in legal:
            player = int(state.current_player)
            phase = game.PHASE_NAMES[int(state.phase)]
            names = ", ".join(action_str(x) for x in legal)
            raise ValueError(
                f"illegal action {action!r} ({action_str(a) if ok else 'not an action id'}) "
                f"for player {player} in the {phase} phase; legal actions: {legal} ({names})"
            )
        return _step(state, jnp.int32(int(a)), self.rules)

    def legal_actions(self, state: State) -> list[int]:
        """Host helper: the legal action ids of one hand's ``current_player``."""
        if bool(state.terminated):
            return []
        return np.flatnonzero(np.asarray(state.legal_action_mask)).tolist()

    # ------------------------------------------------------------------ analysis (issue 10)
    # What the game-generic ``tools.analysis`` / ``tools.pimc`` call; each delegates to
    # ``games.spoil_five.infer`` (or ``history``).

    def resample_hidden(self, key: jax.Array, state: State, player: Any) -> State:
        """One hand: a state drawn uniformly from the deals consistent with what ``player``
        knows (its hand, its rob discard, the public record); jittable."""
        return _infer.resample_hidden(key, state, player, self.rules)

    def analysis_playout(
        self, keys: jax.Array, states: State, player: jax.Array, policy: Any
    ) -> dict[str, jax.Array]:
        """Batch [B]: play out with ``policy`` everywhere; float32[B] per ``analysis_fields``."""
        return _infer.playout(keys, states, player, policy, self.num_players, self.rules)

    def analysis_fields(self) -> tuple[str, ...]:
        """Per-rollout values of ``analysis_playout``; the first is what ``best`` maximises."""
        return _infer.FIELDS

    def max_legal_actions(self) -> int:
        """The most legal actions any decision has (a rob: five cards and PASS)."""
        return _infer.MAX_LEGAL

    def action_text(self, action: Any) -> str:
        """Text of an action id (``action_str``)."""
        return action_str(action)

    def position_from_history(self, text: str | None = None, **fields: Any) -> State:
        """A state from a position given as text or fields (``history.position_from_history``);
        ``ValueError`` naming the problem for an impossible or inconsistent history."""
        return _history.position_from_history(self, text, **fields)


def action_str(action: Any) -> str:
    """Text of an action id: a card (``"5H"``), ``"PASS"``, ``"JINK"`` or ``"CLAIM"``."""
    a = int(action)
    if 0 <= a < NUM_CARDS:
        return card_str(a)
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


@functools.partial(jax.jit, static_argnums=2)
def _step(state: State, action: jax.Array, rules: Rules) -> State:
    return game.step(state, action, rules)
