"""The presentation hooks of ``core.env.Env``, kept in their own module (``Env`` inherits them).

What the command line (``spoilfive_jax.cli``) shows of a game comes from these hooks, so the CLI
never names a game.  They read ``self.id``, ``self.num_players``, ``self.rules`` and
``self.policy_names`` of the ``Env`` they are part of.
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar


class PresentationHooks:
    """Mixed into ``core.env.Env``: the presentation hooks (see the comment below)."""

    id: Any
    num_players: int
    rules: Any
    policy_names: Any

    # ---------------- presentation hooks (cli)
    # What the command line (``spoilfive_jax.cli``) shows of a game comes from these hooks, so
    # the CLI never names a game.  A game's words live in one module (``report_module``, e.g.
    # ``games/spoil_five/report.py``): each report hook calls the function of the same name
    # there with the env first, so a game writes its words once and no delegation code.  Texts
    # for people write cards with ``core.cards.card_symbol`` (``10♦``); JSON/CSV records use
    # ``card_str`` (``TD``).  Tables and reports are ``core.present`` values.

    report_module: ClassVar[str] = ""
    """Dotted name of the game's words module (``RULE_OPTIONS`` and the report functions)."""

    @classmethod
    def _words(cls, name: str) -> Any:
        if not cls.report_module:
            raise NotImplementedError(f"{cls.__name__} has no report module (no {name})")
        return getattr(importlib.import_module(cls.report_module), name)

    @property
    def title(self) -> str:
        """The game's name for people, e.g. ``"Spoil Five"``."""
        return self.id

    @property
    def table_text(self) -> str:
        """The table in words, e.g. ``"5 players"`` or ``"4 players (0&2 v 1&3)"``."""
        return f"{self.num_players} players"

    @classmethod
    def rule_options(cls) -> tuple[Any, ...]:
        """The ``core.present.RuleOption`` flags this game's rules take on the command line."""
        return tuple(cls._words("RULE_OPTIONS"))

    @classmethod
    def rules_from_options(cls, game_id: str, options: dict[str, Any]) -> Any:
        """The rules of ``game_id`` from the values of ``rule_options`` given (ValueError for a
        bad mix)."""
        return cls._words("rules_from_options")(game_id, options)

    def rules_line(self) -> str:
        """The rules in force on one line, ``name=value ...`` (table titles)."""
        return self._words("rules_line")(self)  # type: ignore[no-any-return]

    def rules_in_force(self) -> dict[str, Any]:
        """Every rule field with the value in force (JSON ``"rules"``; no None for a default
        that depends on another field)."""
        return self._words("rules_in_force")(self)  # type: ignore[no-any-return]

    def rules_text(self, suit: int | None = None) -> str:
        """``spoilfive rules``: the options in words and the ranking (one trump suit, or all)."""
        return self._words("rules_text")(self, suit)  # type: ignore[no-any-return]

    @property
    def has_turnup(self) -> bool:
        """Whether a hand has a turn-up card (a score query then names one)."""
        return True

    @property
    def default_policy(self) -> str:
        """The built-in policy ``rollout`` and ``score`` use when none is given."""
        return self.policy_names[-1]

    def read_cards(self, text: str | list[str]) -> list[int]:
        """Card ids from people's text (``5H``, ``10♦``), refusing cards not in this game."""
        from spoilfive_jax.core.cards import parse_cards

        return parse_cards(text)

    def rollout_report(self, summary: dict[str, Any], names: Any, seconds: float) -> Any:
        """The ``Report`` of a rollout: ``summary`` is ``RolloutResult.summary()``, ``names``
        the policy of each seat."""
        return self._words("rollout_report")(self, summary, names, seconds)

    def summary_rows(self, summary: dict[str, Any], names: Any) -> tuple[list[str], list[Any]]:
        """CSV of a rollout's summary, long format: (header, rows)."""
        return self._words("summary_rows")(self, summary, names)  # type: ignore[no-any-return]

    def per_hand_columns(self, result: Any) -> tuple[tuple[str, ...], Any, str, str]:
        """Per-hand records of a ``RolloutResult``: (its scalar fields, the per-seat or
        per-team block int[H, K], the block's JSON name, its CSV column prefix)."""
        return self._words("per_hand_columns")(self, result)  # type: ignore[no-any-return]

    def plot_rollout(self, result: Any, names: Any, path: str) -> None:
        """Draw the rollout's figure to ``path`` (needs matplotlib)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        self._words("plot_rollout")(plt, self, result, names, path)

    @property
    def score_threshold(self) -> int | None:
        """The default points threshold of ``score_hands`` (None: the game takes none)."""
        return None

    def score_records(self, queries: Any, scores: Any) -> list[dict[str, Any]]:
        """JSON/CSV records of ``score_hands`` results; ``queries`` have ``hand`` (ids),
        ``turnup`` (-1: none) and ``seat``."""
        return self._words("score_records")(self, queries, scores)  # type: ignore[no-any-return]

    def score_report(self, queries: Any, scores: Any, heading: str, threshold: Any) -> Any:
        """The ``Report`` of ``score_hands`` results under the title ``heading``."""
        return self._words("score_report")(self, queries, scores, heading, threshold)

    @property
    def tournament_note(self) -> str:
        """A line under a tournament's title saying what its unit means ("" for none)."""
        return ""

    def play_terminal(
        self, input: Any, output: Any, *, human: int, bots: Any, bots_name: str,
        hands: int | None, dealer: int, seed: int,
    ) -> Any:  # fmt: skip
        """Play against ``bots`` (a policy) in the terminal (any text streams), starting with
        a line that says what is played; ``hands`` None: the game's own default."""
        return self._words("play_terminal")(
            self, input, output, human=human, bots=bots, bots_name=bots_name, hands=hands,
            dealer=dealer, seed=seed,
        )  # fmt: skip
