"""spoilfive_jax: Spoil Five and its family as jit-compiled, vmapped JAX array programs.

The top level is generic: ``make`` a game by id, step it (``Env``), and run the tools on any
game (``rollout``, ``evaluate``, ``score_hands``, ``play_sessions``, ``analyze``, ``pimc``,
``best_policy``, ``solve``).
What belongs to one game lives under it: ``sf.spoil_five`` (``SpoilFive``, ``State``, ``PASS``,
``JINK``, ``render_text``, ...) and ``sf.forty_five`` (``FortyFive``, its actions and
``play_games``).  A game of your own: ``register`` it, or ship it as a package with an entry
point in the group ``spoilfive_jax.games``; ``capabilities`` lists what a game can declare.
"""

from typing import Any as _Any

# First, before JAX: in the ``spoilfive`` command, a Ctrl-C while it imports is one line.
from spoilfive_jax import _interrupt as _interrupt

# isort: split
from spoilfive_jax import testing as testing
from spoilfive_jax.core import capabilities as capabilities
from spoilfive_jax.core.cards import card_id as card_id
from spoilfive_jax.core.cards import card_str as card_str
from spoilfive_jax.core.cards import card_symbol as card_symbol
from spoilfive_jax.core.cards import parse_cards as parse_cards
from spoilfive_jax.core.cards import plain_order as plain_order
from spoilfive_jax.core.cards import trump_order as trump_order
from spoilfive_jax.core.deprecation import deprecated as _deprecated
from spoilfive_jax.core.env import Env as Env
from spoilfive_jax.games import forty_five as forty_five
from spoilfive_jax.games import spoil_five as spoil_five
from spoilfive_jax.registry import available_games as available_games
from spoilfive_jax.registry import make as make
from spoilfive_jax.registry import register as register
from spoilfive_jax.registry import unregister as unregister
from spoilfive_jax.tools import distributed as distributed
from spoilfive_jax.tools.analysis import Analysis as Analysis
from spoilfive_jax.tools.analysis import analyze as analyze
from spoilfive_jax.tools.analysis import position_env as position_env
from spoilfive_jax.tools.analysis import position_from_history as position_from_history
from spoilfive_jax.tools.best import best_policy as best_policy
from spoilfive_jax.tools.cores import use_all_cores as use_all_cores
from spoilfive_jax.tools.pimc import pimc as pimc
from spoilfive_jax.tools.policies import first_legal as first_legal
from spoilfive_jax.tools.policies import random_legal as random_legal
from spoilfive_jax.tools.rollout import RolloutResult as RolloutResult
from spoilfive_jax.tools.rollout import rollout as rollout
from spoilfive_jax.tools.scorer import score_hands as score_hands
from spoilfive_jax.tools.session import auto_reset as auto_reset
from spoilfive_jax.tools.session import play_sessions as play_sessions
from spoilfive_jax.tools.solve import solve as solve
from spoilfive_jax.tools.tournament import TournamentResult as TournamentResult
from spoilfive_jax.tools.tournament import evaluate as evaluate

__version__ = "0.1.0"

__all__ = [
    "Analysis",
    "Env",
    "RolloutResult",
    "TournamentResult",
    "analyze",
    "auto_reset",
    "available_games",
    "best_policy",
    "capabilities",
    "card_id",
    "card_str",
    "card_symbol",
    "distributed",
    "evaluate",
    "first_legal",
    "forty_five",
    "make",
    "parse_cards",
    "pimc",
    "plain_order",
    "play_sessions",
    "position_env",
    "position_from_history",
    "random_legal",
    "register",
    "rollout",
    "score_hands",
    "solve",
    "spoil_five",
    "testing",
    "trump_order",
    "unregister",
    "use_all_cores",
]

# Names this package had at the top level before the games got their own namespaces: each
# still works for one release, with a ``DeprecationWarning`` naming its new place.
_MOVED: dict[str, tuple[_Any, str]] = {
    **{
        name: (spoil_five, name)
        for name in (
            "CLAIM",
            "JINK",
            "NUM_ACTIONS",
            "PASS",
            "HandScores",
            "Rules",
            "SpoilFive",
            "State",
            "action_str",
            "state_bytes",
        )
    },
    "HEURISTIC": (spoil_five.policies, "HEURISTIC"),
    "RANDOM": (spoil_five.policies, "RANDOM"),
    "SessionResult": (spoil_five.session, "SessionResult"),
    "observe": (spoil_five.observe, "observe"),
    "observe_full": (spoil_five.observe, "observe_full"),
    "render_svg": (spoil_five.render, "render_svg"),
    "render_text": (spoil_five.render, "render_text"),
    **{
        name: (forty_five, name)
        for name in (
            "AuctionFortyFives",
            "FamilyScores",
            "FortyFive",
            "FortyFiveRules",
            "GameResult",
            "TwentyFive",
            "play_games",
        )
    },
}


def __getattr__(name: str) -> _Any:
    if name in _MOVED:
        home, attr = _MOVED[name]
        _deprecated(
            f"spoilfive_jax.{name} is deprecated: use "
            f"{home.__name__.replace('spoilfive_jax.games.', 'spoilfive_jax.')}.{attr} "
            "(game-specific names live under their game)"
        )
        return getattr(home, attr)
    raise AttributeError(f"module 'spoilfive_jax' has no attribute {name!r}")
