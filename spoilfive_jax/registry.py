"""One open registry, one set of game ids: ``make(game_id, num_players=..., **rule_options)``.

The ids are used everywhere a game is named: ``env.id``, the CLI's ``--game``, the PettingZoo
wrapper and every JSON output.  A game is added with ``register(id, factory)``: the package's
own games register themselves when ``spoilfive_jax`` is imported, and a game installed as a
package of its own is found through the entry-point group ``spoilfive_jax.games`` (an entry
``oh_hell = "spoilfive_oh_hell:OhHell"`` registers the class ``OhHell`` under ``oh_hell``), so it
appears in ``available_games()``, ``make``, the CLI, PettingZoo and every tool without an edit
here.  The registry names no game.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from spoilfive_jax.core.env import Env

ENTRY_POINT_GROUP = "spoilfive_jax.games"

Factory = Callable[..., Env[Any, Any]]
"""An ``Env`` subclass (built as ``cls(num_players, rules)``, its rules from ``rules_type``), or
any callable ``factory(num_players, rules=None, **rule_options) -> Env``."""


@dataclasses.dataclass(frozen=True)
class _Entry:
    factory: Factory
    preset: str  # a classmethod of the rules type building this game's rules ("": its defaults)


_GAMES: dict[str, _Entry] = {}
_discovered = False


def register(game_id: str, factory: Factory, *, preset: str = "", replace: bool = False) -> None:
    """Make ``game_id`` available to ``make``, the tools, the CLI and the wrappers.

    ``factory``: the game's ``Env`` subclass, or a callable ``(num_players, rules=None,
    **rule_options) -> Env``.  ``preset``: for an ``Env`` subclass, the name of a classmethod of
    its ``rules_type`` that builds this id's rules (several ids can share one class, as the
    Forty-Five family does).  Registering a taken id is a ``ValueError`` unless ``replace``.
    """
    if not isinstance(game_id, str) or not game_id.isidentifier():
        raise ValueError(f"a game id is a Python identifier such as 'oh_hell', got {game_id!r}")
    if not callable(factory):
        raise ValueError(f"the factory of {game_id!r} must be an Env subclass or a callable")
    if isinstance(factory, type):
        if not issubclass(factory, Env):
            raise ValueError(f"{factory.__name__} is not a spoilfive_jax.Env subclass")
        if preset and not callable(getattr(factory.rules_type, preset, None)):
            raise ValueError(f"{factory.rules_type.__name__} has no preset {preset!r}")
    elif preset:
        raise ValueError("preset= goes with an Env subclass, not a factory function")
    if game_id in _GAMES and not replace and _GAMES[game_id] != _Entry(factory, preset):
        raise ValueError(f"the game id {game_id!r} is taken; pass replace=True to replace it")
    _GAMES[game_id] = _Entry(factory, preset)


def unregister(game_id: str) -> None:
    """Remove ``game_id`` (a test's or a notebook's game); ``ValueError`` if unknown."""
    _GAMES.pop(_check_id(game_id))


def _discover() -> None:
    """Register the games of the installed plugins, once (their ``spoilfive_jax.games`` entry
    points).  A plugin that fails to load is left out with a ``RuntimeWarning`` naming it and
    why, so one broken package does not break every game."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in _GAMES:
            continue
        try:
            register(ep.name, ep.load())
        except Exception as e:  # a broken plugin names itself and is left out
            warnings.warn(
                f"the game plugin {ep.name} = {ep.value} failed to load and is left out: "
                f"{type(e).__name__}: {e}",
                RuntimeWarning,
                stacklevel=3,
            )


def available_games() -> tuple[str, ...]:
    """The registered game ids: the package's own, then the plugins', in a fixed order."""
    _discover()
    return tuple(_GAMES)


def _check_id(game_id: Any) -> str:
    _discover()
    if not isinstance(game_id, str) or game_id not in _GAMES:
        raise ValueError(f"unknown game {game_id!r}; available: {', '.join(_GAMES)}")
    return game_id


def env_class(game_id: str) -> type[Env[Any, Any]]:
    """The environment class of ``game_id`` (for a factory function: the class it makes)."""
    factory = _GAMES[_check_id(game_id)].factory
    if isinstance(factory, type):
        return factory
    return type(factory())


def make_rules(game_id: str, **rule_options: Any) -> Any:
    """The rules of ``game_id`` with ``rule_options`` over its defaults (or its preset).

    Unknown or invalid options raise ``ValueError`` naming them.
    """
    entry = _GAMES[_check_id(game_id)]
    cls = env_class(game_id).rules_type
    try:
        return getattr(cls, entry.preset)(**rule_options) if entry.preset else cls(**rule_options)
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
    entry = _GAMES[_check_id(game_id)]
    if rules is not None and rule_options:
        raise ValueError("give either rules= or rule options as keywords, not both")
    if isinstance(entry.factory, type):
        if rules is None:
            rules = make_rules(game_id, **rule_options)
        env = entry.factory(num_players, rules)
    else:
        env = entry.factory(num_players, rules=rules, **rule_options)
    if env.id != game_id:
        raise ValueError(f"rules={rules!r} make the game {env.id!r}, not {game_id!r}")
    return env
