"""Slow, obviously-correct pure-Python reference engine for one hand of Spoil Five.

An independent reading of ``docs/rules.md`` (Spoil Five), written for clarity rather than speed, so
that equivalence tests can compare the JAX engine against it. Standard library only.

Conventions (shared with the JAX engine):

- card id = ``suit * 13 + rank``; suits C=0 D=1 H=2 S=3; ranks A=0, 2=1, ..., 10=9, J=10,
  Q=11, K=12 (so ``AH`` = 26, ``5H`` = 30).
- actions: 0..51 play (or, in the rob decision, discard) that card; ``PASS`` = 52 declines the
  rob; ``JINK`` = 53; ``CLAIM`` = 54; ``NUM_ACTIONS`` = 55.
- seats 0..N-1 clockwise; play passes to seat + 1; the eldest hand is dealer + 1.
"""

from __future__ import annotations

import copy
import dataclasses
import operator
import random
from dataclasses import dataclass

# ---------------------------------------------------------------------------------------------
# Cards and notation (docs/rules.md#cards-and-notation)
# ---------------------------------------------------------------------------------------------

SUITS = "CDHS"
RANKS = "A23456789TJQK"
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
NUM_CARDS = 52
ACE_OF_HEARTS = HEARTS * 13 + 0  # 26: a trump in every deal, never a heart

PASS = 52
JINK = 53
CLAIM = 54
NUM_ACTIONS = 55

MIN_PLAYERS = 2
MAX_PLAYERS = 10
CARDS_PER_HAND = 5
NUM_TRICKS = 5
TRICKS_TO_WIN = 3


def card_id(suit: int, rank: int) -> int:
    return suit * 13 + rank


def suit_of(card: int) -> int:
    """The printed suit of a card (the A-hearts reports HEARTS here; see ``is_trump``)."""
    return card // 13


def rank_of(card: int) -> int:
    return card % 13


def parse(text: str) -> int:
    """Parse one card such as ``"5H"``, ``"td"`` or ``"10C"`` into its id.

    Rank characters ``A23456789TJQK`` (or ``10``), suit characters ``CDHS``, case-insensitive.
    Anything else raises ``ValueError``.
    """
    if not isinstance(text, str):
        raise ValueError(f"not a card: {text!r}")
    upper = text.upper()
    rank_text, suit_text = upper[:-1], upper[-1:]
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANKS or len(suit_text) != 1:
        raise ValueError(f"not a card: {text!r}")
    if suit_text not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return card_id(SUITS.index(suit_text), RANKS.index(rank_text))


def parse_cards(text: str) -> list[int]:
    """Parse whitespace-separated cards: ``parse_cards("5H JD AH")`` -> ``[30, 23, 26]``."""
    return [parse(token) for token in text.split()]


def card_str(card: int) -> str:
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"not a card id: {card!r}")
    return RANKS[rank_of(card)] + SUITS[suit_of(card)]


def cards_str(cards) -> str:
    return " ".join(card_str(c) for c in cards)


# ---------------------------------------------------------------------------------------------
# Ranking (docs/rules.md#ranking), written out exactly as the tables, highest first
# ---------------------------------------------------------------------------------------------

# "AH" means the ace of hearts itself; every other token is a rank of the trump suit.
TRUMP_ORDER_TEXT = {
    "red": "5 J AH A K Q 10 9 8 7 6 4 3 2",  # diamonds trump
    "hearts": "5 J AH K Q 10 9 8 7 6 4 3 2",  # hearts trump: the A-hearts appears once
    "black": "5 J AH A K Q 2 3 4 6 7 8 9 10",  # clubs or spades trump
}
PLAIN_ORDER_TEXT = {
    "red": "K Q J 10 9 8 7 6 5 4 3 2 A",  # A lowest (plain hearts have no A)
    "black": "K Q J A 2 3 4 5 6 7 8 9 10",
}


def _is_red(suit: int) -> bool:
    return suit in (DIAMONDS, HEARTS)


def trump_order(trump: int) -> list[int]:
    """The trumps for trump suit ``trump``, highest first (14 cards, 13 when hearts)."""
    if trump == HEARTS:
        text = TRUMP_ORDER_TEXT["hearts"]
    elif trump == DIAMONDS:
        text = TRUMP_ORDER_TEXT["red"]
    else:
        text = TRUMP_ORDER_TEXT["black"]
    order = []
    for token in text.split():
        if token == "AH":
            order.append(ACE_OF_HEARTS)
        else:
            order.append(parse(token + SUITS[trump]))
    return order


def plain_order(suit: int) -> list[int]:
    """The cards of ``suit`` as a plain (non-trump) suit, highest first (no A-hearts)."""
    text = PLAIN_ORDER_TEXT["red"] if _is_red(suit) else PLAIN_ORDER_TEXT["black"]
    order = [parse(token + SUITS[suit]) for token in text.split()]
    return [c for c in order if c != ACE_OF_HEARTS]


def top_trumps(trump: int) -> list[int]:
    """5 of trumps, J of trumps, A-hearts: the cards with the reneging privilege."""
    return [card_id(trump, 4), card_id(trump, 10), ACE_OF_HEARTS]


def ace_of_trumps(trump: int) -> int:
    return card_id(trump, 0)


def is_trump(card: int, trump: int) -> bool:
    return suit_of(card) == trump or card == ACE_OF_HEARTS


def trump_strength(card: int, trump: int) -> int:
    """Higher is stronger; 1..14 for trumps (1..13 when hearts), 0 for a non-trump."""
    order = trump_order(trump)
    if card not in order:
        return 0
    return len(order) - order.index(card)


def plain_strength(card: int) -> int:
    """Strength of a non-trump card within its own suit, higher is stronger (1..13)."""
    order = plain_order(suit_of(card))
    if card not in order:
        raise ValueError(f"{card_str(card)} is never a plain card")
    return len(order) - order.index(card)


def trick_winner(cards, trump: int) -> int:
    """Index (into ``cards``, led card first) of the card that wins the trick."""
    cards = list(cards)
    trump_indices = [i for i, c in enumerate(cards) if is_trump(c, trump)]
    if trump_indices:
        return max(trump_indices, key=lambda i: trump_strength(cards[i], trump))
    led_suit = suit_of(cards[0])  # the led card is plain here (no trump was played)
    following = [i for i, c in enumerate(cards) if suit_of(c) == led_suit]
    return max(following, key=lambda i: plain_strength(cards[i]))


# ---------------------------------------------------------------------------------------------
# Rule options
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RefRules:
    follow: str = "seed"  # "seed" | "traditional"
    renege: str = "deal"  # "deal" | "trick" | "led"
    rob: str = "optional"  # "optional" | "forced" | "off"
    jink: bool = True
    deal_packets: tuple = (2, 3)  # (2, 3) | (3, 2)
    ante: int = 1
    jink_bonus: int | None = None  # None means: equal to the ante
    ante_after_spoil: str = "all"  # "all" | "dealer"

    @classmethod
    def traditional(cls, **overrides) -> RefRules:
        base = cls(follow="traditional", renege="led", rob="forced", ante_after_spoil="dealer")
        return dataclasses.replace(base, **overrides)


def check_rules(rules) -> None:
    """Raise ValueError on an option value this engine does not know."""
    if rules.follow not in ("seed", "traditional"):
        raise ValueError(f"unknown follow option {rules.follow!r}")
    if rules.renege not in ("deal", "trick", "led"):
        raise ValueError(f"unknown renege option {rules.renege!r}")
    if rules.rob not in ("optional", "forced", "off"):
        raise ValueError(f"unknown rob option {rules.rob!r}")
    if tuple(rules.deal_packets) not in ((2, 3), (3, 2)):
        raise ValueError(f"unknown deal_packets option {rules.deal_packets!r}")
    if rules.ante_after_spoil not in ("all", "dealer"):
        raise ValueError(f"unknown ante_after_spoil option {rules.ante_after_spoil!r}")


def jink_bonus_of(rules) -> int:
    return rules.ante if rules.jink_bonus is None else rules.jink_bonus


# ---------------------------------------------------------------------------------------------
# Legal plays (docs/rules.md#following-suit, #reneging)
# ---------------------------------------------------------------------------------------------


def legal_plays(hand, trick, trump: int, rules, previous=()) -> list[int]:
    """The cards of ``hand`` that may be played to the current trick.

    ``trick``: cards already played to this trick, led card first (empty: the player leads).
    ``previous``: cards played to the earlier tricks of this deal (used by ``renege="deal"``).
    """
    hand = sorted(hand)
    trick = list(trick)
    if not trick:
        return hand  # the leader may play any card
    led = trick[0]
    held_trumps = [c for c in hand if is_trump(c, trump)]

    if not is_trump(led, trump):
        # Plain suit led. The A-hearts never counts as a card of the hearts suit.
        led_suit = suit_of(led)
        following = [c for c in hand if suit_of(c) == led_suit and not is_trump(c, trump)]
        if rules.follow == "seed":
            # holding the suit led or any trump: must play one of those
            required = following + held_trumps
        elif following:
            # traditional: holding the suit led, may follow or trump
            required = following + held_trumps
        else:
            # traditional: void in the suit led, anything goes
            required = []
        return sorted(required) if required else hand

    # Trump led (the A-hearts included). Strength m that a top trump must exceed to be withheld.
    if rules.renege == "deal":
        reference_cards = list(previous) + trick
    elif rules.renege == "trick":
        reference_cards = trick
    else:  # "led"
        reference_cards = [led]
    m = max(trump_strength(c, trump) for c in reference_cards if is_trump(c, trump))
    tops = top_trumps(trump)

    def may_renege(card: int) -> bool:
        return card in tops and trump_strength(card, trump) > m

    if any(not may_renege(c) for c in held_trumps):
        return held_trumps  # must play a trump; any trump, top trumps included
    return hand  # no trumps, or only withholdable top trumps: anything goes


# ---------------------------------------------------------------------------------------------
# One hand (docs/rules.md: the deal, robbing, winning a hand)
# ---------------------------------------------------------------------------------------------


class RefHand:
    """One hand of Spoil Five, from the antes to the payoff.

    Phases: ``"rob"`` (the robber discards a card or passes), ``"play"``, ``"jink"`` (the winner
    of the first three tricks chooses JINK or CLAIM), ``"done"``.
    """

    def __init__(self, num_players, rules, hands, turnup, dealer=0, carried=0):
        check_rules(rules)
        hands = [[operator.index(c) for c in hand] for hand in hands]
        turnup = operator.index(turnup)
        if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            raise ValueError(f"num_players must be 2..10, got {num_players}")
        if len(hands) != num_players:
            raise ValueError("need one hand per seat")
        if any(len(h) != CARDS_PER_HAND for h in hands):
            raise ValueError("every hand must have 5 cards")
        all_cards = [c for h in hands for c in h] + [turnup]
        if any(not 0 <= c < NUM_CARDS for c in all_cards):
            raise ValueError("card ids must be in 0..51")
        if len(set(all_cards)) != len(all_cards):
            raise ValueError("a card was dealt twice")
        if not 0 <= dealer < num_players:
            raise ValueError("dealer must be a seat")
        if carried < 0:
            raise ValueError("carried must be >= 0")

        self.num_players = num_players
        self.rules = rules
        self.dealer = dealer
        self.eldest = (dealer + 1) % num_players
        self.carried = carried
        self.turnup = turnup
        self.trump = suit_of(turnup)
        self.initial_hands = [sorted(h) for h in hands]
        self.hands = [sorted(h) for h in hands]

        # Antes.
        if rules.ante_after_spoil == "dealer" and carried > 0:
            payers = [dealer]
        else:
            payers = list(range(num_players))
        self.paid = [0] * num_players  # chips paid in this hand (ante, jink bonus)
        self.received = [0] * num_players  # chips received in this hand
        for seat in payers:
            self.paid[seat] += rules.ante
        self.pot = carried + sum(self.paid)

        # Play state.
        self.played = []  # every card played to a trick, in order
        self.trick = []  # (seat, card) pairs of the trick in progress
        self.completed_tricks = []  # (list of (seat, card), winning seat) per finished trick
        self.tricks_won = [0] * num_players
        self.leader = self.eldest

        # Outcome.
        self.terminated = False
        self.rewards = [0.0] * num_players
        self.carried_out = 0
        self.winner = -1
        self.jinked = False
        self.jinker = -1
        self.robbed = False
        self.discard = None  # the robber's hidden discard, if any
        self.decisions = 0

        # Robbing (section 4).
        ace = ace_of_trumps(self.trump)
        self.robber = -1
        if rules.rob != "off":
            if turnup == ace:
                self.robber = dealer
            else:
                for seat in range(num_players):
                    if ace in self.hands[seat]:
                        self.robber = seat
        if self.robber >= 0:
            self.phase = "rob"
            self.current_player = self.robber
        else:
            self.phase = "play"
            self.current_player = self.eldest

    @classmethod
    def from_deck(cls, num_players, rules, deck, dealer=0, carried=0) -> RefHand:
        """Deal from ``deck`` (deck[0] first): packets to each seat from the eldest clockwise."""
        deck = list(deck)
        if len(deck) < CARDS_PER_HAND * num_players + 1:
            raise ValueError("deck too short")
        hands = [[] for _ in range(num_players)]
        position = 0
        for packet in rules.deal_packets:
            for k in range(num_players):
                seat = (dealer + 1 + k) % num_players
                hands[seat].extend(deck[position : position + packet])
                position += packet
        turnup = deck[position]
        return cls(num_players, rules, hands, turnup, dealer=dealer, carried=carried)

    @classmethod
    def random(cls, num_players, rules, rng: random.Random, dealer=0, carried=0) -> RefHand:
        deck = list(range(NUM_CARDS))
        rng.shuffle(deck)
        return cls.from_deck(num_players, rules, deck, dealer=dealer, carried=carried)

    def clone(self) -> RefHand:
        return copy.deepcopy(self)

    # -- queries ---------------------------------------------------------------------------

    @property
    def trick_cards(self) -> list[int]:
        return [card for _, card in self.trick]

    @property
    def trick_number(self) -> int:
        """1-based number of the trick in progress (or of the next trick)."""
        return len(self.completed_tricks) + 1

    def legal_actions(self) -> list[int]:
        if self.terminated:
            return []
        if self.phase == "rob":
            actions = list(self.hands[self.robber])
            if self.rules.rob == "optional":
                actions.append(PASS)
            return sorted(actions)
        if self.phase == "jink":
            return [JINK, CLAIM]
        previous = self.played[: len(self.played) - len(self.trick)]
        return legal_plays(
            self.hands[self.current_player], self.trick_cards, self.trump, self.rules, previous
        )

    def legal_mask(self) -> list[bool]:
        legal = set(self.legal_actions())
        return [a in legal for a in range(NUM_ACTIONS)]

    # -- transitions -----------------------------------------------------------------------

    def step(self, action) -> None:
        if self.terminated:
            raise ValueError("the hand is over")
        try:
            action = operator.index(action)
        except TypeError:
            raise ValueError(f"not an action: {action!r}") from None
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action} in phase {self.phase!r}")
        self.decisions += 1
        if self.phase == "rob":
            self._rob(action)
        elif self.phase == "jink":
            self._jink_decision(action)
        else:
            self._play(action)

    def _rob(self, action: int) -> None:
        if action != PASS:
            hand = self.hands[self.robber]
            hand.remove(action)
            hand.append(self.turnup)
            hand.sort()
            self.discard = action
            self.robbed = True
        self.phase = "play"
        self.current_player = self.eldest
        self.leader = self.eldest

    def _jink_decision(self, action: int) -> None:
        player = self.current_player
        if action == CLAIM:
            self._finish_won(player, bonus=0)
        else:
            self.jinked = True
            self.jinker = player
            self.phase = "play"
            self.leader = player
            self.current_player = player  # the jinker leads trick 4

    def _play(self, card: int) -> None:
        seat = self.current_player
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        self.played.append(card)
        if len(self.trick) < self.num_players:
            self.current_player = (seat + 1) % self.num_players
            return

        # The trick is complete.
        winner = self.trick[trick_winner(self.trick_cards, self.trump)][0]
        self.completed_tricks.append((list(self.trick), winner))
        self.trick = []
        self.tricks_won[winner] += 1
        tricks_done = len(self.completed_tricks)

        if self.jinked:
            if winner != self.jinker:
                self._finish_carried()  # failed jink: the pot is carried on
            elif tricks_done == NUM_TRICKS:
                self._finish_won(winner, bonus=jink_bonus_of(self.rules))
            else:
                self._lead_next(winner)
            return

        if self.tricks_won[winner] == TRICKS_TO_WIN:
            if tricks_done == TRICKS_TO_WIN and self.rules.jink:
                self.phase = "jink"
                self.current_player = winner
            else:
                self._finish_won(winner, bonus=0)
            return

        if tricks_done == NUM_TRICKS:
            self._finish_carried()  # spoil: nobody took 3 tricks
            return
        self._lead_next(winner)

    def _lead_next(self, seat: int) -> None:
        self.leader = seat
        self.current_player = seat

    # -- endings ---------------------------------------------------------------------------

    def _finish_won(self, winner: int, bonus: int) -> None:
        self.winner = winner
        self.received[winner] += self.pot
        for seat in range(self.num_players):
            if seat != winner and bonus:
                self.paid[seat] += bonus
                self.received[winner] += bonus
        self.carried_out = 0
        self._finish()

    def _finish_carried(self) -> None:
        self.winner = -1
        self.carried_out = self.pot
        self._finish()

    def _finish(self) -> None:
        self.terminated = True
        self.phase = "done"
        self.current_player = -1
        self.rewards = [float(r - p) for r, p in zip(self.received, self.paid, strict=True)]

    # -- debugging -------------------------------------------------------------------------

    def __repr__(self) -> str:
        hands = "; ".join(f"{s}: {cards_str(h)}" for s, h in enumerate(self.hands))
        return (
            f"RefHand(N={self.num_players}, trump={SUITS[self.trump]}, turnup="
            f"{card_str(self.turnup)}, phase={self.phase}, to_act={self.current_player}, "
            f"trick=[{cards_str(self.trick_cards)}], tricks={self.tricks_won}, hands=[{hands}])"
        )
