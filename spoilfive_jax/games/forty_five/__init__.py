"""The Forty-Five family (docs/rules.md#the-forty-five-family): Forty-Five, Twenty-Five, Auction
Forty-Fives, the joker.

Built on the Spoil Five card core (``spoilfive_jax.core``: ranking, deal, robbing, reneging);
the per-game parts (teams, scoring, bidding, games to a target) live here.  The modules:
``rules``, ``game`` (the pure rules of one hand), ``env``, ``observe``, ``policies`` (the
built-in players), ``rollouts`` (the ``Rollouts``, ``RolloutKernel`` and ``HandScoring``
capabilities: what the generic tools keep and report), ``session`` (``Sessions``: whole games to
the target, ``play_games``), ``presentation`` (``Presentation``, ``TerminalPlay``, ``AgentInfo``,
``Teams``: the game's words) and ``play`` (terminal play); all are imported with the package.
The old names ``provider``, ``games`` and ``report`` still work, with a deprecation warning.
"""

from types import ModuleType

from spoilfive_jax.core.deprecation import renamed_module
from spoilfive_jax.games.forty_five import env as env
from spoilfive_jax.games.forty_five import game as game
from spoilfive_jax.games.forty_five import observe as observe
from spoilfive_jax.games.forty_five import play as play
from spoilfive_jax.games.forty_five import policies as policies
from spoilfive_jax.games.forty_five import presentation as presentation
from spoilfive_jax.games.forty_five import rollouts as rollouts
from spoilfive_jax.games.forty_five import rules as rules
from spoilfive_jax.games.forty_five import session as session
from spoilfive_jax.games.forty_five.env import AuctionFortyFives as AuctionFortyFives
from spoilfive_jax.games.forty_five.env import FortyFive as FortyFive
from spoilfive_jax.games.forty_five.env import TwentyFive as TwentyFive
from spoilfive_jax.games.forty_five.env import action_id as action_id
from spoilfive_jax.games.forty_five.env import action_str as action_str
from spoilfive_jax.games.forty_five.env import card_id as card_id
from spoilfive_jax.games.forty_five.env import card_text as card_text
from spoilfive_jax.games.forty_five.env import parse_cards as parse_cards
from spoilfive_jax.games.forty_five.game import BID_15 as BID_15
from spoilfive_jax.games.forty_five.game import BID_20 as BID_20
from spoilfive_jax.games.forty_five.game import BID_25 as BID_25
from spoilfive_jax.games.forty_five.game import BID_30 as BID_30
from spoilfive_jax.games.forty_five.game import DONE as DONE
from spoilfive_jax.games.forty_five.game import HOLD as HOLD
from spoilfive_jax.games.forty_five.game import JINK as JINK
from spoilfive_jax.games.forty_five.game import JOKER as JOKER
from spoilfive_jax.games.forty_five.game import NAME_CLUBS as NAME_CLUBS
from spoilfive_jax.games.forty_five.game import NAME_DIAMONDS as NAME_DIAMONDS
from spoilfive_jax.games.forty_five.game import NAME_HEARTS as NAME_HEARTS
from spoilfive_jax.games.forty_five.game import NAME_SPADES as NAME_SPADES
from spoilfive_jax.games.forty_five.game import NO_JINK as NO_JINK
from spoilfive_jax.games.forty_five.game import NUM_ACTIONS as NUM_ACTIONS
from spoilfive_jax.games.forty_five.game import PASS as PASS
from spoilfive_jax.games.forty_five.game import PHASE_NAMES as PHASE_NAMES
from spoilfive_jax.games.forty_five.game import State as State
from spoilfive_jax.games.forty_five.game import state_bytes as state_bytes
from spoilfive_jax.games.forty_five.rollouts import FamilyScores as FamilyScores
from spoilfive_jax.games.forty_five.rules import FortyFiveRules as FortyFiveRules
from spoilfive_jax.games.forty_five.rules import num_teams as num_teams
from spoilfive_jax.games.forty_five.session import GameResult as GameResult
from spoilfive_jax.games.forty_five.session import GameSummary as GameSummary
from spoilfive_jax.games.forty_five.session import play_games as play_games

__all__ = [
    "BID_15",
    "BID_20",
    "BID_25",
    "BID_30",
    "DONE",
    "HOLD",
    "JINK",
    "JOKER",
    "NAME_CLUBS",
    "NAME_DIAMONDS",
    "NAME_HEARTS",
    "NAME_SPADES",
    "NO_JINK",
    "NUM_ACTIONS",
    "PASS",
    "PHASE_NAMES",
    "AuctionFortyFives",
    "FamilyScores",
    "FortyFive",
    "FortyFiveRules",
    "GameResult",
    "GameSummary",
    "State",
    "TwentyFive",
    "action_id",
    "action_str",
    "card_id",
    "card_text",
    "num_teams",
    "parse_cards",
    "play_games",
    "state_bytes",
]

_RENAMED = {"provider": "rollouts", "games": "session", "report": "presentation"}


def __getattr__(name: str) -> ModuleType:
    """The modules' old names, deprecated: each module is named for the capabilities it holds."""
    return renamed_module(__name__, name, _RENAMED)
