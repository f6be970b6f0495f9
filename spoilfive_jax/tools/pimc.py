"""A search bot: perfect-information Monte Carlo (PIMC) on top of ``tools.analysis``.

``pimc(env, num_samples, rollout_policy)`` returns a jittable ``policy(key, state, player)``
that, at each decision, samples ``num_samples`` worlds consistent with what the player knows
(``Analysis.resample_hidden_many``), tries every legal action in each (common random
numbers), plays the hand out with ``rollout_policy`` at every seat, and plays the action with
the highest mean of ``Analysis.analysis_fields(env)[0]`` (expected chips, or points).  It is
a policy like any other: ``sf.rollout``, ``sf.evaluate``, ``sf.score_hands``,
``sf.play_sessions`` and the play loops accept it. ``pimc(num_samples=..., rollout_policy=...)``
without an env returns an *unbound* bot: a policy spec that every tool binds to its own env
(``tools.policies.resolve_one`` calls ``bind(env)``); calling an unbound bot directly is a
``ValueError``.

Game-generic: it calls only the env methods listed in ``tools.analysis``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env
from spoilfive_jax.registry import available_games, make
from spoilfive_jax.tools.analysis import block_values
from spoilfive_jax.tools.policies import bind, resolve_one

DEFAULT_SAMPLES = 64  # the strength-vs-samples curve: benchmarks/pimc_strength.py


@dataclasses.dataclass(frozen=True)
class PimcPolicy:
    """``policy(key, state, player) -> action`` for one hand (vmap it for a batch).

    Hashable and frozen, so jitted callers compile it once per (env, num_samples, rollout).
    When a decision has one legal action it is still sampled (the cost is the same under vmap).
    """

    env: Any  # None: unbound, a spec that the tools bind to their env (``bind``)
    num_samples: int = DEFAULT_SAMPLES
    rollout_policy: Any = "heuristic"
    see_all: bool = False  # every world is the true deal: the cheating bound

    @property
    def __name__(self) -> str:  # tournament tables name policies by ``__name__``
        return f"pimc{self.num_samples}" + ("-sees-all" if self.see_all else "")

    def bind(self, env: Any) -> PimcPolicy:
        """This bot for ``env``: an unbound bot takes ``env``; a bound one must already be for an
        equal env (``ValueError`` otherwise, rather than searching another game's rules)."""
        if self.env is None:
            rollout_policy = bind(env, self.rollout_policy)
            check_rollout_policy(env, rollout_policy)
            return dataclasses.replace(self, env=env, rollout_policy=rollout_policy)
        if self.env != env:
            raise ValueError(
                f"this pimc bot was made for {self.env!r}, not {env!r}; use sf.pimc(env, ...) "
                "with the tool's env, or sf.pimc(num_samples=...) without one"
            )
        return self

    def __call__(self, key: jax.Array, state: Any, player: jax.Array) -> jax.Array:
        if self.env is None:
            raise ValueError(
                "this pimc bot has no env: pass one (sf.pimc(env, ...)) or hand the bot to a "
                "tool (sf.rollout, sf.evaluate, sf.score_hands, sf.play_sessions), which binds it"
            )
        del player  # the analysis is for ``state.current_player``
        width = int(self.env.capability(caps.Analysis, "pimc").max_legal_actions(self.env))
        states = jax.tree.map(lambda x: jnp.asarray(x)[None], state)
        values, actions, used = block_values(
            self.env, self.rollout_policy, width, self.num_samples, key[None], states, self.see_all
        )
        first = self.env.capability(caps.Analysis, "pimc").analysis_fields(self.env)[0]
        primary = values[first][0].mean(0)  # [width]
        best = jnp.argmax(jnp.where(used[0], primary, -jnp.inf))
        return actions[0, best]


def pimc(
    env: Any = None,
    num_samples: int = DEFAULT_SAMPLES,
    rollout_policy: Any = "heuristic",
    *,
    see_all: bool = False,
) -> PimcPolicy:
    """The PIMC bot (module docstring): ``num_samples`` worlds per decision, ``rollout_policy``
    (``"heuristic"``, each game's own; ``"greedy"`` in the family; ``"random"``; or a jittable
    policy) playing every seat in the rollouts.  ``env=None``: an unbound bot, which the tools
    bind to theirs.  The rollout policy is checked here (and again when an unbound bot is
    bound): a name the game does not know is a ``ValueError`` now, not when the bot first
    plays (``check_rollout_policy``).  ``see_all=True`` cheats: every world is the true deal
    (the other hands included), so the bot's margin over the fair one sizes what the hidden
    cards cost it (the cheating bound)."""
    if isinstance(env, (int, np.integer)) and not isinstance(env, bool):
        raise ValueError(
            f"pimc's first argument is the env; pass the samples as num_samples={env!r}"
        )
    if isinstance(num_samples, bool) or int(num_samples) < 1:
        raise ValueError(f"num_samples must be an integer >= 1, got {num_samples!r}")
    if env is not None:
        if not isinstance(env, Env):
            raise ValueError(f"pimc's env must be a game environment (sf.make(...)), got {env!r}")
        env.capability(caps.Analysis, "pimc")  # a game without position analysis: named now
    check_rollout_policy(env, bind(env, rollout_policy) if env is not None else rollout_policy)
    if not isinstance(see_all, bool):
        raise ValueError(f"see_all must be True or False, got {see_all!r}")
    return PimcPolicy(env, int(num_samples), rollout_policy, see_all)


def check_rollout_policy(env: Any, policy: Any) -> None:
    """``ValueError`` now, when the bot is built or bound, for a rollout policy it could not
    play with (rather than when it first plays): with an env, one the env cannot resolve (a
    name it does not know, ``"greedy"`` for Spoil Five, a non-callable); without one, a name
    no registered game knows or something that is not a policy spec."""
    if env is not None:
        try:
            resolve_one(env, policy)
        except ValueError as e:
            raise ValueError(f"pimc: bad rollout_policy for {env.id}: {e}") from None
        return
    if isinstance(policy, str):
        known = sorted({p for g in available_games() for p in _policy_names(g)})
        if known and policy not in known:
            raise ValueError(
                f"pimc: rollout_policy {policy!r} is not a built-in policy of any game "
                f"({', '.join(known)}); give one of those or a jittable policy(key, state, player)"
            )
    elif not callable(policy):
        raise ValueError(
            "pimc: rollout_policy must be a built-in policy name or a jittable "
            f"policy(key, state, player), got {policy!r}"
        )


def _policy_names(game: str) -> tuple[str, ...]:
    """The built-in policy names of ``game``'s default table (none if it cannot be made)."""
    try:
        return tuple(make(game).policy_names)
    except Exception:  # a plugin that cannot build its default table names nothing here
        return ()
