"""Rule options of Spoil Five (docs/rules.md): a frozen, hashable value, static under jit."""

from __future__ import annotations

import dataclasses
from typing import Literal

Follow = Literal["seed", "traditional"]
Renege = Literal["deal", "trick", "led"]
Rob = Literal["optional", "forced", "off"]
AnteAfterSpoil = Literal["all", "dealer"]

_CHOICES = {
    "follow": ("seed", "traditional"),
    "renege": ("deal", "trick", "led"),
    "rob": ("optional", "forced", "off"),
    "ante_after_spoil": ("all", "dealer"),
}


def _check_chips(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"Rules.{name} must be an integer >= {minimum}, got {value!r}")


@dataclasses.dataclass(frozen=True)
class Rules:
    """Which reading of the rules a table plays (defaults: the seed sheets).

    follow: "seed" (holding the suit led or any trump, play one of those) or "traditional"
        (void in the suit led, play anything). Plain-suit leads only.
    renege: when a top trump (5, J of trumps, A♥) may be withheld from a trump lead:
        "deal" (it outranks every trump played so far this deal), "trick" (every trump of this
        trick), "led" (the led card).
    rob: "optional" (the robber may PASS), "forced", or "off".
    jink: whether the winner of tricks 1-3 may play on for all five.
    deal_packets: (2, 3) or (3, 2) cards per packet, first round first.
    ante: chips each player antes; jink_bonus: chips every other player pays a successful
        jinker (None = the ante); ante_after_spoil: "all" ante every hand, or "dealer" (only the
        dealer antes when chips were carried in).
    illegal_penalty: chips a player pays into the pot for an illegal action under jit, where
        the hand ends at once (see ``SpoilFive.step``).
    """

    follow: Follow = "seed"
    renege: Renege = "deal"
    rob: Rob = "optional"
    jink: bool = True
    deal_packets: tuple[int, int] = (2, 3)
    ante: int = 1
    jink_bonus: int | None = None
    ante_after_spoil: AnteAfterSpoil = "all"
    illegal_penalty: int = 1

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise ValueError(f"Rules.{name} must be one of {choices}, got {value!r}")
        if not isinstance(self.jink, bool):
            raise ValueError(f"Rules.jink must be True or False, got {self.jink!r}")
        packets = tuple(self.deal_packets) if isinstance(self.deal_packets, (tuple, list)) else ()
        if packets not in ((2, 3), (3, 2)):
            raise ValueError(
                f"Rules.deal_packets must be (2, 3) or (3, 2), got {self.deal_packets!r}"
            )
        object.__setattr__(self, "deal_packets", packets)
        _check_chips("ante", self.ante, 0)
        if self.jink_bonus is not None:
            _check_chips("jink_bonus", self.jink_bonus, 0)
        _check_chips("illegal_penalty", self.illegal_penalty, 0)

    @property
    def bonus(self) -> int:
        """The jink bonus in chips (``jink_bonus``, or the ante when None)."""
        return self.ante if self.jink_bonus is None else self.jink_bonus

    @classmethod
    def seed(cls, **overrides: object) -> Rules:
        """The seed sheets' reading (the defaults)."""
        return cls(**overrides)  # type: ignore[arg-type]

    @classmethod
    def traditional(cls, **overrides: object) -> Rules:
        """Peel / Britannica 1911: void players may discard, renege judged by the led card,
        forced rob, only the dealer antes after a spoil."""
        base: dict[str, object] = dict(
            follow="traditional", renege="led", rob="forced", ante_after_spoil="dealer"
        )
        base.update(overrides)
        return cls(**base)  # type: ignore[arg-type]

    @classmethod
    def preset(cls, name: str, **overrides: object) -> Rules:
        """A named preset: "seed" or "traditional"."""
        presets = {"seed": cls.seed, "traditional": cls.traditional}
        if name not in presets:
            raise ValueError(f"unknown rules preset {name!r}; choose from {sorted(presets)}")
        return presets[name](**overrides)

    def replace(self, **changes: object) -> Rules:
        """A copy with some options changed (validated)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]
