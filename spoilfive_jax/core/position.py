"""Positions as text, the parts every game reads the same way (each game's ``history`` module
reads the rest: its rules options, its moves, and the replay).

A position is ``key=value`` fields separated by ``;`` (or new lines); keyword arguments given
beside the text override its fields.  ``players=`` and ``rules=`` name the table; a position for
another table than the env's is refused (``check_table``), and ``table_for`` builds its table.
Every problem is a one-line ``ValueError`` naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def parse_position(text: str, known: Sequence[str]) -> dict[str, Any]:
    """The fields of a position line, each one of ``known``."""
    out: dict[str, Any] = {}
    for part in text.replace("\n", ";").split(";"):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise ValueError(f"position field {part!r} is not key=value")
        key, value = (x.strip() for x in part.split("=", 1))
        key = key.lower()
        if key not in known:
            raise ValueError(f"unknown position field {key!r}; fields: {', '.join(known)}")
        out[key] = value
    return out


def position_fields(text: str | None, fields: dict[str, Any], known: Sequence[str]) -> dict:
    """The fields of ``text`` (if any) with the non-None keyword ``fields`` over them."""
    f = parse_position(text, known) if text else {}
    f.update({k: v for k, v in fields.items() if v is not None})
    return f


def position_table(
    env: Any, f: dict[str, Any], parse_rules: Callable[[str], Any]
) -> tuple[int, Any]:
    """(players, rules) the position names; ``env``'s where it names none."""
    try:
        n = int(f.get("players", env.num_players))
    except ValueError:
        raise ValueError(f"players must be a number 2..10, got {f['players']!r}") from None
    if not 2 <= n <= 10:
        raise ValueError(f"players must be 2..10, got {n}")
    rules = parse_rules(f["rules"]) if isinstance(f.get("rules"), str) else env.rules
    return n, rules


def table_for(env: Any, num_players: int, rules: Any) -> Any:
    """``env`` if it is that table, else the same game at that table."""
    if (num_players, rules) == (env.num_players, env.rules):
        return env
    return type(env)(num_players, rules)


def check_table(env: Any, num_players: int, rules: Any) -> None:
    """Refuse a position for another table than ``env``'s."""
    if num_players != env.num_players:
        raise ValueError(f"the position has {num_players} players, the table {env.num_players}")
    if rules != env.rules:
        raise ValueError(
            "the position's rules differ from the table's: build its table with "
            "sf.position_env(env, text)"
        )


def move_parts(token: str, num_players: int, form: str) -> tuple[int, list[str]]:
    """(seat, the parts after it) of a history move ``SEAT:WHAT[:...]``; ``form`` is what the
    game's moves look like, for the error."""
    parts = token.split(":")
    try:
        seat = int(parts[0])
    except ValueError:
        raise ValueError(f"history move {token!r} must start with a seat number") from None
    if not 0 <= seat < num_players:
        raise ValueError(f"history move {token!r}: seat must be 0..{num_players - 1}")
    if len(parts) < 2 or not parts[1]:
        raise ValueError(f"history move {token!r} must be {form}")
    return seat, parts[1:]


__all__ = [
    "check_table",
    "move_parts",
    "parse_position",
    "position_fields",
    "position_table",
    "table_for",
]
