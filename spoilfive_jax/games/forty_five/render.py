"""A text picture of one hand of the Forty-Five family, as Spoil Five's ``render`` draws its own:
the host values of a hand (``FamilyView``) and a seat table with each seat's team, tricks,
hand (the viewer's cards, the others as counts) and card in the trick, marking the card led and
the card winning the trick so far.  Terminal play (``games.forty_five.play``) shows it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from spoilfive_jax.core.bits import members
from spoilfive_jax.core.cards import card_symbol
from spoilfive_jax.core.present import SUIT_NAMES, seat_name
from spoilfive_jax.games.forty_five.game import PHASE_PLAY, TRUMP_CLASS, State


@dataclasses.dataclass(frozen=True)
class FamilyView:
    """The host values of one hand that terminal play reads."""

    n: int
    current: int
    terminated: bool
    phase: int
    dealer: int
    turnup: int
    trump: int
    hands: tuple[tuple[int, ...], ...]  # each seat's cards, strongest first
    leader: int
    trick_cards: tuple[int, ...]  # each seat's card in the trick in progress, -1 if none
    led_class: int
    best_seat: int  # the seat winning the trick in progress
    trick_num: int
    tricks_won: tuple[int, ...]
    renege_level: int
    best_trump_seat: int
    bid: int
    bidder: int
    passed: tuple[bool, ...]
    scores: tuple[int, ...]
    hand_points: tuple[int, ...]
    jinker: int
    game_over: bool
    game_winner: int
    robber: int
    stock_left: int
    legal: tuple[int, ...]

    def trick_order(self) -> list[int]:
        """Seats that played to the trick in progress, in playing order from the leader."""
        seats = [(self.leader + i) % self.n for i in range(self.n)]
        return [s for s in seats if self.trick_cards[s] >= 0]


def read_view(state: State, deck_size: int, strength: Callable[[int], np.ndarray]) -> FamilyView:
    """The host values of one hand; ``strength(trump)`` gives each card's trump strength."""
    s = jax.device_get(state)
    n = int(np.shape(s.tricks_won)[-1])
    trump = int(s.trump)
    st = strength(max(trump, 0))

    def order(cards: list[int]) -> tuple[int, ...]:
        if trump < 0:
            return tuple(sorted(cards, key=lambda c: (c // 13, c % 13)))
        return tuple(sorted(cards, key=lambda c: (-int(st[c]), c // 13, c % 13)))

    hands = tuple(order(members(s.hands.lo[i], s.hands.hi[i], deck_size)) for i in range(n))
    done = bool(s.terminated)
    legal = () if done else tuple(np.flatnonzero(np.asarray(state.legal_action_mask)).tolist())
    return FamilyView(
        n=n,
        current=int(s.current_player),
        terminated=done,
        phase=int(s.phase),
        dealer=int(s.dealer),
        turnup=int(s.turnup),
        trump=trump,
        hands=hands,
        leader=int(s.leader),
        trick_cards=tuple(int(c) for c in s.trick_cards),
        led_class=int(s.led_class),
        best_seat=int(s.best_seat),
        trick_num=int(s.trick_num),
        tricks_won=tuple(int(t) for t in s.tricks_won),
        renege_level=int(s.renege_level),
        best_trump_seat=int(s.best_trump_seat),
        bid=int(s.bid),
        bidder=int(s.bidder),
        passed=tuple(bool(p) for p in s.passed),
        scores=tuple(int(x) for x in s.scores),
        hand_points=tuple(int(x) for x in s.hand_points),
        jinker=int(s.jinker),
        game_over=bool(s.game_over),
        game_winner=int(s.game_winner),
        robber=int(s.robber),
        stock_left=int(s.stock.shape[0]) - int(s.stock_top) - int(s.pending),
        legal=legal,
    )


def cards_text(cards: Any) -> str:
    return " ".join(card_symbol(c) for c in cards) if len(cards) else "-"


def seat_table(v: FamilyView, player: int | None, teams: int) -> list[str]:
    """One row per seat: ``>`` the seat to act, its label, team, tricks, hand and trick card
    (``(led)``, ``(winning)``).  ``player``: the viewer (None: every hand shown)."""

    def label(s: int) -> str:
        text = str(s)
        if player is not None and s == player:
            text += " you"
        if s == v.dealer:
            text += " dealer"
        if v.bidder == s and v.bid:
            text += f" bid {v.bid}"
        return text

    width = max(len(label(s)) for s in range(v.n))
    in_trick = v.phase == PHASE_PLAY and any(c >= 0 for c in v.trick_cards)
    lines = [f"  {'seat':<{width}}  team  tricks  {'hand':<22}  trick"]
    for s in range(v.n):
        if player is None or s == player:
            hand = cards_text(v.hands[s])
        else:
            k = len(v.hands[s])
            hand = f"[{k} card{'s' if k != 1 else ''}]"
        card = v.trick_cards[s] if in_trick else -1
        played = card_symbol(card) if card >= 0 else ""
        if card >= 0 and s == v.best_seat:
            played += " (winning)" if s != v.leader else " (led, winning)"
        elif card >= 0 and s == v.leader:
            played += " (led)"
        mark = ">" if s == v.current else " "
        lines.append(
            f"{mark} {label(s):<{width}}  {s % teams:>4}  {v.tricks_won[s]:>6}  {hand:<22}  "
            f"{played}".rstrip()
        )
    return lines


def trick_line(v: FamilyView, player: int | None) -> str:
    """The trick in progress in playing order and who is winning it ("" before the lead)."""
    seats = v.trick_order()
    if v.phase != PHASE_PLAY or not seats:
        return ""
    plays = ", ".join(f"{seat_name(s, player)} {card_symbol(v.trick_cards[s])}" for s in seats)
    led = "a trump" if v.led_class == TRUMP_CLASS else SUIT_NAMES[v.led_class]
    best = seat_name(v.best_seat, player)
    return (
        f"Trick {v.trick_num + 1} so far ({led} led): {plays}; winning: {best} with "
        f"{card_symbol(v.trick_cards[v.best_seat])}"
    )
