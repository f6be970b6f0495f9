"""What a game hands the command line to show: tables, reports and its rule options.

The ``Presentation`` capability (``core.capabilities``) returns these
plain values; ``spoilfive_jax.cli`` prints them (rich or plain text), writes them as JSON/CSV
and builds its ``--flags`` from them, without ever naming a game.
"""

from __future__ import annotations

import dataclasses
import math
import textwrap
from collections.abc import Sequence
from typing import Any, Literal

from spoilfive_jax.core.cards import SUIT_SYMBOLS, card_symbol, plain_order


@dataclasses.dataclass(frozen=True)
class Table:
    """A titled table of text cells; the first ``left`` columns are left-aligned."""

    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    left: int = 1


@dataclasses.dataclass(frozen=True)
class Report:
    """Tables, then lines of text, in the order shown."""

    tables: Sequence[Table]
    lines: Sequence[str] = ()


@dataclasses.dataclass(frozen=True)
class RuleOption:
    """One rule option a game accepts on the command line, as ``--NAME`` (``_`` -> ``-``).

    kind: ``"choice"`` (one of ``choices``), ``"int"`` (an integer >= ``minimum``),
    ``"packets"`` (``2,3`` or ``3,2``) or ``"flag"`` (no value).  ``bare``: the value of the
    flag given without a value (None: a value is required, except for ``"flag"``);
    ``negative``: the value of ``--no-NAME`` (None: no such flag).  The values collected go to
    the env class's ``rules_from_options(game_id, **values)``.
    """

    name: str
    help: str
    kind: Literal["choice", "int", "packets", "flag"] = "choice"
    choices: tuple[str, ...] = ()
    minimum: int = 0
    metavar: str = ""
    bare: Any = None
    negative: Any = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def parse(self, text: str) -> Any:
        """The value of ``--NAME TEXT``; ``ValueError`` naming the flag for a bad value."""
        if self.kind == "flag":
            raise ValueError(f"{self.flag} takes no value, got {text!r}")
        if self.kind == "choice":
            if text not in self.choices:
                shown = ", ".join(repr(c) for c in self.choices)
                raise ValueError(f"{self.flag}: invalid choice: {text!r} (choose from {shown})")
            return text
        if self.kind == "int":
            try:
                value = int(text)
            except ValueError:
                raise ValueError(f"{self.flag}: expected an integer, got {text!r}") from None
            if value < self.minimum:
                raise ValueError(f"{self.flag}: expected an integer >= {self.minimum}, got {value}")
            return value
        try:
            parts = tuple(int(x) for x in text.replace(" ", "").split(","))
        except ValueError:
            parts = ()
        if parts not in ((2, 3), (3, 2)):
            raise ValueError(f"{self.flag}: expected 2,3 or 3,2, got {text!r}")
        return parts


def plus_minus(
    mean: float, se: float, scale: float = 1.0, digits: int = 2, sign: bool = False
) -> str:
    """``12.34 ± 0.56``; ``12.34 ± n/a`` when the standard error is undefined (one sample)."""
    s = "+" if sign else ""
    if se is None or not math.isfinite(se):
        return f"{scale * mean:{s}.{digits}f} ± n/a"
    return f"{scale * mean:{s}.{digits}f} ± {scale * se:.{digits}f}"


def se_or_nan(se: Any, samples: int) -> Any:
    """``se``, or NaN where it is undefined (fewer than two samples)."""
    return se if samples > 1 else se * math.nan


def teams_text(num_players: int, num_teams: int) -> str:
    """``0&2 v 1&3`` (seat s plays for team s % T), or the words for individuals."""
    n, t = num_players, num_teams
    if t == n:
        return "head to head" if n == 2 else "every player for themselves"
    return " v ".join("&".join(str(s) for s in range(i, n, t)) for i in range(t))


def seat_name(seat: int, player: int | None) -> str:
    """``you`` for the viewer's seat, else ``seat N``."""
    return "you" if player is not None and seat == player else f"seat {seat}"


# ------------------------------------------------------------------------ the shared rules in words
# Following, reneging and robbing are the same card mechanics in every game (core.tricks).

SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")

# Shared with the Forty-Five family's words (the same following, reneging and robbing rules).
FOLLOW_HELP = "plain lead: seed = follow or trump if able; traditional = void may discard"
RENEGE_HELP = "when a top trump may be withheld from a trump lead"
FOLLOW = {
    "seed": "a plain suit led: holding that suit or any trump, play one of them (trumping "
    "instead of following is allowed); holding neither, play anything",
    "traditional": "a plain suit led: holding that suit, follow or trump; void in it, play "
    "anything (even while holding trumps)",
}
RENEGE = {
    "deal": "a top trump may be withheld from a trump lead while it outranks every trump "
    "played so far this deal",
    "trick": "a top trump may be withheld from a trump lead while it outranks every trump "
    "played so far in this trick",
    "led": "a top trump may be withheld from a trump lead when it outranks the trump led",
}
ROB = {
    "optional": "the holder of the ace of trumps (the dealer, if an ace is turned up) may take "
    "the turn-up, discarding a card face down",
    "forced": "the holder of the ace of trumps (the dealer, if an ace is turned up) must take "
    "the turn-up, discarding a card face down",
    "off": "nobody robs the pack",
}
RENEGE_FIVE = "; the 5 of trumps may always be withheld, and nobody may renege when the 5 is led"


def item_lines(items: Sequence[tuple[str, str]]) -> list[str]:
    """``  name:      text`` wrapped at 92 columns."""
    return [
        textwrap.fill(text, 92, initial_indent=f"  {name + ':':<11}", subsequent_indent=" " * 13)
        for name, text in items
    ]


def ranking_lines(trump: int, order: Sequence[int], tops: int) -> list[str]:
    """The trumps of ``trump`` highest first (``order``), the top trumps and the plain suits."""
    lines = [
        "",
        f"Trump {SUIT_NAMES[trump]} {SUIT_SYMBOLS[trump]}: {len(order)} trumps, highest first",
        "  " + " ".join(card_symbol(c) for c in order),
        f"  top trumps (may be reneged): {' '.join(card_symbol(c) for c in order[:tops])}",
        "Plain suits, highest first:",
    ]
    for s in range(4):
        if s != trump:
            cards = " ".join(card_symbol(c) for c in plain_order(s, trump))
            lines.append(f"  {SUIT_NAMES[s] + ' ' + SUIT_SYMBOLS[s] + ':':<11} {cards}")
    return lines
