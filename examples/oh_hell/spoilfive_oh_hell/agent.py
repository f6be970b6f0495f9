"""The ``AgentInfo`` capability: what the RL wrappers report of a hand besides observations."""

from __future__ import annotations

from typing import Any

import numpy as np

from spoilfive_jax.core import generic
from spoilfive_oh_hell.rules import card_symbol


def observation_low(env: Any) -> float:
    """Observations are 0/1 indicators."""
    return 0.0


def final_info(env: Any, state: Any) -> dict[str, Any]:
    """The bids, the tricks taken, whether each seat made its bid, and ``illegal``."""
    bids = np.asarray(state.bids).tolist()
    tricks = np.asarray(state.tricks_won).tolist()
    return {
        "illegal": bool(state.illegal),
        "bids": bids,
        "tricks_won": tricks,
        "bid_made": [b == t for b, t in zip(bids, tricks, strict=True)],
    }


def state_text(env: Any, state: Any) -> str:
    """The phase, the trump card, bids and tricks, then the trick and who is to act."""
    head = (
        f"oh_hell: phase {env.phase_names[int(state.phase)]}, trump card "
        f"{card_symbol(int(state.trump_card))}, bids {np.asarray(state.bids).tolist()}, "
        f"tricks {np.asarray(state.tricks_won).tolist()}"
    )
    return "\n".join([head, *generic.text_tail(env, state)])
