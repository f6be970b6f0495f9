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
them).  What the games model and how (chance, observations, resampling, utility, pickling):
``game``; how they run fast (every node on the host, one jitted call a decision): ``host``.
``PolicyBot`` plays any of the project's policies as a ``pyspiel.Bot``.
"""

from __future__ import annotations

from spoilfive_jax import registry
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.openspiel.bots import PolicyBot, ismcts_bot
from spoilfive_jax.openspiel.game import (
    Observer,
    OpenSpielGame,
    OpenSpielState,
    game_type,
    register,
    rule_parameters,
)


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
