"""Spoil Five: one hand for 2 to 10 players, each for themselves (``docs/rules.md``).

``SpoilFive`` is the environment; ``Rules`` its rule options.  The modules: ``rules``, ``game``
(the pure rules of one hand), ``env``, ``observe``, ``fast`` (the rollout kernel), ``policies``
(the built-in players), ``rollouts`` (the ``Rollouts``, ``RolloutKernel`` and ``HandScoring``
capabilities: what the generic tools keep and report, and the fast kernel behind them),
``session`` (``Sessions``: chip sessions), ``presentation`` (``Presentation``, ``TerminalPlay``,
``AgentInfo``: the game's words), ``render`` and ``play`` (terminal play); all are imported with
the package.  The old names ``provider`` and ``report`` still work, with a deprecation warning.
"""

from types import ModuleType

from spoilfive_jax.core.deprecation import renamed_module
from spoilfive_jax.games.spoil_five import env as env
from spoilfive_jax.games.spoil_five import fast as fast
from spoilfive_jax.games.spoil_five import game as game
from spoilfive_jax.games.spoil_five import observe as observe
from spoilfive_jax.games.spoil_five import play as play
from spoilfive_jax.games.spoil_five import policies as policies
from spoilfive_jax.games.spoil_five import presentation as presentation
from spoilfive_jax.games.spoil_five import render as render
from spoilfive_jax.games.spoil_five import rollouts as rollouts
from spoilfive_jax.games.spoil_five import rules as rules
from spoilfive_jax.games.spoil_five import session as session
from spoilfive_jax.games.spoil_five.env import SpoilFive as SpoilFive
from spoilfive_jax.games.spoil_five.env import action_str as action_str
from spoilfive_jax.games.spoil_five.game import CLAIM as CLAIM
from spoilfive_jax.games.spoil_five.game import JINK as JINK
from spoilfive_jax.games.spoil_five.game import NUM_ACTIONS as NUM_ACTIONS
from spoilfive_jax.games.spoil_five.game import PASS as PASS
from spoilfive_jax.games.spoil_five.game import PHASE_NAMES as PHASE_NAMES
from spoilfive_jax.games.spoil_five.game import State as State
from spoilfive_jax.games.spoil_five.game import state_bytes as state_bytes
from spoilfive_jax.games.spoil_five.policies import HEURISTIC as HEURISTIC
from spoilfive_jax.games.spoil_five.policies import RANDOM as RANDOM
from spoilfive_jax.games.spoil_five.render import render_svg as render_svg
from spoilfive_jax.games.spoil_five.render import render_text as render_text
from spoilfive_jax.games.spoil_five.rollouts import HandScores as HandScores
from spoilfive_jax.games.spoil_five.rules import Rules as Rules
from spoilfive_jax.games.spoil_five.session import SessionResult as SessionResult
from spoilfive_jax.games.spoil_five.session import SessionSummary as SessionSummary

__all__ = [
    "CLAIM",
    "HEURISTIC",
    "JINK",
    "NUM_ACTIONS",
    "PASS",
    "PHASE_NAMES",
    "RANDOM",
    "HandScores",
    "Rules",
    "SessionResult",
    "SessionSummary",
    "SpoilFive",
    "State",
    "action_str",
    "render_svg",
    "render_text",
    "state_bytes",
]

_RENAMED = {"provider": "rollouts", "report": "presentation"}


def __getattr__(name: str) -> ModuleType:
    """The modules' old names, deprecated: each module is named for the capabilities it holds."""
    return renamed_module(__name__, name, _RENAMED)
