"""One registry, one set of game ids: ``make(game_id, num_players=..., **rule_options)``.

The ids are used everywhere a game is named: ``env.id``, the CLI's ``--game``, the PettingZoo
wrapper and every JSON output.  The game packages are imported when first asked for, so the
registry is the only module above ``core`` that names them.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from spoilfive_jax.core.env import Env

# id -> (module, rules preset: a classmethod name on the game's rules type, or "" for the
# default constructor, env class name)
_GAMES: dict[str, tuple[str, str, str]] = {
    "spoil_five": ("spoilfive_jax.games.spoil_five", "", "SpoilFive"),
    "forty_five": ("spoilfive_jax.games.forty_five", "", "FortyFive"),
    "twenty_five": ("spoilfive_jax.games.forty_five", "twenty_five", "FortyFive"),
    "auction_forty_fives": ("spoilfive_jax.games.forty_five", "auction_forty_fives", "FortyFive"),
}


def available_games() -> tuple[str, ...]:
    """The registered game ids, in a fixed order."""
    return tuple(_GAMES)


def _check_id(game_id: Any) -> str:
    if not isinstance(game_id, str) or game_id not in _GAMES:
        raise ValueError(f"unknown game {game_id!r}; available: {', '.join(_GAMES)}")
    return game_id


def env_class(game_id: str) -> type[Env[Any, Any]]:
    """The environment class of ``game_id``."""
    module, _, cls = _GAMES[_check_id(game_id)]
    return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]


def make_rules(game_id: str, **rule_options: Any) -> Any:
    """The rules of ``game_id`` with ``rule_options`` over its defaults (or its preset).

    Unknown or invalid options raise ``ValueError`` naming them.
    """
    cls = env_class(game_id).rules_type
    preset = _GAMES[game_id][1]
    try:
        return getattr(cls, preset)(**rule_options) if preset else cls(**rule_options)
    except TypeError as e:  # an unknown keyword
        known = ", ".join(f.name for f in dataclasses.fields(cls))
        raise ValueError(f"{game_id}: {e}; rule options are: {known}") from None


def make(
    game_id: str, num_players: int | None = None, rules: Any = None, **rule_options: Any
) -> Env[Any, Any]:
    """The environment for ``game_id`` (``available_games()``).

    ``num_players`` defaults to the game's usual table (5 for Spoil Five, 4 for the family).
    Give either ``rules`` (a rules object of that game) or rule options as keywords, e.g.
    ``make("spoil_five", 5, renege="led")`` or ``make("twenty_five", 4, target=50)``.
    """
    cls = env_class(game_id)
    if rules is not None and rule_options:
        raise ValueError("give either rules= or rule options as keywords, not both")
    if rules is None:
        rules = make_rules(game_id, **rule_options)
    env = cls(num_players, rules)
    if env.id != game_id:
        raise ValueError(f"rules={rules!r} make the game {env.id!r}, not {game_id!r}")
    return env
