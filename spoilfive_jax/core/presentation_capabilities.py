"""The capabilities a game shows people with: ``Presentation`` (the command line's words and
tables), ``TerminalPlay`` (a hand played at the terminal) and ``Rendering`` (pictures of a
hand).  Declared and checked like every capability (``core.capabilities``, which lists them
in ``CAPABILITIES`` and re-exports them); ``core.plain`` is ``Presentation``'s default."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:  # the types only
    from spoilfive_jax.core.env import Env, HandState

__all__ = ["Presentation", "Rendering", "TerminalPlay"]

S = TypeVar("S", bound="HandState")
"""The state of the env a capability function is given (``core.env.Env``'s ``S``), per call."""
R = TypeVar("R", bound=Hashable)
"""That env's rules."""


@runtime_checkable
class Presentation(Protocol):
    """What the command line shows of a game (tables are ``core.present`` values; texts for
    people write cards as ``10♦``, JSON/CSV records as ``TD``)."""

    def title(self, env: Env[S, R]) -> str:
        """The game's name for people, e.g. ``"Spoil Five"``."""
        ...

    def table_text(self, env: Env[S, R]) -> str:
        """The table in words, e.g. ``"5 players"``."""
        ...

    def rule_options(self) -> tuple[Any, ...]:
        """The ``core.present.RuleOption`` flags of the game's rules on the command line."""
        ...

    def rules_from_options(self, game_id: str, options: dict[str, Any]) -> Any:
        """The rules of ``game_id`` from the given ``rule_options`` values."""
        ...

    def rules_line(self, env: Env[S, R]) -> str:
        """The rules in force on one line, ``name=value ...``."""
        ...

    def rules_in_force(self, env: Env[S, R]) -> dict[str, Any]:
        """Every rule field with its value in force (JSON ``"rules"``)."""
        ...

    def rules_text(self, env: Env[S, R], suit: int | None = None) -> str:
        """``spoilfive rules``: the options and card order (``suit``: of ``cards.SUITS``)."""
        ...

    def default_policy(self, env: Env[S, R]) -> str:
        """The built-in policy ``rollout`` and ``score`` use when none is given."""
        ...

    def read_cards(self, env: Env[S, R], text: str | list[str]) -> list[int]:
        """Card ids from people's text, refusing cards not in this game."""
        ...

    def tournament_note(self, env: Env[S, R]) -> str:
        """A line under a tournament's title saying what its unit means ("" for none)."""
        ...

    def rollout_report(
        self, env: Env[S, R], summary: dict[str, Any], names: Any, seconds: float
    ) -> Any:
        """The ``Report`` of a rollout (``summary``: ``RolloutResult.summary()``)."""
        ...

    def summary_rows(
        self, env: Env[S, R], summary: dict[str, Any], names: Any
    ) -> tuple[list[str], list[Any]]:
        """CSV of a rollout's summary, long format: (header, rows)."""
        ...

    def per_hand_columns(
        self, env: Env[S, R], result: Any
    ) -> tuple[tuple[str, ...], Any, str, str]:
        """Per-hand records: (scalar fields, the per-seat block int[H, K], its JSON name, its
        CSV column prefix)."""
        ...

    def plot_rollout(self, plt: Any, env: Env[S, R], result: Any, names: Any, path: str) -> None:
        """Draw the rollout's figure to ``path`` with matplotlib's ``plt``."""
        ...


@runtime_checkable
class TerminalPlay(Protocol):
    """``spoilfive play``: a person against bots in a terminal (any text streams)."""

    def play_terminal(
        self,
        env: Env[S, R],
        input: Any,
        output: Any,
        *,
        human: int,
        bots: Any,
        bots_name: str,
        hands: int | None,
        dealer: int,
        seed: int,
    ) -> Any:
        """Play against ``bots``; ``hands`` None: the game's own default."""
        ...


@runtime_checkable
class Rendering(Protocol):
    """Pictures of one hand for people."""

    def render_text(self, env: Env[S, R], state: S, *, player: int | None = None) -> str:
        """The hand as text (``player``: only that seat's cards face up; None: all)."""
        ...

    def render_svg(self, env: Env[S, R], state: S, *, player: int | None = None) -> str:
        """The hand as an SVG picture."""
        ...
