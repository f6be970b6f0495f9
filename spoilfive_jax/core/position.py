"""Positions as text, the parts every game reads the same way (each game's ``history`` module
reads the rest: its rules options, its moves, and the replay).

A position is ``key=value`` fields separated by ``;`` (or new lines); keyword arguments given
beside the text override its fields.  ``players=`` and ``rules=`` name the table; a position for
another table than the env's is refused (``check_table``), and ``table_for`` builds its table.
Every problem is a one-line ``ValueError`` naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # (types only)
    from spoilfive_jax.core.env import Env, HandState

S = TypeVar("S", bound="HandState")  # the env's state (``core.env.Env``'s ``S``), per call
R = TypeVar("R", bound=Hashable)  # its rules


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
    env: Env[S, R], f: dict[str, Any], parse_rules: Callable[[str], R]
) -> tuple[int, R]:
    """(players, rules) the position names; ``env``'s where it names none."""
    try:
        n = int(f.get("players", env.num_players))
    except ValueError:
        raise ValueError(f"players must be a number 2..10, got {f['players']!r}") from None
    if not 2 <= n <= 10:
        raise ValueError(f"players must be 2..10, got {n}")
    rules = parse_rules(f["rules"]) if isinstance(f.get("rules"), str) else env.rules
    return n, rules


def table_for(env: Env[S, R], num_players: int, rules: R) -> Env[S, R]:
    """``env`` if it is that table, else the same game at that table."""
    if (num_players, rules) == (env.num_players, env.rules):
        return env
    return type(env)(num_players, rules)


def check_table(env: Env[S, R], num_players: int, rules: R) -> None:
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


class NoConsistentDeal(ValueError):
    """No deal of the unseen cards makes the history legal (a game's replay raises it, so that
    the position's reader can look for the move where the contradiction starts)."""


def first_inconsistent_move(count: int, start: int, consistent: Callable[[int], bool]) -> int:
    """The number (1-based) of the first move after which no deal of the unseen cards makes the
    moves so far legal, given that all ``count`` moves have none.

    ``consistent(k)`` says whether the first ``k`` moves have a consistent deal; only prefixes
    of at least ``start`` moves are tried.  Bisection: a prefix of an inconsistent history may
    be consistent, never the other way round, so ``log2(count)`` replays find the move.  A whole
    history checked against one world instead blames whichever earlier move that world breaks
    (a seat's discard on a lead it could follow, when the contradiction is its later play of
    that suit)."""
    lo, hi = max(start, 1), count
    while lo < hi:
        mid = (lo + hi) // 2
        if consistent(mid):
            lo = mid + 1
        else:
            hi = mid
    return lo


def no_deal_error(
    moves: Sequence[Any],
    changes: Sequence[str],
    consistent: Callable[[int], bool],
    text: Callable[[Any], str],
) -> NoConsistentDeal:
    """The error for a history of ``moves`` (each with ``seat`` and ``kind``) that no deal makes
    legal, naming the first move after which none does.

    Only prefixes through the last move of a kind in ``changes`` (the moves other than plays
    that change a hand: robs, exchanges) are tried, so that the player's hand after a prefix is
    its hand now and its later plays: a contradiction already there names that last move.
    ``text(move)`` is how the history writes it."""
    start = 1 + max((i for i, m in enumerate(moves) if m.kind in changes), default=0)
    k = first_inconsistent_move(len(moves), start, consistent)
    m = moves[k - 1]
    return NoConsistentDeal(
        f"move {k} ({text(m)}) is illegal for seat {m.seat}: no deal of the unseen cards makes "
        "it and the moves before it legal"
    )


__all__ = [
    "NoConsistentDeal",
    "check_table",
    "first_inconsistent_move",
    "move_parts",
    "no_deal_error",
    "parse_position",
    "position_fields",
    "position_table",
    "table_for",
]
