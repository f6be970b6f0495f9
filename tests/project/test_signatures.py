"""The public tools' signatures are typed: every argument of ``sf.rollout``, ``sf.evaluate``
and ``sf.score_hands`` resolves to a real type (``typing.get_type_hints``), none to ``Any``, but
what any game defines (``env``'s type parameters, a game's own rollout options and score record)."""

from __future__ import annotations

import inspect
import typing

import pytest

import spoilfive_jax as sf


@pytest.mark.parametrize(
    "tool", [sf.rollout, sf.evaluate, sf.score_hands], ids=lambda f: f.__name__
)
def test_the_arguments_of_the_tools_have_real_types(tool) -> None:
    hints = typing.get_type_hints(tool)
    games = [p.name for p in inspect.signature(tool).parameters.values() if p.kind == p.VAR_KEYWORD]
    untyped = [n for n, hint in hints.items() if hint is typing.Any and n not in ["return", *games]]
    assert untyped == [], f"{tool.__name__}: {untyped} are typed Any"
    assert "checkpoint" in hints and "Checkpoint" in str(hints["checkpoint"])
