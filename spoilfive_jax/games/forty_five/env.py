"""``FortyFive``: the public environment for the Forty-Five family, with host-side validation.

``init``/``step``/``next_hand``/``step_game``/``observe`` are pure and jit/vmap-able;
``init_from_deck``/``init_from_deal`` validate concrete (host) inputs and raise ``ValueError``
naming the problem; ``checked_step`` refuses an illegal action instead of ending the hand.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.game as game
import spoilfive_jax.games.forty_five.history as _history
import spoilfive_jax.games.forty_five.infer as _infer
import spoilfive_jax.games.forty_five.observe as _observe
from spoilfive_jax.core import bits
from spoilfive_jax.core.cards import card_id as _card_id
from spoilfive_jax.core.cards import card_str as _card_str
from spoilfive_jax.games.forty_five.game import JOKER, NUM_ACTIONS, State
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams
from spoilfive_jax.games.spoil_five.env import (
    _check_int,
    _concrete,
    check_num_players,
)


def card_text(card: int) -> str:
    """Text of a card id of the family: ``"5H"``, or ``"JK"`` for the joker (52)."""
    return "JK" if int(card) == JOKER else _card_str(card)


def card_id(text: str) -> int:
    """Card id of ``"5H"``, ``"10h"`` ... or ``"JK"``/``"JOKER"`` (52)."""
    if isinstance(text, str) and text.strip().upper() in ("JK", "JOKER"):
        return JOKER
    return _card_id(text)


def parse_cards(text: str | list[str] | tuple[str, ...]) -> list[int]:
    """Card ids from ``"5H JK AH"`` (spaces or commas) or a list of card texts."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [card_id(p) for p in parts]


_SPECIAL_NAMES = {
    game.PASS: "PASS",
    game.BID_15: "BID15",
    game.BID_20: "BID20",
    game.BID_25: "BID25",
    game.BID_30: "BID30",
    game.HOLD: "HOLD",
    game.NAME_CLUBS: "TRUMP_C",
    game.NAME_DIAMONDS: "TRUMP_D",
    game.NAME_HEARTS: "TRUMP_H",
    game.NAME_SPADES: "TRUMP_S",
    game.JINK: "JINK",
}
_SPECIAL_IDS = {v: k for k, v in _SPECIAL_NAMES.items()} | {"DONE": game.DONE}


def action_str(action: Any) -> str:
    """Text of an action id: a card (``"5H"``, ``"JK"``), ``"PASS"`` (also DONE and "no jink"),
    ``"BID15"``..``"BID30"``, ``"HOLD"``, ``"TRUMP_C"``..``"TRUMP_S"`` or ``"JINK"``."""
    a = int(action)
    if 0 <= a <= JOKER:
        return card_text(a)
    return _SPECIAL_NAMES.get(a, f"<invalid action {a}>")


def action_id(text: str | int) -> int:
    """Inverse of ``action_str`` (case-insensitive; ``"DONE"`` is ``PASS``)."""
    if isinstance(text, (int, np.integer)):
        return int(text)
    key = text.strip().upper()
    return _SPECIAL_IDS[key] if key in _SPECIAL_IDS else card_id(key)


class FortyFive:
    """One hand (within a game) of Forty-Five, Twenty-Five or Auction Forty-Fives.

    Actions (``NUM_ACTIONS`` = 64): 0..51 a card and 52 the joker (play it; in the joker, rob and
    discard decisions, lay it away); 53 ``PASS`` (decline the rob, pass in the auction, DONE
    discarding, decline a jink announcement); 54..57 ``BID_15``..``BID_30``; 58 ``HOLD``;
    59..62 ``NAME_CLUBS``..``NAME_SPADES``; 63 ``JINK`` (announce all five tricks).

    Teams: seat s plays for team ``s % num_teams`` (2 teams for 2, 4 and 6 players, else one a
    player).  Rewards: ``rewards`` (the hand's points for each seat's team, on the step that ends
    the hand) and ``game_rewards`` (+1/-1 on the step that ends the game); see ``game``.

    Under ``jax.jit`` nothing can raise, so ``step`` with an illegal action ends the hand at once:
    the offender's team loses ``rules.illegal_penalty`` points and ``state.illegal`` is set.
    Stepping a terminated state returns it unchanged with zero rewards.
    """

    num_actions: int = NUM_ACTIONS

    def __init__(self, num_players: int = 4, rules: FortyFiveRules | None = None) -> None:
        num_players = check_num_players(num_players)
        rules = FortyFiveRules() if rules is None else rules
        if not isinstance(rules, FortyFiveRules):
            raise ValueError(
                f"rules must be a spoilfive_jax.FortyFiveRules, got {type(rules).__name__}"
            )
        self.num_players = int(num_players)
        self.rules = rules

    def __repr__(self) -> str:
        return f"FortyFive(num_players={self.num_players}, rules={self.rules!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FortyFive) and (self.num_players, self.rules) == (
            other.num_players,
            other.rules,
        )

    def __hash__(self) -> int:
        return hash((FortyFive, self.num_players, self.rules))

    @property
    def id(self) -> str:
        return {"forty_five": "forty_five", "twenty_five": "twenty_five"}.get(
            self.rules.variant, "auction_forty_fives"
        )

    @property
    def num_teams(self) -> int:
        return num_teams(self.num_players)

    def team_of(self, seat: int) -> int:
        return int(seat) % self.num_teams

    @property
    def max_decisions(self) -> int:
        """The most decisions one hand can take (a static bound for scans)."""
        return game.max_decisions(self.num_players, self.rules)

    @property
    def observation_size(self) -> int:
        return _observe.observation_size(self.num_players)

    # ------------------------------------------------------------------ starting a hand

    def _scores(self, scores: Any) -> jax.Array:
        t = self.num_teams
        if scores is None:
            return jnp.zeros(t, jnp.int32)
        s = _concrete(scores)
        if s is not None:
            if s.shape != (t,):
                raise ValueError(f"scores must have shape ({t},) (one per team), got {s.shape}")
            if not np.issubdtype(s.dtype, np.integer):
                raise ValueError(f"scores must be integers, got dtype {s.dtype}")
        return jnp.asarray(scores, jnp.int32)

    def init(self, key: jax.Array, dealer: Any = 0, scores: Any = None) -> State:
        """A uniformly random deal.  ``scores`` int[T]: the game scores so far (None: zeros, a
        new game).  Host values are validated; traced ones are used as given."""
        _check_int("dealer", dealer, 0, self.num_players - 1)
        return game.deal_random(key, dealer, self._scores(scores), self.num_players, self.rules)

    def init_from_deck(self, deck: Any, dealer: Any = 0, scores: Any = None) -> State:
        """Deal from ``deck``, a permutation of the 52 cards (53 with the joker), deck[0] first.

        Five cards a seat from the eldest hand (dealer + 1) clockwise, in packets of
        ``rules.deal_packets``; card 5N is turned up (card 5N + 1 too if 5N is the joker); in
        Auction the rest of the deck is the stock, drawn in order.  A traced deck is not
        validated.
        """
        size = self.rules.deck_size
        d = _concrete(deck)
        if d is not None:
            if d.shape != (size,):
                raise ValueError(f"deck must have shape ({size},), got {d.shape}")
            self._check_cards("deck", d)
        _check_int("dealer", dealer, 0, self.num_players - 1)
        return game.deal_from_deck(
            jnp.asarray(deck, jnp.int32), dealer, self._scores(scores), self.num_players, self.rules
        )

    def init_from_deal(
        self,
        hands: Any,
        turnup: Any = None,
        dealer: Any = 0,
        scores: Any = None,
        stock: Any = None,
    ) -> State:
        """Start from chosen hands: ``hands`` int[N, 5] card ids by seat.

        turnup: the card turned up (turn-up games; must be None in Auction).  stock: the undealt
        cards in the order they come off the pack: in Auction the cards drawn after discarding
        (the given cards first, then the rest in id order); when the joker is turned up,
        ``stock[0]`` is turned up for trump instead.  Host inputs only.
        """
        n, rules = self.num_players, self.rules
        h = np.asarray(hands)
        if h.shape != (n, 5):
            raise ValueError(f"hands must have shape ({n}, 5) for {n} players, got {h.shape}")
        self._check_cards("hands", h)
        dealt = set(h.reshape(-1).tolist())
        st = np.zeros(0, np.int64) if stock is None else np.asarray(stock).reshape(-1)
        if st.size:
            self._check_cards("stock", st)
            if dealt & set(st.tolist()):
                raise ValueError("stock holds cards that are also in a hand")
        _check_int("dealer", dealer, 0, n - 1)
        card_sets = bits.from_positions(jnp.asarray(h, jnp.int32))
        size = game.stock_size(n, rules)
        next_card = -1
        if rules.auction:
            if turnup is not None:
                raise ValueError("Auction Forty-Fives has no turn-up: pass turnup=None")
            rest = [c for c in range(rules.deck_size) if c not in dealt and c not in set(st)]
            order = np.array(st.tolist() + rest, np.int32)
            assert order.shape == (size,)
            up = -1
        else:
            if turnup is None:
                raise ValueError("turnup is required (the card whose suit is trump)")
            t = np.asarray(turnup)
            if t.shape != () or not np.issubdtype(t.dtype, np.integer):
                raise ValueError(f"turnup must be one integer card id, got {turnup!r}")
            self._check_cards("turnup", t.reshape(1))
            up = int(t)
            if up in dealt:
                raise ValueError(f"turnup {card_text(up)} is also in a hand")
            if up == JOKER:
                if st.size == 0:
                    raise ValueError("the joker is turned up: stock[0] must give the next card")
                next_card = int(st[0])
                if next_card == up:
                    raise ValueError("stock[0] is the turned-up joker")
            order = np.zeros(size, np.int32)
        return game.new_hand(
            card_sets,
            jnp.int32(up),
            jnp.int32(next_card),
            jnp.asarray(order, jnp.int32),
            dealer,
            self._scores(scores),
            n,
            rules,
        )

    def _check_cards(self, name: str, ids: np.ndarray) -> None:
        size = self.rules.deck_size
        if not np.issubdtype(ids.dtype, np.integer):
            raise ValueError(f"{name} must hold integer card ids, got dtype {ids.dtype}")
        bad = ids[(ids < 0) | (ids >= size)]
        if bad.size:
            raise ValueError(f"{name} holds card ids outside 0..{size - 1}: {sorted(set(bad))}")
        values, counts = np.unique(ids, return_counts=True)
        dup = values[counts > 1]
        if dup.size:
            raise ValueError(f"{name} holds duplicate cards: {', '.join(map(card_text, dup))}")

    # ------------------------------------------------------------------ decisions

    def step(self, state: State, action: Any, key: jax.Array | None = None) -> State:
        """Pure: the state after ``current_player`` takes ``action`` (jit/vmap-able).

        ``key`` is accepted for pgx compatibility and ignored: a hand has no chance events after
        the deal (``step_game`` takes a key to deal the next hand).
        """
        del key
        return game.step(state, jnp.asarray(action, jnp.int32), self.rules)

    def next_hand(self, key: jax.Array, state: State) -> State:
        """Pure: a random deal of the next hand of the game (dealer + 1, scores carried; a new
        game when ``state.game_over``)."""
        return game.next_hand(key, state, self.rules)

    def step_game(self, state: State, action: Any, key: jax.Array) -> State:
        """Pure: ``step`` for whole games (the next hand is dealt with ``key`` when a hand ends
        and the game goes on; ``terminated`` only at the end of the game)."""
        return game.step_game(state, jnp.asarray(action, jnp.int32), key, self.rules)

    def checked_step(self, state: State, action: Any) -> State:
        """Host-side ``step`` that raises ``ValueError`` for an illegal action (one hand)."""
        if np.asarray(state.terminated).shape != ():
            raise ValueError("checked_step takes one hand, not a batch; index the batch first")
        if bool(state.terminated):
            raise ValueError("the hand is over (state.terminated); deal the next with next_hand")
        a = _concrete(action)
        ok = a is not None and a.shape == () and np.issubdtype(a.dtype, np.integer)
        legal = self.legal_actions(state)
        if a is None or not ok or int(a) not in legal:
            player = int(state.current_player)
            phase = game.PHASE_NAMES[int(state.phase)]
            names = ", ".join(action_str(x) for x in legal)
            what = action_str(a) if ok and a is not None else "not an action id"
            raise ValueError(
                f"illegal action {action!r} ({what}) "
                f"for player {player} in the {phase} phase; legal actions: {legal} ({names})"
            )
        return _jit_step(self, state, jnp.int32(int(a)))

    def legal_actions(self, state: State) -> list[int]:
        """Host helper: the legal action ids of one hand's ``current_player``."""
        if bool(state.terminated):
            return []
        return np.flatnonzero(np.asarray(state.legal_action_mask)).tolist()

    # ------------------------------------------------------------------ observation

    def observe(self, state: State, player: Any) -> jax.Array:
        """Pure: float32[observation_size], what ``player`` knows of one hand, seats relative
        to ``player`` (layout: ``spoilfive_jax.games.forty_five.observe``)."""
        return _observe.observe(state, player, self.rules)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of ``observe`` / ``State.observation`` for this table (pgx)."""
        return (self.observation_size,)

    def observe_full(self, state: State) -> jax.Array:
        """Pure: float32[full_observation_size], the perfect-information view of one hand: the
        public view from seat 0 plus every hand, every seat's discards and the stock (layout:
        ``spoilfive_jax.games.forty_five.observe``).  For critics and search, never for a policy."""
        return _observe.observe_full(state, self.rules)

    @property
    def full_observation_shape(self) -> tuple[int, ...]:
        """Shape of ``observe_full`` for this table."""
        return (_observe.full_observation_size(self.num_players),)

    # ------------------------------------------------------------------ analysis (issue 10)
    # What the game-generic ``tools.analysis`` / ``tools.pimc`` call; each delegates to
    # ``games.forty_five.infer`` (or ``history``).

    def resample_hidden(self, key: jax.Array, state: State, player: Any) -> State:
        """One hand: a state drawn uniformly from the deals consistent with what ``player``
        knows (its hand, its discards, the public record); jittable."""
        return _infer.resample_hidden(key, state, player, self.rules)

    def analysis_playout(
        self, keys: jax.Array, states: State, player: jax.Array, policy: Any
    ) -> dict[str, jax.Array]:
        """Batch [B]: play the hand out with ``policy`` everywhere; float32[B] per
        ``analysis_fields``."""
        return _infer.playout(keys, states, player, policy, self.rules)

    def analysis_fields(self) -> tuple[str, ...]:
        """Per-rollout values of ``analysis_playout``; the first is what ``best`` maximises."""
        return _infer.FIELDS

    def max_legal_actions(self) -> int:
        """The most legal actions any decision has (five cards and PASS; PASS, bids, HOLD)."""
        return _infer.MAX_LEGAL

    def action_text(self, action: Any) -> str:
        """Text of an action id (``action_str``)."""
        return action_str(action)

    def position_from_history(self, text: str | None = None, **fields: Any) -> State:
        """A state from a position given as text or fields (``history.position_from_history``);
        ``ValueError`` naming the problem for an impossible or inconsistent history."""
        return _history.position_from_history(self, text, **fields)


def TwentyFive(num_players: int = 4, **overrides: Any) -> FortyFive:
    """Twenty-Five: 5 points a trick, no best-trump bonus, games to 25 (``target=`` to change)."""
    return FortyFive(num_players, FortyFiveRules.twenty_five(**overrides))


def AuctionFortyFives(num_players: int = 4, **overrides: Any) -> FortyFive:
    """Auction Forty-Fives to 120 (bidding 15-30, the bidder names trump, discard and draw)."""
    return FortyFive(num_players, FortyFiveRules.auction_forty_fives(**overrides))


@functools.partial(jax.jit, static_argnums=0)
def _jit_step(env: FortyFive, state: State, action: jax.Array) -> State:
    return env.step(state, action)
