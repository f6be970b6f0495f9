"""spoilfive_jax: Spoil Five and its family as jit-compiled, vmapped JAX array programs."""

from spoilfive_jax.core.cards import card_id as card_id
from spoilfive_jax.core.cards import card_str as card_str
from spoilfive_jax.core.cards import card_symbol as card_symbol
from spoilfive_jax.core.cards import parse_cards as parse_cards
from spoilfive_jax.core.cards import plain_order as plain_order
from spoilfive_jax.core.cards import trump_order as trump_order
from spoilfive_jax.games.forty_five import AuctionFortyFives as AuctionFortyFives
from spoilfive_jax.games.forty_five import FortyFive as FortyFive
from spoilfive_jax.games.forty_five import FortyFiveRules as FortyFiveRules
from spoilfive_jax.games.forty_five import TwentyFive as TwentyFive
from spoilfive_jax.games.spoil_five.env import SpoilFive as SpoilFive
from spoilfive_jax.games.spoil_five.env import action_str as action_str
from spoilfive_jax.games.spoil_five.game import CLAIM as CLAIM
from spoilfive_jax.games.spoil_five.game import JINK as JINK
from spoilfive_jax.games.spoil_five.game import NUM_ACTIONS as NUM_ACTIONS
from spoilfive_jax.games.spoil_five.game import PASS as PASS
from spoilfive_jax.games.spoil_five.game import State as State
from spoilfive_jax.games.spoil_five.game import state_bytes as state_bytes
from spoilfive_jax.games.spoil_five.observe import observe as observe
from spoilfive_jax.games.spoil_five.observe import observe_full as observe_full
from spoilfive_jax.games.spoil_five.policies import HEURISTIC as HEURISTIC
from spoilfive_jax.games.spoil_five.policies import RANDOM as RANDOM
from spoilfive_jax.games.spoil_five.render import render_svg as render_svg
from spoilfive_jax.games.spoil_five.render import render_text as render_text
from spoilfive_jax.games.spoil_five.rules import Rules as Rules
from spoilfive_jax.games.spoil_five.session import SessionResult as SessionResult
from spoilfive_jax.games.spoil_five.session import auto_reset as auto_reset
from spoilfive_jax.games.spoil_five.session import play_sessions as play_sessions
from spoilfive_jax.tools.analysis import Analysis as Analysis
from spoilfive_jax.tools.analysis import analyze as analyze
from spoilfive_jax.tools.pimc import pimc as pimc
from spoilfive_jax.tools.rollout import RolloutResult as RolloutResult
from spoilfive_jax.tools.rollout import rollout as rollout
from spoilfive_jax.tools.scorer import FamilyScores as FamilyScores
from spoilfive_jax.tools.scorer import HandScores as HandScores
from spoilfive_jax.tools.scorer import TournamentResult as TournamentResult
from spoilfive_jax.tools.scorer import evaluate as evaluate
from spoilfive_jax.tools.scorer import score_hands as score_hands

__version__ = "0.1.0"

__all__ = [
    "CLAIM",
    "HEURISTIC",
    "JINK",
    "NUM_ACTIONS",
    "PASS",
    "RANDOM",
    "Analysis",
    "AuctionFortyFives",
    "FamilyScores",
    "FortyFive",
    "FortyFiveRules",
    "HandScores",
    "RolloutResult",
    "Rules",
    "SessionResult",
    "SpoilFive",
    "State",
    "TournamentResult",
    "TwentyFive",
    "action_str",
    "analyze",
    "auto_reset",
    "card_id",
    "card_str",
    "card_symbol",
    "evaluate",
    "observe",
    "observe_full",
    "parse_cards",
    "pimc",
    "plain_order",
    "play_sessions",
    "render_svg",
    "render_text",
    "rollout",
    "score_hands",
    "state_bytes",
    "trump_order",
]
