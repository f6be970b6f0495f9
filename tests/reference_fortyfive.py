"""Slow, obviously-correct pure-Python reference engine for the Forty-Five family
(docs/rules.md#the-forty-five-family).

An independent reading of the rules, written for clarity rather than speed, so that equivalence
tests can compare the JAX engine (``games.forty_five``) against it.  The card notation and
the Spoil Five ranking tables come from the Spoil Five reference (``reference.py``); the joker,
teams, scoring, bidding and games to a target are written out here.  Standard library only.

Conventions (shared with the JAX engine):

- card id = ``suit * 13 + rank`` (``AH`` = 26, ``5H`` = 30); the joker is 52.
- actions: 0..52 play (or lay away) that card; 53 PASS (decline the rob, pass in the auction,
  done discarding, no jink); 54..57 bid 15/20/25/30; 58 HOLD; 59..62 name clubs, diamonds,
  hearts, spades as trump; 63 JINK (announce); 64 actions.
- seats 0..N-1 clockwise; the eldest hand is dealer + 1; seat s plays for team s % T, T = 2 for
  2, 4 and 6 players, else T = N.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from dataclasses import dataclass

try:
    import reference as sf_ref
except ImportError:  # pragma: no cover
    from tests import reference as sf_ref

JOKER = 52
PASS = 53
BIDS = {54: 15, 55: 20, 56: 25, 57: 30}
BID_ACTION = {v: k for k, v in BIDS.items()}
HOLD = 58
NAME_TRUMP = {59: 0, 60: 1, 61: 2, 62: 3}
JINK = 63
NUM_ACTIONS = 64
ACE_OF_HEARTS = sf_ref.ACE_OF_HEARTS


def card_str(card: int) -> str:
    return "JK" if card == JOKER else sf_ref.card_str(card)


# ---------------------------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RefRules45:
    variant: str = "forty_five"  # "forty_five" | "twenty_five" | "auction"
    target: int | None = None  # None: 45 / 25 / 120
    scoring: str = "best_trump"  # "best_trump" | "hoyle"
    tie_break: str = "first_counted"  # "first_counted" | "higher_total"
    jink: str = "off"  # "off" | "announced" | "wins_game"
    joker: bool = False
    joker_rank: str = "below_AH"  # "below_AH" | "above_AH"
    follow: str = "traditional"
    renege: str = "led"
    rob: str = "optional"
    deal_packets: tuple = (2, 3)
    min_bid_at_100: bool = True
    illegal_penalty: int = 30

    def replace(self, **kw) -> RefRules45:
        return dataclasses.replace(self, **kw)

    @property
    def goal(self) -> int:
        if self.target is not None:
            return self.target
        return {"forty_five": 45, "twenty_five": 25, "auction": 120}[self.variant]

    @property
    def deck_size(self) -> int:
        return 53 if self.joker else 52


def teams_count(n: int) -> int:
    if n in (2, 4, 6):
        return 2
    return n


# ---------------------------------------------------------------------------------------------
# Ranking: Spoil Five's tables, with the joker inserted next to the A-hearts
# ---------------------------------------------------------------------------------------------


def trump_order(trump: int, rules: RefRules45) -> list[int]:
    """The trumps, highest first."""
    order = list(sf_ref.trump_order(trump))
    if rules.joker:
        i = order.index(ACE_OF_HEARTS)
        if rules.joker_rank == "below_AH":
            order.insert(i + 1, JOKER)
        else:
            order.insert(i, JOKER)
    return order


def top_trumps(trump: int, rules: RefRules45) -> list[int]:
    tops = [trump * 13 + 4, trump * 13 + 10, ACE_OF_HEARTS]
    if rules.joker:
        tops.append(JOKER)
    return tops


def is_trump(card: int, trump: int) -> bool:
    return card in (JOKER, ACE_OF_HEARTS) or card // 13 == trump


def trump_rank(card: int, trump: int, rules: RefRules45) -> int:
    """Higher is stronger, 0 for a non-trump."""
    order = trump_order(trump, rules)
    return len(order) - order.index(card) if card in order else 0


def trick_winner(cards: list[int], trump: int, rules: RefRules45) -> int:
    """Index (led card first) of the card that wins the trick."""
    trumps = [i for i, c in enumerate(cards) if is_trump(c, trump)]
    if trumps:
        return max(trumps, key=lambda i: trump_rank(cards[i], trump, rules))
    suit = cards[0] // 13
    same = [i for i, c in enumerate(cards) if c // 13 == suit]
    return max(same, key=lambda i: sf_ref.plain_strength(cards[i]))


def legal_plays(hand, trick, trump, rules: RefRules45, previous=()) -> list[int]:
    hand = sorted(hand)
    if not trick:
        return hand
    led = trick[0]
    held_trumps = [c for c in hand if is_trump(c, trump)]
    if not is_trump(led, trump):
        suit_cards = [c for c in hand if c // 13 == led // 13 and not is_trump(c, trump)]
        if rules.follow == "seed":
            must = suit_cards + held_trumps
        else:
            must = (suit_cards + held_trumps) if suit_cards else []
        return sorted(must) if must else hand
    if rules.renege == "deal":
        seen = list(previous) + list(trick)
    elif rules.renege == "trick":
        seen = list(trick)
    else:
        seen = [led]
    strongest = max(trump_rank(c, trump, rules) for c in seen if is_trump(c, trump))
    tops = top_trumps(trump, rules)
    withholdable = [c for c in held_trumps if c in tops and trump_rank(c, trump, rules) > strongest]
    if len(withholdable) < len(held_trumps):
        return held_trumps
    return hand


# ---------------------------------------------------------------------------------------------
# One hand, inside a game
# ---------------------------------------------------------------------------------------------


class RefHand45:
    """One hand of a Forty-Five game, from the deal to the scores.

    Phases: "joker", "rob", "bid", "trump", "discard", "announce", "play", "done".
    """

    def __init__(self, num_players, rules, hands, turnup=None, dealer=0, scores=None, stock=()):
        self.n = num_players
        self.rules = rules
        self.t = teams_count(num_players)
        self.dealer = dealer
        self.eldest = (dealer + 1) % num_players
        self.hands = [sorted(h) for h in hands]
        self.scores = list(scores) if scores is not None else [0] * self.t
        self.stock = list(stock)  # undealt cards, top first
        self.auction = rules.variant == "auction"
        self.discards = [[] for _ in range(num_players)]
        self.played = []
        self.trick = []  # (seat, card)
        self.tricks_won = [0] * num_players
        self.leader = self.eldest
        self.best_trump = None  # (rank, seat) of the highest trump played
        self.robber = -1
        self.robbed = False
        self.joker_up = False
        self.jinker = -1
        self.bid = 0
        self.bidder = -1
        self.passed = [False] * num_players
        self.pending = 0
        self.terminated = False
        self.rewards = [0.0] * num_players
        self.game_rewards = [0.0] * num_players
        self.hand_points = [0] * self.t
        self.game_over = False
        self.game_winner = -1
        self.decisions = 0

        if self.auction:
            self.turnup = -1
            self.trump = -1
            self.phase = "bid"
            self.current_player = self.eldest
            return
        self.turnup = turnup
        if turnup == JOKER:
            self.joker_up = True
            self.turnup = self.stock.pop(0)
            self.trump = self.turnup // 13
            self.phase = "joker"
            self.current_player = dealer
            return
        self.trump = turnup // 13
        self._start_rob_or_play()

    @classmethod
    def from_deck(cls, num_players, rules, deck, dealer=0, scores=None) -> RefHand45:
        deck = list(deck)
        hands = [[] for _ in range(num_players)]
        pos = 0
        for packet in rules.deal_packets:
            for k in range(num_players):
                seat = (dealer + 1 + k) % num_players
                hands[seat] += deck[pos : pos + packet]
                pos += packet
        if rules.variant == "auction":
            return cls(num_players, rules, hands, None, dealer, scores, stock=deck[pos:])
        return cls(num_players, rules, hands, deck[pos], dealer, scores, stock=deck[pos + 1 :])

    @classmethod
    def random(cls, num_players, rules, rng: random.Random, dealer=0, scores=None) -> RefHand45:
        deck = list(range(rules.deck_size))
        rng.shuffle(deck)
        return cls.from_deck(num_players, rules, deck, dealer, scores)

    def clone(self) -> RefHand45:
        return copy.deepcopy(self)

    def team(self, seat: int) -> int:
        return seat % self.t

    # -- the turn-up: robbing, then announcements or play ------------------------------------

    def _start_rob_or_play(self) -> None:
        ace = self.trump * 13  # the ace of trumps (A-hearts when hearts)
        self.robber = -1
        if self.rules.rob != "off":
            if self.turnup == ace:
                self.robber = self.dealer
            else:
                for seat in range(self.n):
                    if ace in self.hands[seat]:
                        self.robber = seat
        if self.robber >= 0:
            self.phase = "rob"
            self.current_player = self.robber
        else:
            self._start_announce_or_play()

    def _start_announce_or_play(self) -> None:
        self.current_player = self.eldest
        self.leader = self.eldest
        self.phase = "announce" if self.rules.jink == "announced" else "play"

    # -- queries -------------------------------------------------------------------------------

    def min_bid(self, seat: int) -> int:
        if self.rules.min_bid_at_100 and self.scores[self.team(seat)] >= 100:
            return 20
        return 15

    def legal_actions(self) -> list[int]:
        if self.terminated:
            return []
        p = self.current_player
        hand = self.hands[p]
        if self.phase == "joker":
            return sorted(hand)
        if self.phase == "rob":
            return sorted(hand) + ([PASS] if self.rules.rob == "optional" else [])
        if self.phase == "announce":
            return [PASS, JINK]
        if self.phase == "trump":
            return sorted(NAME_TRUMP)
        if self.phase == "discard":
            room = len(self.stock) - self.pending > 0
            return (sorted(hand) if room else []) + [PASS]
        if self.phase == "bid":
            lowest = self.min_bid(p)
            if p == self.dealer and self.bid == 0:
                return [BID_ACTION[lowest]]  # everybody passed: the dealer must bid
            out = [PASS]
            out += [a for a, v in BIDS.items() if v > self.bid and v >= lowest]
            if (
                p == self.dealer
                and self.bid > 0
                and self.bidder != self.dealer
                and self.bid >= lowest
            ):
                out.append(HOLD)
            return sorted(out)
        previous = self.played[: len(self.played) - len(self.trick)]
        return legal_plays(hand, [c for _, c in self.trick], self.trump, self.rules, previous)

    # -- transitions ---------------------------------------------------------------------------

    def step(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action} in phase {self.phase}")
        self.decisions += 1
        p = self.current_player
        if self.phase == "joker":
            self.hands[p].remove(action)
            self.discards[p].append(action)
            self.hands[p] = sorted([*self.hands[p], JOKER])
            self._start_rob_or_play()
        elif self.phase == "rob":
            if action != PASS:
                self.hands[p].remove(action)
                self.discards[p].append(action)
                self.hands[p] = sorted([*self.hands[p], self.turnup])
                self.robbed = True
            self._start_announce_or_play()
        elif self.phase == "announce":
            if action == JINK:
                self.jinker = p
                self._start_play(self.eldest)
            elif p == self.dealer:
                self._start_play(self.eldest)
            else:
                self.current_player = (p + 1) % self.n
        elif self.phase == "bid":
            self._bid(p, action)
        elif self.phase == "trump":
            self.trump = NAME_TRUMP[action]
            self.phase = "discard"
            self.current_player = self.eldest
            self.pending = 0
        elif self.phase == "discard":
            if action == PASS:
                for _ in range(self.pending):
                    self.hands[p].append(self.stock.pop(0))
                self.hands[p].sort()
                self.pending = 0
                if p == self.dealer:
                    self._start_play((self.bidder + 1) % self.n)
                else:
                    self.current_player = (p + 1) % self.n
            else:
                self.hands[p].remove(action)
                self.discards[p].append(action)
                self.pending += 1
        else:
            self._play(p, action)

    def _start_play(self, leader: int) -> None:
        self.phase = "play"
        self.leader = leader
        self.current_player = leader

    def _bid(self, p: int, action: int) -> None:
        if action == PASS:
            self.passed[p] = True
        elif action == HOLD:
            self.bidder = p
        else:
            self.bid = BIDS[action]
            self.bidder = p
        still_in = [s for s in range(self.n) if not self.passed[s]]
        if len(still_in) == 1 and self.bid > 0:
            self.phase = "trump"
            self.current_player = self.bidder
            return
        for k in range(1, self.n + 1):
            seat = (p + k) % self.n
            if not self.passed[seat]:
                self.current_player = seat
                return

    def _play(self, p: int, card: int) -> None:
        self.hands[p].remove(card)
        self.played.append(card)
        self.trick.append((p, card))
        if is_trump(card, self.trump):
            r = trump_rank(card, self.trump, self.rules)
            if self.best_trump is None or r > self.best_trump[0]:
                self.best_trump = (r, p)
        if len(self.trick) < self.n:
            self.current_player = (p + 1) % self.n
            return
        cards = [c for _, c in self.trick]
        winner = self.trick[trick_winner(cards, self.trump, self.rules)][0]
        self.tricks_won[winner] += 1
        self.trick = []
        self.leader = winner
        self.current_player = winner
        if self.jinker >= 0 and self.team(winner) != self.team(self.jinker):
            self._end([0] * self.t, loser=self.team(self.jinker))  # the jink failed
            return
        if sum(self.tricks_won) == 5:
            self._end(self._points())

    # -- scoring -------------------------------------------------------------------------------

    def team_tricks(self) -> list[int]:
        out = [0] * self.t
        for seat in range(self.n):
            out[self.team(seat)] += self.tricks_won[seat]
        return out

    def _points(self) -> list[int]:
        tricks = self.team_tricks()
        if self.rules.scoring == "hoyle":
            pts = [10 if k == 5 else 5 if k >= 3 else 0 for k in tricks]
        else:
            pts = [5 * k for k in tricks]
            bonus = self.rules.variant != "twenty_five"
            if bonus and self.best_trump is not None:
                pts[self.team(self.best_trump[1])] += 5
        if self.jinker >= 0:  # the announced jink succeeded
            pts[self.team(self.jinker)] *= 2
        if self.auction:
            b = self.team(self.bidder)
            if pts[b] >= self.bid:
                pts[b] = 60 if self.bid == 30 else pts[b]
            else:
                pts[b] = -self.bid
        return pts

    def counting_order(self) -> list[int]:
        """Teams in the order they are counted: from the eldest hand clockwise."""
        order = []
        for k in range(self.n):
            team = self.team((self.eldest + k) % self.n)
            if team not in order:
                order.append(team)
        return order

    def _end(self, points: list[int], loser: int = -1) -> None:
        self.hand_points = points
        self.scores = [s + p for s, p in zip(self.scores, points, strict=True)]
        order = self.counting_order()
        winner = -1
        slam = [t for t, k in enumerate(self.team_tricks()) if k == 5]
        if loser >= 0:
            winner = max((t for t in order if t != loser), key=lambda t: self.scores[t])
        elif self.rules.jink == "wins_game" and slam:
            winner = slam[0]
        else:
            reached = [t for t in order if self.scores[t] >= self.rules.goal]
            if reached:
                if self.auction and self.team(self.bidder) in reached:
                    winner = self.team(self.bidder)
                elif self.rules.tie_break == "first_counted":
                    winner = reached[0]
                else:
                    winner = max(reached, key=lambda t: self.scores[t])
        self.terminated = True
        self.phase = "done"
        self.current_player = -1
        self.rewards = [float(points[self.team(s)]) for s in range(self.n)]
        self.game_over = winner >= 0
        self.game_winner = winner
        if self.game_over:
            self.game_rewards = [1.0 if self.team(s) == winner else -1.0 for s in range(self.n)]

    def __repr__(self) -> str:
        hands = "; ".join(
            f"{s}: {' '.join(card_str(c) for c in h)}" for s, h in enumerate(self.hands)
        )
        return (
            f"RefHand45(N={self.n}, {self.rules.variant}, trump={self.trump}, "
            f"phase={self.phase}, to_act={self.current_player}, bid={self.bid}/{self.bidder}, "
            f"trick={[card_str(c) for _, c in self.trick]}, tricks={self.tricks_won}, "
            f"scores={self.scores}, hands=[{hands}])"
        )
