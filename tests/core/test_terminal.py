"""The terminal table every game's play module shares (``core.terminal.TerminalTable``)."""

from __future__ import annotations

import io

import pytest

import spoilfive_jax as sf
from spoilfive_jax.core.cards import card_symbol
from spoilfive_jax.core.terminal import TerminalTable


@pytest.mark.parametrize("game_id", ["spoil_five", "forty_five"])
def test_announce_rob_words(game_id: str) -> None:
    out = io.StringIO()
    table = TerminalTable(sf.make(game_id), io.StringIO(), out, 0, "random", 0)
    table.announce_rob("Seat 2", False, False, 5, 13)
    table.announce_rob("You", True, False, 5, 13)
    table.announce_rob("Seat 3", False, True, 52, 13)
    up, mine = card_symbol(13), card_symbol(5)
    assert out.getvalue().splitlines() == [
        f"Seat 2 robs: takes the turn-up {up} and discards a card face down.",
        f"You rob: take the turn-up {up} and discard {mine} face down.",
        "Seat 3 declines to rob.",
    ]
