"""The Forty-Five family's action ids as text: cards (the joker too), bids, trump names."""

from __future__ import annotations

from typing import Any

import numpy as np

import spoilfive_jax.games.forty_five.game as game
from spoilfive_jax.core.cards import card_id as _card_id
from spoilfive_jax.core.cards import card_str as _card_str
from spoilfive_jax.core.cards import card_symbol
from spoilfive_jax.core.cards import parse_cards as _parse_cards
from spoilfive_jax.games.forty_five.game import JOKER

card_text = _card_str  # the family's old name for ``core.cards.card_str`` (knows the joker)


def card_id(text: str) -> int:
    """Card id of ``"5H"``, ``"10h"``, ``"10♥"`` ... or ``"JK"``/``"JOKER"`` (52)."""
    return _card_id(text, joker=True)


def parse_cards(text: str | list[str] | tuple[str, ...], unique: bool = True) -> list[int]:
    """Card ids from ``"5H JK A♥"`` (spaces or commas) or a list of card texts; a card given
    twice is a ``ValueError`` unless ``unique=False`` (``core.cards.parse_cards``)."""
    return _parse_cards(text, joker=True, unique=unique)


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
    """Text of an action id for people: a card (``"5♥"``, ``"10♦"``, ``"JK"``: ``card_symbol``),
    ``"PASS"`` (also DONE and "no jink"), ``"BID15"``..``"BID30"``, ``"HOLD"``,
    ``"TRUMP_C"``..``"TRUMP_S"`` or ``"JINK"``."""
    a = int(action)
    if 0 <= a <= JOKER:
        return card_symbol(a)
    return _SPECIAL_NAMES.get(a, f"<invalid action {a}>")


def action_id(text: str | int) -> int:
    """Inverse of ``action_str`` (case-insensitive; ``"DONE"`` is ``PASS``)."""
    if isinstance(text, (int, np.integer)):
        return int(text)
    key = text.strip().upper()
    return _SPECIAL_IDS[key] if key in _SPECIAL_IDS else card_id(key)
