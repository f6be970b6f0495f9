"""Forty-Five family positions as text: the ``rules=`` field and the ``history=`` moves, read
into ``Move`` records (``history.position_from_history`` replays them).

Moves are ``SEAT:CARD`` (a play), ``SEAT:rob[:CARD]``, ``SEAT:joker[:CARD]``, ``SEAT:pass``,
``SEAT:hold``, ``SEAT:jink``, ``SEAT:15``..``SEAT:30`` (or ``bid15``: a bid), ``SEAT:trump:S``
and ``SEAT:exchange:N`` or ``SEAT:exchange:OUT:DRAWN``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import spoilfive_jax.games.forty_five.game as game
from spoilfive_jax.core.position import move_parts
from spoilfive_jax.games.forty_five.actions import card_id
from spoilfive_jax.games.forty_five.rules import FortyFiveRules

SUITS = "CDHS"
_PRESETS = {"forty_five": "forty_five", "twenty_five": "twenty_five", "auction": "auction"}
_INTS = ("target", "illegal_penalty")
_BOOLS = ("joker", "min_bid_at_100")
_BIDS = {"15": game.BID_15, "20": game.BID_20, "25": game.BID_25, "30": game.BID_30}


@dataclasses.dataclass(frozen=True)
class Move:
    seat: int
    kind: str  # "play", "rob", "joker", "pass", "bid", "hold", "trump", "exchange", "jink"
    card: int = -1  # the card played, or the player's own rob/joker discard (-1: unseen)
    value: int = -1  # a bid's action id, the trump suit, or an exchange's count
    out: tuple[int, ...] = ()  # the player's own exchange: the cards it discarded ...
    drew: tuple[int, ...] = ()  # ... and the cards it drew


def card_list(text: str) -> list[int]:
    return [card_id(c) for c in text.replace(",", " ").replace("/", " ").split()]


def parse_rules(text: str) -> FortyFiveRules:
    """``forty_five`` / ``twenty_five`` / ``auction`` then ``,option=value`` overrides."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    variant = "forty_five"
    if parts and "=" not in parts[0]:
        name = parts.pop(0).lower()
        if name not in _PRESETS:
            raise ValueError(f"unknown rules {name!r}; use forty_five, twenty_five or auction")
        variant = _PRESETS[name]
    overrides: dict[str, Any] = {"variant": variant}
    for p in parts:
        if "=" not in p:
            raise ValueError(f"rules option {p!r} is not option=value")
        k, v = (x.strip() for x in p.split("=", 1))
        k = k.lower()
        if k in _BOOLS:
            overrides[k] = v.lower() in ("on", "true", "yes", "1")
        elif k in _INTS:
            try:
                overrides[k] = int(v)
            except ValueError:
                raise ValueError(f"rules option {k} must be a number, got {v!r}") from None
        elif k == "deal_packets":
            overrides[k] = tuple(int(x) for x in v.replace("-", "/").split("/"))
        else:
            overrides[k] = v.lower()
    try:
        return FortyFiveRules(**overrides)
    except TypeError:
        raise ValueError(f"unknown rules option in {text!r}") from None


def parse_moves(text: str, num_players: int) -> list[Move]:
    moves = []
    for tok in text.split():
        seat, rest = move_parts(tok, num_players, "SEAT:CARD or SEAT:WHAT")
        part = [str(seat), *rest]
        what = part[1].lower()
        arg = part[2] if len(part) > 2 else ""
        if what in ("rob", "joker"):
            moves.append(Move(seat, what, card_id(arg) if arg else -1))
        elif what in ("pass", "hold", "jink"):
            moves.append(Move(seat, what))
        elif what in _BIDS or what.removeprefix("bid") in _BIDS:
            moves.append(Move(seat, "bid", value=_BIDS[what.removeprefix("bid")]))
        elif what == "trump":
            if len(arg) != 1 or arg.upper() not in SUITS:
                raise ValueError(f"history move {tok!r}: name trump as S:trump:C|D|H|S")
            moves.append(Move(seat, "trump", value=SUITS.index(arg.upper())))
        elif what == "exchange":
            moves.append(_exchange(tok, seat, part[2:]))
        else:
            moves.append(Move(seat, "play", card_id(part[1])))
    return moves


def _exchange(tok: str, seat: int, rest: list[str]) -> Move:
    if len(rest) == 1 and rest[0].isdigit():
        n = int(rest[0])
        if n > 5:
            raise ValueError(f"history move {tok!r}: a seat exchanges at most 5 cards")
        return Move(seat, "exchange", value=n)
    if len(rest) != 2:
        raise ValueError(f"history move {tok!r} must be S:exchange:N or S:exchange:OUT:DRAWN")
    out, drew = card_list(rest[0]), card_list(rest[1])
    if len(out) != len(drew):
        raise ValueError(f"history move {tok!r}: {len(out)} cards out but {len(drew)} drawn")
    return Move(seat, "exchange", value=len(out), out=tuple(out), drew=tuple(drew))
