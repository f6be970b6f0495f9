"""The project's games inside OpenSpiel (the ``openspiel`` extra).

Importing this module registers, as OpenSpiel Python games, ``python_<id>`` for every game of
the registry that declares the ``DeckDeals`` capability: ``python_spoil_five``,
``python_forty_five``, ``python_twenty_five``, ``python_auction_forty_fives`` and a plugin's
(``python_oh_hell`` for the example)::

    import pyspiel
    import spoilfive_jax.openspiel as sfo

    game = pyspiel.load_game("python_spoil_five", {"players": 3, "rob": "off"})
    bots = [sfo.PolicyBot(game, "heuristic", seed=s) for s in range(3)]

Parameters: ``players``, ``dealer`` and the game's rule options (``spoilfive rules`` lists
them).  What the games model and how (chance, observations, resampling): ``game``.
``PolicyBot`` plays any of the project's policies as a ``pyspiel.Bot``.
"""

from __future__ import annotations

import pyspiel

from spoilfive_jax import registry
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.openspiel.bots import PolicyBot, ismcts_bot
from spoilfive_jax.openspiel.game import (
    Observer,
    OpenSpielGame,
    OpenSpielState,
    game_type,
    rule_parameters,
)


def register(game_id: str) -> str:
    """Register ``python_<game_id>`` with OpenSpiel (again: a no-op) and return its name."""
    name = f"python_{game_id}"
    if name in pyspiel.registered_names():
        return name
    env_class = registry.env_class(game_id)
    if caps.DeckDeals not in env_class.capabilities:
        raise ValueError(
            f"{game_id} does not declare the DeckDeals capability: OpenSpiel's chance nodes "
            "deal the pack card by card from it"
        )
    cls = type(f"{env_class.__name__}OpenSpielGame", (OpenSpielGame,), {"game_id": game_id})
    pyspiel.register_game(game_type(game_id), cls)
    return name


def register_all() -> tuple[str, ...]:
    """Register every game of the registry that can be dealt card by card; their names."""
    return tuple(
        register(g)
        for g in registry.available_games()
        if caps.DeckDeals in registry.env_class(g).capabilities
    )


GAMES = register_all()
"""The names registered when this module was imported."""

__all__ = [
    "GAMES",
    "Observer",
    "OpenSpielGame",
    "OpenSpielState",
    "PolicyBot",
    "game_type",
    "ismcts_bot",
    "register",
    "register_all",
    "rule_parameters",
]
