"""Cards, text notation and the ranking tables (docs/rules.md#ranking).

Card id (public): ``suit * 13 + rank``; suits C=0 D=1 H=2 S=3, ranks A=0, 2=1, ..., 10=9,
J=10, Q=11, K=12.  ``AC`` = 0, ``AH`` = 26, ``5H`` = 30, ``KS`` = 51; the Forty-Five family's
joker is 52.

Two notations, one for each reader (docs/rules.md#ranking):

- for people, ``card_symbol``: ``10♦``, ``J♥``, ``JK`` -- every table, message, terminal game
  and ``action_str``;
- for machines, ``card_str``: ``TD``, ``JH``, ``JK`` -- JSON and CSV output and SVG
  ``data-card`` attributes (plain ASCII, fixed width).

``card_id``/``parse_cards`` read both (and ``10d``, any case) wherever cards are read.

Strengths are small integers, larger = stronger, built once at import as numpy constants:

- ``TRUMP_STRENGTH[t, c]``: strength of card ``c`` as a trump when suit ``t`` is trump, -1 if
  ``c`` is not a trump.  The three top trumps always have 13 (5), 12 (J), 11 (A♥); with hearts
  trump strength 10 is unused (13 trumps), so top-trump tests never depend on the suit.
- ``PLAIN_STRENGTH[c]``: strength of ``c`` within its own suit when not a trump (0..12).
  ``AH`` has no plain strength (-1): it is never a heart.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

NUM_CARDS = 52
SUITS = "CDHS"
RANKS = "A23456789TJQK"
SUIT_SYMBOLS = "♣♦♥♠"
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
RED_SUITS = (DIAMONDS, HEARTS)

ACE, FIVE, JACK = 0, 4, 10
ACE_OF_HEARTS = HEARTS * 13 + ACE  # 26: a trump in every deal, never a heart
JOKER = 52  # the Forty-Five family's 53rd card
JOKER_TEXT = "JK"

# Ranks listed strongest first (rank index: A=0 ... K=12), docs/rules.md#ranking.
_TRUMP_ORDER_RED = ["5", "J", "AH", "A", "K", "Q", "T", "9", "8", "7", "6", "4", "3", "2"]
_TRUMP_ORDER_HEARTS = ["5", "J", "AH", "K", "Q", "T", "9", "8", "7", "6", "4", "3", "2"]
_TRUMP_ORDER_BLACK = ["5", "J", "AH", "A", "K", "Q", "2", "3", "4", "6", "7", "8", "9", "T"]
_PLAIN_ORDER_RED = ["K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2", "A"]
_PLAIN_ORDER_BLACK = ["K", "Q", "J", "A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]
TOP_TRUMP_STRENGTHS = (13, 12, 11)  # 5 of trumps, J of trumps, A♥


def card_id(text: str, joker: bool = False) -> int:
    """Card id of a card written for people or machines, case-insensitive: ``"5H"``, ``"TD"``,
    ``"10d"``, ``"10♦"``, ``"J♥"`` (rank ``A23456789TJQK`` or ``10``, then a suit letter
    ``CDHS`` or symbol ``♣♦♥♠``).  With ``joker=True`` also ``"JK"``/``"JOKER"`` (id 52).

    Raises ``ValueError`` for anything that is not a card.
    """
    if not isinstance(text, str):
        raise ValueError(f"card text must be a string, got {type(text).__name__}")
    t = text.strip().upper()
    if t in ("JK", "JOKER"):
        if joker:
            return JOKER
        raise ValueError(f"not a card: {text!r} (the joker is not in play)")
    if t and t[-1] in SUIT_SYMBOLS:
        t = t[:-1] + SUITS[SUIT_SYMBOLS.index(t[-1])]
    if len(t) == 3 and t.startswith("10"):
        t = "T" + t[2]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise ValueError(
            f"not a card: {text!r} (expected rank A23456789TJQK or 10, then suit CDHS or "
            "♣♦♥♠, e.g. '5H' or '10♦')"
        )
    return SUITS.index(t[1]) * 13 + RANKS.index(t[0])


def card_str(card: int) -> str:
    """Machine text of a card id: ``card_str(30) == "5H"``, ``"TD"`` for the ten, ``"JK"`` for
    the joker (52).  Used by JSON/CSV output and ``data-card`` attributes; read back by
    ``card_id``.  ``ValueError`` outside 0..52."""
    c = _checked_id(card)
    return JOKER_TEXT if c == JOKER else RANKS[c % 13] + SUITS[c // 13]


def card_symbol(card: int) -> str:
    """Text of a card id for people: suit symbol and ``10`` spelled out (``"10♥"``), ``"JK"``
    for the joker (52).  Every message, table and ``action_str`` uses it; ``card_id`` reads
    it back."""
    c = _checked_id(card)
    if c == JOKER:
        return JOKER_TEXT
    rank = "10" if c % 13 == 9 else RANKS[c % 13]
    return rank + SUIT_SYMBOLS[c // 13]


def parse_cards(
    text: str | list[str] | tuple[str, ...], joker: bool = False, unique: bool = True
) -> list[int]:
    """Card ids from ``"5H J♥ 10h"`` (spaces or commas) or a list of card texts (``card_id``).

    A set of cards (a hand, a deck, a stock) holds each card once, so a card given twice is a
    ``ValueError`` naming it (``"5H 5H"`` was read as ``[30, 30]``); ``unique=False`` reads a
    list that may repeat (turn-ups of several deals)."""
    if not isinstance(text, (str, list, tuple)):
        raise ValueError(f"cards must be text or a list of card texts, got {type(text).__name__}")
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    ids = [card_id(p, joker) for p in parts]
    twice = [c for c, count in Counter(ids).items() if count > 1]  # in the order given
    if unique and twice:
        shown = ", ".join(card_symbol(c) for c in twice)
        raise ValueError(
            f"duplicate card{'s' if len(twice) > 1 else ''} {shown} in {text!r}: a set of cards "
            "holds each card once (unique=False reads a list that may repeat)"
        )
    return ids


def _checked_id(card: int) -> int:
    try:
        c = int(card)
    except (TypeError, ValueError):
        raise ValueError(f"card id must be an integer, got {card!r}") from None
    if c != card or not 0 <= c <= JOKER:
        raise ValueError(f"card id must be an integer in 0..52 (52: the joker), got {card!r}")
    return c


def _rank(symbol: str) -> int:
    return RANKS.index(symbol)


def _build_trump_strength() -> np.ndarray:
    table = np.full((4, NUM_CARDS), -1, np.int32)
    for t in range(4):
        if t == HEARTS:
            order = _TRUMP_ORDER_HEARTS
        elif t in RED_SUITS:
            order = _TRUMP_ORDER_RED
        else:
            order = _TRUMP_ORDER_BLACK
        for i, sym in enumerate(order):
            card = ACE_OF_HEARTS if sym == "AH" else t * 13 + _rank(sym)
            strength = 13 - i
            if t == HEARTS and i >= 3:
                strength -= 1  # keep the top three at 13, 12, 11; 10 unused
            table[t, card] = strength
    return table


def _build_plain_strength() -> np.ndarray:
    table = np.full(NUM_CARDS, -1, np.int32)
    for s in range(4):
        order = _PLAIN_ORDER_RED if s in RED_SUITS else _PLAIN_ORDER_BLACK
        for i, sym in enumerate(order):
            table[s * 13 + _rank(sym)] = 12 - i
    table[ACE_OF_HEARTS] = -1
    return table


TRUMP_STRENGTH = _build_trump_strength()  # int32[4, 52]
PLAIN_STRENGTH = _build_plain_strength()  # int32[52]
TRUMP_STRENGTH.setflags(write=False)
PLAIN_STRENGTH.setflags(write=False)


def trump_order(trump: int) -> list[int]:
    """The trumps for ``trump`` suit, strongest first (13 for hearts, else 14)."""
    strength = TRUMP_STRENGTH[trump]
    cards = [c for c in range(NUM_CARDS) if strength[c] >= 0]
    return sorted(cards, key=lambda c: -strength[c])


def plain_order(suit: int, trump: int) -> list[int]:
    """Cards of ``suit`` that are not trumps, strongest first (empty when ``suit == trump``)."""
    cards = [c for c in range(suit * 13, suit * 13 + 13) if TRUMP_STRENGTH[trump, c] < 0]
    return sorted(cards, key=lambda c: -PLAIN_STRENGTH[c])
