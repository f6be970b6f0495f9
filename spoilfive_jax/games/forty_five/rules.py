"""Rule options of the Forty-Five family (docs/rules.md#the-forty-five-family): a frozen, hashable
value, static under jit.

Variants (``variant``):

- ``"forty_five"`` (seed ``002_…``): turn-up trump and robbing as Spoil Five, all five tricks
  played, 5 points a trick and 5 for the hand's highest trump, games to 45.
- ``"twenty_five"``: the same without the best-trump bonus (5 a trick), games to 25.
- ``"auction"``: Auction Forty-Fives (Bicycle): no turn-up, no robbing; bids 15/20/25/30 from the
  eldest hand (the dealer may hold), the winner names trump, everyone may discard and draw back to
  five, the bidder's team is set back by its bid when it fails; games to 120.

Defaults follow docs/rules.md#the-forty-five-family: ``follow="traditional"``, ``renege="led"``,
``rob="optional"``, ``scoring="best_trump"``, ``tie_break="first_counted"``, ``jink="off"``, no
joker.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

Variant = Literal["forty_five", "twenty_five", "auction"]
Scoring = Literal["best_trump", "hoyle"]
TieBreak = Literal["first_counted", "higher_total"]
JinkOption = Literal["off", "announced", "wins_game"]
JokerRank = Literal["below_AH", "above_AH"]

DEFAULT_TARGET = {"forty_five": 45, "twenty_five": 25, "auction": 120}
MIN_BID_SCORE = 100  # a team at this score or more may not bid 15 (``min_bid_at_100``)

_CHOICES: dict[str, tuple[object, ...]] = {
    "variant": ("forty_five", "twenty_five", "auction"),
    "scoring": ("best_trump", "hoyle"),
    "tie_break": ("first_counted", "higher_total"),
    "jink": ("off", "announced", "wins_game"),
    "joker_rank": ("below_AH", "above_AH"),
    "follow": ("seed", "traditional"),
    "renege": ("deal", "trick", "led"),
    "rob": ("optional", "forced", "off"),
}


def _check_int(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"FortyFiveRules.{name} must be an integer >= {minimum}, got {value!r}")


@dataclasses.dataclass(frozen=True)
class FortyFiveRules:
    """Which game of the family a table plays, and which reading of its rules.

    variant: "forty_five", "twenty_five" or "auction" (see the module docstring).
    target: points that win the game (None: 45, 25 or 120 by variant; e.g. 110 for the long game).
    scoring: "best_trump" (5 a trick, plus 5 to the team that played the hand's highest trump,
        except in Twenty-Five) or "hoyle" (a side taking 3-4 tricks scores 5, all five 10).
        Auction always scores "best_trump".
    tie_break: when several teams reach the target in one hand: "first_counted" (teams counted
        from the eldest hand clockwise, the first that reached it wins) or "higher_total".
    jink: "off", "announced" (before the first lead, from the eldest hand, one player may announce
        that their team takes all five tricks: success doubles its points, failure loses the
        game) or "wins_game" (a team that takes all five tricks wins the game). Not in Auction.
    joker: play with a 53rd card, the joker (card id 52), always a trump with the top-trump
        reneging privilege; joker_rank: "below_AH" (the seed) or "above_AH".
    follow, renege, rob, deal_packets: as Spoil Five's ``Rules`` (docs/rules.md#following-suit);
    Forty-Five
        defaults to "traditional" following and "led" reneging
        (docs/rules.md#the-forty-five-family). Auction has no turn-up, so ``rob`` is ignored there.
    min_bid_at_100: in Auction, a team at 100 points or more may not bid (or hold) below 20.
    illegal_penalty: points the offender's team loses for an illegal action under jit, where
        the hand ends at once (see ``FortyFive.step``).
    """

    variant: Variant = "forty_five"
    target: int | None = None
    scoring: Scoring = "best_trump"
    tie_break: TieBreak = "first_counted"
    jink: JinkOption = "off"
    joker: bool = False
    joker_rank: JokerRank = "below_AH"
    follow: Literal["seed", "traditional"] = "traditional"
    renege: Literal["deal", "trick", "led"] = "led"
    rob: Literal["optional", "forced", "off"] = "optional"
    deal_packets: tuple[int, int] = (2, 3)
    min_bid_at_100: bool = True
    illegal_penalty: int = 30

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise ValueError(f"FortyFiveRules.{name} must be one of {choices}, got {value!r}")
        for name in ("joker", "min_bid_at_100"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(
                    f"FortyFiveRules.{name} must be True or False, got {getattr(self, name)!r}"
                )
        packets = tuple(self.deal_packets) if isinstance(self.deal_packets, (tuple, list)) else ()
        if packets not in ((2, 3), (3, 2)):
            raise ValueError(
                f"FortyFiveRules.deal_packets must be (2, 3) or (3, 2), got {self.deal_packets!r}"
            )
        object.__setattr__(self, "deal_packets", packets)
        if self.target is not None:
            _check_int("target", self.target, 1)
        _check_int("illegal_penalty", self.illegal_penalty, 0)
        if self.variant == "auction":
            if self.scoring != "best_trump":
                raise ValueError('Auction Forty-Fives scores "best_trump" (bids 15-30 need it)')
            if self.jink != "off":
                raise ValueError('FortyFiveRules.jink must be "off" in Auction Forty-Fives')

    # ------------------------------------------------------------------ derived values

    @property
    def goal(self) -> int:
        """The points that win the game (``target``, or the variant's default)."""
        return DEFAULT_TARGET[self.variant] if self.target is None else self.target

    @property
    def auction(self) -> bool:
        return self.variant == "auction"

    @property
    def bonus(self) -> bool:
        """Whether the team that played the hand's highest trump scores 5 more."""
        return self.scoring == "best_trump" and self.variant != "twenty_five"

    @property
    def robbing(self) -> bool:
        """Whether anybody can rob (a turn-up exists and ``rob`` is not "off")."""
        return not self.auction and self.rob != "off"

    @property
    def deck_size(self) -> int:
        return 53 if self.joker else 52

    # ------------------------------------------------------------------ constructors

    @classmethod
    def forty_five(cls, **overrides: object) -> FortyFiveRules:
        """Forty-Five to 45 (the seed's rules)."""
        return cls(**overrides)  # type: ignore[arg-type]

    @classmethod
    def twenty_five(cls, **overrides: object) -> FortyFiveRules:
        """Twenty-Five: 5 a trick, no best-trump bonus, games to 25 (``target`` to change it)."""
        return cls(variant="twenty_five", **overrides)  # type: ignore[arg-type]

    @classmethod
    def auction_forty_fives(cls, **overrides: object) -> FortyFiveRules:
        """Auction Forty-Fives to 120 (Bicycle)."""
        return cls(variant="auction", **overrides)  # type: ignore[arg-type]

    def replace(self, **changes: object) -> FortyFiveRules:
        """A copy with some options changed (validated)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


def num_teams(num_players: int) -> int:
    """Teams at a table of ``num_players``: 2 for 2, 4 and 6 players, else one per player.

    Seat ``s`` plays for team ``s % num_teams``: partners sit opposite (4: 0,2 vs 1,3) or
    alternately (6: 0,2,4 vs 1,3,5).
    """
    return 2 if num_players in (2, 4, 6) else num_players
