"""Forty-Five family positions from text: not implemented yet (issue 10, item 4).

The Spoil Five parser (``games.spoil_five.history``) covers the turn-up, the rob and the plays;
the family also needs the joker exchange, jink announcements, Auction bids, trump and the
discard-and-draw exchanges.  Build family positions with ``init_from_deal`` and ``step``.
"""

from __future__ import annotations

from typing import Any


def position_env(env: Any, text: str | None = None, **fields: Any) -> Any:
    """The table of a position: ``env`` (positions are not read yet)."""
    del text, fields
    return env


def position_from_history(env: Any, text: str | None = None, **fields: Any) -> Any:
    """Not implemented for the Forty-Five family: raises ``NotImplementedError``."""
    del text, fields
    raise NotImplementedError(
        f"position_from_history is not implemented for {env.id} yet; "
        "build the state with init_from_deal and step"
    )
