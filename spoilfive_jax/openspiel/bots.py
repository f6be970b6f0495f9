"""The project's policies as ``pyspiel.Bot``s, for ``evaluate_bots`` and OpenSpiel's search."""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np
import pyspiel

from spoilfive_jax.core.env import Env, R, S
from spoilfive_jax.tools.best import BEST, best_policy
from spoilfive_jax.tools.policies import resolve_one


@functools.cache
def _jitted(env: Env[S, R], policy: Any) -> Any:
    return jax.jit(policy)


def _act(env: Env[S, R], policy: Any) -> Any:
    """The jitted policy, shared by the bots of one table that play it (when it hashes)."""
    try:
        return _jitted(env, policy)
    except TypeError:  # an unhashable policy object
        return jax.jit(policy)


class PolicyBot(pyspiel.Bot):  # type: ignore[misc]
    """A bot that plays ``policy`` (a built-in name, ``"best"`` for ``sf.best_policy``,
    ``sf.pimc(...)``, a loaded agent or any jittable ``policy(key, state, player)``) on a
    ``python_<id>`` game of this package.

    Decision ``t`` of the bot uses ``fold_in(PRNGKey(seed), t)``, so a bot replays the same
    choices from the same seed."""

    def __init__(self, game: Any, policy: Any, seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        env = getattr(game, "env", None)
        if not isinstance(env, Env):
            raise ValueError(f"PolicyBot plays the games of spoilfive_jax.openspiel, got {game!r}")
        if isinstance(policy, str) and policy == BEST and BEST not in env.policy_names:
            policy = best_policy(env)
        self.name, fn = resolve_one(env, policy)
        self._env, self._act = env, _act(env, fn)
        self._key, self._decisions = jax.random.PRNGKey(seed), 0

    def step(self, state: Any) -> int:
        player = state.current_player()
        if state.env_state is None or player < 0:
            raise ValueError(f"PolicyBot.step: no decision at this state ({state})")
        key = jax.random.fold_in(self._key, self._decisions)
        self._decisions += 1
        action = int(self._act(key, state.env_state, np.int32(player)))
        if action not in state.legal_actions():
            raise ValueError(f"{self.name or 'the policy'} chose illegal action {action}")
        return action

    def restart_at(self, state: Any) -> None:
        """A new hand: the decisions count from 0 again, so a hand replays from the seed."""
        self._decisions = 0

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass

    def provides_policy(self) -> bool:
        return False


def ismcts_bot(
    game: Any, simulations: int = 100, *, uct_c: float = 2.0, rollouts: int = 1, seed: int = 0
) -> Any:
    """OpenSpiel's Python ISMCTS (``open_spiel.python.algorithms.ismcts``) on a game of this
    package: random rollouts, worlds drawn by the game's resampler
    (``resample_from_infostate``), the most visited action.

    OpenSpiel's ``ISMCTSBot`` searches afresh at every step but does not implement
    ``restart_at``, which ``evaluate_bots`` calls; this one answers it (and ``inform_action``)
    by doing nothing.  Its worlds are drawn with the bot's own generator (OpenSpiel's default
    sampler is seeded from the clock), so a seed replays a run.  ``uct_c`` applies to the
    returns as they are (chips, or points)."""
    from open_spiel.python.algorithms import ismcts, mcts

    class _Bot(ismcts.ISMCTSBot):  # type: ignore[misc]
        def restart_at(self, state: Any) -> None:
            pass

        def inform_action(self, state: Any, player_id: int, action: int) -> None:
            pass

    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(rollouts, rng)
    bot = _Bot(game, evaluator, uct_c, simulations, random_state=rng)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rng.uniform))
    return bot
