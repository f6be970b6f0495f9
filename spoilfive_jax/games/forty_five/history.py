"""Forty-Five family positions from text: see ``games.spoil_five.history`` (shared parser)."""

from __future__ import annotations

from typing import Any


def position_from_history(env: Any, text: str | None = None, **fields: Any) -> Any:
    """A family state from a position in text (``games.spoil_five.history`` format)."""
    from spoilfive_jax.games.spoil_five.history import build_position

    return build_position(env, text, **fields)
