"""Oh Hell's rule options and its cards, numbered as OpenSpiel's ``oh_hell`` numbers them.

Card id ``rank * 4 + suit``: suits C=0, D=1, S=2, H=3 and ranks 2=0, 3=1, ..., K=11, A=12, so
``2C`` = 0, ``2H`` = 3, ``AS`` = 50, ``AH`` = 51.  Within a suit a higher id is a higher card.
Actions: 0..51 play that card; ``BID + k`` (52 + k) bids k tricks, k = 0..num_tricks.

Text for people and machines is the project's (``core.cards``: ``10♦`` / ``TD``); ``to_core``
and ``from_core`` convert between the two numberings.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from spoilfive_jax.core import cards as core_cards

NUM_CARDS = 52
NUM_SUITS = 4
CLUBS, DIAMONDS, SPADES, HEARTS = 0, 1, 2, 3
SUITS = "CDSH"  # OpenSpiel's suit order
RANKS = "23456789TJQKA"
TEN, JACK, QUEEN, KING, ACE = (RANKS.index(r) for r in "TJQKA")  # 8..12
BID = 52  # action BID + k bids k tricks
BONUS = 10  # for taking exactly the tricks bid (OpenSpiel's kMadeBidBonus)
MIN_PLAYERS, MAX_PLAYERS = 3, 7  # OpenSpiel's limits
MAX_ACTIONS = 64  # the legal set is a 64-position bitset (``core.bits``)
MAX_TRICKS = MAX_ACTIONS - BID - 1  # 11: bids 0..11 are actions 52..63

# Our card id -> the project's (``core.cards``: suit * 13 + rank, suits C D H S, ranks A 2..K).
_CORE_SUIT = (core_cards.CLUBS, core_cards.DIAMONDS, core_cards.SPADES, core_cards.HEARTS)
TO_CORE = np.array([_CORE_SUIT[c % 4] * 13 + (c // 4 + 1) % 13 for c in range(NUM_CARDS)])
FROM_CORE = np.argsort(TO_CORE)
TO_CORE.setflags(write=False)
FROM_CORE.setflags(write=False)


def suit_of(card: int) -> int:
    return card % NUM_SUITS


def rank_of(card: int) -> int:
    return card // NUM_SUITS


def to_core(card: int) -> int:
    """The project's id of our card ``card`` (for ``core.cards`` text)."""
    return int(TO_CORE[card])


def from_core(card: int) -> int:
    """Our id of the project's card id ``card``."""
    return int(FROM_CORE[card])


def card_symbol(card: int) -> str:
    """``10♦``: a card for people (``core.cards.card_symbol``)."""
    return core_cards.card_symbol(to_core(card))


def card_str(card: int) -> str:
    """``TD``: a card for JSON/CSV (``core.cards.card_str``)."""
    return core_cards.card_str(to_core(card))


def parse_cards(text: str | list[str] | tuple[str, ...]) -> list[int]:
    """Our ids of cards written ``5H J♥ 10h`` (``core.cards.parse_cards``)."""
    return [from_core(c) for c in core_cards.parse_cards(text)]


@dataclasses.dataclass(frozen=True)
class OhHellRules:
    """Oh Hell's options (OpenSpiel's ``oh_hell`` parameters of the same meaning).

    ``num_tricks``: cards dealt to each seat (OpenSpiel's ``num_tricks_fixed``), 1..11 and
    ``num_tricks * num_players + 1 <= 52`` (checked with the table).  ``off_bid_penalty``: a
    missed bid scores ``-points_per_trick * |tricks - bid|`` instead of the tricks taken.
    ``points_per_trick``: points for each trick taken; taking exactly the bid adds ``BONUS``.
    """

    num_tricks: int = 5
    off_bid_penalty: bool = False
    points_per_trick: int = 1

    def __post_init__(self) -> None:
        t = self.num_tricks
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)):
            raise ValueError(f"num_tricks must be an integer, got {t!r}")
        if not 1 <= int(t) <= MAX_TRICKS:
            raise ValueError(
                f"num_tricks must be 1..{MAX_TRICKS} (bids are actions 52..63 of a 64-action "
                f"bitset), got {t}"
            )
        if not isinstance(self.off_bid_penalty, (bool, np.bool_)):
            raise ValueError(f"off_bid_penalty must be True or False, got {self.off_bid_penalty!r}")
        p = self.points_per_trick
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or int(p) < 0:
            raise ValueError(f"points_per_trick must be an integer >= 0, got {p!r}")
        # hashable host values (a numpy int would do, but keep one type per field)
        object.__setattr__(self, "num_tricks", int(t))
        object.__setattr__(self, "off_bid_penalty", bool(self.off_bid_penalty))
        object.__setattr__(self, "points_per_trick", int(p))

    @property
    def illegal_penalty(self) -> int:
        """What an illegal action costs its seat (``core.generic.end_illegal`` reads it): one
        more than the best score of a hand."""
        return self.points_per_trick * self.num_tricks + BONUS + 1


def check_table(num_players: int, rules: OhHellRules) -> None:
    """``ValueError`` unless ``num_players`` is 3..7 and the deal (and the trump card) fit."""
    n = num_players
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"oh_hell takes {MIN_PLAYERS}..{MAX_PLAYERS} players, got {n}")
    if rules.num_tricks * n + 1 > NUM_CARDS:
        raise ValueError(
            f"num_tricks={rules.num_tricks} is too many for {n} players: the deal and the trump "
            f"card need num_tricks * {n} + 1 <= 52 cards (at most {(NUM_CARDS - 1) // n})"
        )
