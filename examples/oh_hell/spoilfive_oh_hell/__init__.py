"""Oh Hell as a spoilfive_jax game, played exactly as OpenSpiel's ``oh_hell``.

A game package outside ``spoilfive_jax``: installed, its entry point (``spoilfive_jax.games``:
``oh_hell = "spoilfive_oh_hell:OhHell"``) registers it, so ``spoilfive_jax.make("oh_hell",
num_players=4, num_tricks=5)``, the tools, the CLI and the RL wrappers find it.  Modules:
``rules`` (options and cards), ``state``, ``game`` (the pure rules of a hand), ``observe``,
``policies``, ``env``.
"""

from spoilfive_oh_hell import infer as infer
from spoilfive_oh_hell.env import OhHell as OhHell
from spoilfive_oh_hell.env import action_str as action_str
from spoilfive_oh_hell.rules import BID as BID
from spoilfive_oh_hell.rules import OhHellRules as OhHellRules
from spoilfive_oh_hell.state import State as State

__all__ = ["BID", "OhHell", "OhHellRules", "State", "action_str"]
