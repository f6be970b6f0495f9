"""``FortyFive``: the public environment for the Forty-Five family, with host-side validation.

``init``/``step``/``next_hand``/``step_game``/``observe`` are pure and jit/vmap-able;
``init_from_deck``/``init_from_deal`` validate concrete (host) inputs and raise ``ValueError``
naming the problem; ``checked_step`` refuses an illegal action instead of ending the hand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.deck_deals as deck_deals
import spoilfive_jax.games.forty_five.game as game
import spoilfive_jax.games.forty_five.history as history
import spoilfive_jax.games.forty_five.infer as infer
import spoilfive_jax.games.forty_five.knowledge as knowledge
import spoilfive_jax.games.forty_five.likelihood as likelihood
import spoilfive_jax.games.forty_five.observe as _observe
import spoilfive_jax.games.forty_five.policies as _policies
import spoilfive_jax.games.forty_five.presentation as presentation
import spoilfive_jax.games.forty_five.rollouts as rollouts
import spoilfive_jax.games.forty_five.session as session
from spoilfive_jax.core import bits
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, PolicyFn, check_state, checked_deal
from spoilfive_jax.core.validate import as_key, check_cards, check_int, concrete
from spoilfive_jax.games.forty_five.actions import action_id as action_id
from spoilfive_jax.games.forty_five.actions import action_str as action_str
from spoilfive_jax.games.forty_five.actions import card_id as card_id
from spoilfive_jax.games.forty_five.actions import card_text as card_text
from spoilfive_jax.games.forty_five.actions import parse_cards as parse_cards
from spoilfive_jax.games.forty_five.game import JOKER, NUM_ACTIONS, State
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams


class FortyFive(Env[State, FortyFiveRules]):
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

    Each variant has its class, a subclass: a table of Twenty-Five rules is a ``TwentyFive`` and
    one of Auction rules an ``AuctionFortyFives``, however it is made (``FortyFive(4,
    FortyFiveRules.twenty_five())``, ``TwentyFive(4)``, ``sf.make("twenty_five")``), so
    ``isinstance`` tells the game; ``isinstance(env, FortyFive)`` is true for the whole family.
    """

    num_actions = NUM_ACTIONS
    rules_type = FortyFiveRules
    default_num_players = 4
    phase_names = game.PHASE_NAMES
    variant: ClassVar[str | None] = None  # a variant's class: the only variant it plays

    def __new__(
        cls, num_players: int | None = 4, rules: FortyFiveRules | None = None, **overrides: Any
    ) -> FortyFive:
        # ``FortyFive(n, rules)`` makes the class of the rules' variant; ``__init__`` follows.
        if cls is FortyFive and isinstance(rules, FortyFiveRules):
            cls = _VARIANT_CLASSES.get(rules.variant, FortyFive)
        return super().__new__(cls)

    def __init__(self, num_players: int | None = 4, rules: FortyFiveRules | None = None) -> None:
        super().__init__(num_players, rules)
        if self.variant is not None and self.rules.variant != self.variant:
            raise ValueError(
                f"{type(self).__name__} plays the {self.variant!r} variant, got rules of "
                f"{self.rules.variant!r}: use sf.forty_five.FortyFive(num_players, rules)"
            )

    def table(self, num_players: int, rules: FortyFiveRules) -> FortyFive:
        """The family's table for ``num_players`` and ``rules``: the class of their variant."""
        return FortyFive(num_players, rules)

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

    # ------------------------------------------------------------------ starting a hand

    def _scores(self, scores: Any) -> jax.Array:
        t = self.num_teams
        if scores is None:
            return jnp.zeros(t, jnp.int32)
        s = concrete(scores)
        if s is not None:
            if s.shape != (t,):
                raise ValueError(f"scores must have shape ({t},) (one per team), got {s.shape}")
            if not np.issubdtype(s.dtype, np.integer):
                raise ValueError(f"scores must be integers, got dtype {s.dtype}")
        return jnp.asarray(scores, jnp.int32)

    def init(self, key: jax.Array | int, dealer: Any = 0, scores: Any = None) -> State:
        """A uniformly random deal.  ``key``: a PRNG key or an int seed.  ``scores`` int[T]: the
        game scores so far (None: zeros, a new game).  Host values are validated; traced scores
        are used as given, and a traced dealer outside 0..N-1 gives a hand that has ended at
        once with ``state.illegal`` set and nothing scored (``core.env.checked_deal``)."""
        key, s = as_key(key), self._scores(scores)
        n, rules = self.num_players, self.rules
        return checked_deal(self, dealer, lambda d: game.deal_random(key, d, s, n, rules))

    def init_from_deck(self, deck: Any, dealer: Any = 0, scores: Any = None) -> State:
        """Deal from ``deck``, a permutation of the 52 cards (53 with the joker), deck[0] first.

        Five cards a seat from the eldest hand (dealer + 1) clockwise, in packets of
        ``rules.deal_packets``; card 5N is turned up (card 5N + 1 too if 5N is the joker); in
        Auction the rest of the deck is the stock, drawn in order.  A traced deck is not
        validated; a traced dealer is treated as in ``init``.
        """
        size = self.rules.deck_size
        d = concrete(deck)
        if d is not None:
            if d.shape != (size,):
                raise ValueError(f"deck must have shape ({size},), got {d.shape}")
            self._check_cards("deck", d)
        deck, s = jnp.asarray(deck, jnp.int32), self._scores(scores)
        n, rules = self.num_players, self.rules
        return checked_deal(
            self, dealer, lambda dl: _deal_from_deck(deck, jnp.asarray(dl, jnp.int32), s, n, rules)
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
        check_int("dealer", dealer, 0, n - 1)
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
        s = self._scores(scores)
        return checked_deal(
            self,
            dealer,
            lambda d: game.new_hand(
                card_sets,
                jnp.int32(up),
                jnp.int32(next_card),
                jnp.asarray(order, jnp.int32),
                d,
                s,
                n,
                rules,
            ),
        )

    def _check_cards(self, name: str, ids: np.ndarray) -> None:
        check_cards(name, ids, self.rules.deck_size, card_text)

    # ------------------------------------------------------------------ game hooks

    def _apply(self, state: State, action: jax.Array) -> State:
        return game.apply_action(state, action, self.rules)

    def _settle(self, state: State) -> State:
        return game.with_legal(state, self.rules)

    def _end_illegal(self, state: State) -> State:
        return game.end_illegal(state, self.rules)

    def action_str(self, action: Any) -> str:
        return action_str(action)

    @property
    def policy_names(self) -> tuple[str, ...]:
        return ("random", "greedy", "heuristic")

    def builtin_policy(self, name: str) -> PolicyFn:
        return _policies.builtin_policy(name, self.rules)

    # ------------------------------------------------------------------ whole games

    def next_hand(self, key: jax.Array | int, state: State) -> State:
        """Pure: a random deal of the next hand of the game (dealer + 1, scores carried; a new
        game when ``state.game_over``).  ``key``: a PRNG key or an int seed."""
        check_state(self, state, "next_hand")
        return game.next_hand(as_key(key), state, self.rules)

    def step_game(self, state: State, action: Any, key: jax.Array | int) -> State:
        """Pure: ``step`` for whole games (the next hand is dealt with ``key``, a PRNG key or an
        int seed, when a hand ends and the game goes on; ``terminated`` only at the end of the
        game)."""
        return game.continue_game(self.step(state, action), as_key(key), self.rules)

    # ------------------------------------------------------------------ observation

    def observe(self, state: State, player: Any) -> jax.Array:
        """Pure: float32[D] (``observation_shape``): what ``player`` knows of one hand, seats
        relative to ``player`` (layout: ``spoilfive_jax.games.forty_five.observe``)."""
        return _observe.observe(state, player, self.rules)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of ``observe`` / ``State.observation`` for this table (pgx)."""
        return (_observe.observation_size(self.num_players),)

    def observe_full(self, state: State) -> jax.Array:
        """Pure: float32[full_observation_size], the perfect-information view of one hand: the
        public view from seat 0 plus every hand, every seat's discards and the stock (layout:
        ``spoilfive_jax.games.forty_five.observe``).  For critics and search, never for a policy."""
        return _observe.observe_full(state, self.rules)

    @property
    def full_observation_shape(self) -> tuple[int, ...]:
        """Shape of ``observe_full`` for this table."""
        return (_observe.full_observation_size(self.num_players),)

    # What the game can do beyond the core (``core.capabilities``), each a module of
    # functions taking the env first.
    capabilities: ClassVar[Mapping[type, object]] = {
        caps.Rollouts: rollouts,
        caps.RolloutKernel: rollouts,
        caps.HandScoring: rollouts,
        caps.Sessions: session,
        caps.Analysis: infer,
        caps.EndgameSolve: infer,
        caps.Inference: likelihood,
        caps.Positions: history,
        caps.Presentation: presentation,
        caps.TerminalPlay: presentation,
        caps.AgentInfo: presentation,
        caps.Teams: presentation,
        caps.DeckDeals: deck_deals,
        caps.Knowledge: knowledge,
    }


class TwentyFive(FortyFive):
    """Twenty-Five: 5 points a trick, no best-trump bonus, games to 25 (``target=`` to change).

    ``TwentyFive(4, target=50)`` takes rule options as keywords, or ``rules=`` (Twenty-Five
    rules: ``FortyFiveRules.twenty_five(...)``)."""

    variant = "twenty_five"

    def __init__(
        self, num_players: int | None = 4, rules: FortyFiveRules | None = None, **overrides: Any
    ) -> None:
        super().__init__(num_players, _variant_rules(FortyFiveRules.twenty_five, rules, overrides))


class AuctionFortyFives(FortyFive):
    """Auction Forty-Fives to 120 (bidding 15-30, the bidder names trump, discard and draw).

    Rule options as keywords (``AuctionFortyFives(4, joker=True)``), or ``rules=`` (Auction
    rules: ``FortyFiveRules.auction_forty_fives(...)``)."""

    variant = "auction"

    def __init__(
        self, num_players: int | None = 4, rules: FortyFiveRules | None = None, **overrides: Any
    ) -> None:
        preset = FortyFiveRules.auction_forty_fives
        super().__init__(num_players, _variant_rules(preset, rules, overrides))


_VARIANT_CLASSES: dict[str, type[FortyFive]] = {
    "twenty_five": TwentyFive,
    "auction": AuctionFortyFives,
}


# One compiled deal (a host deal operation by operation took 7-13 ms: the OpenSpiel games deal
# every hand through it).
_deal_from_deck = jax.jit(game.deal_from_deck, static_argnums=(3, 4))


def _variant_rules(
    preset: Callable[..., FortyFiveRules], rules: FortyFiveRules | None, overrides: dict[str, Any]
) -> FortyFiveRules:
    """The rules of a variant's table: ``rules`` as given, or the preset with ``overrides``."""
    if rules is None:
        return preset(**overrides)
    if overrides:
        raise ValueError("give either rules= or rule options as keywords, not both")
    return rules
