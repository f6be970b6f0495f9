"""``best_policy(env)``: the strongest player the project has for a game.

For a game with position analysis (the ``Analysis`` capability: Spoil Five, the Forty-Five
family) it is the PIMC bot (``tools.pimc``) with the levers that measured stronger than plain
``sf.pimc(env, 64)`` (``benchmarks/best_bot.py``, the table in ``docs/analysis.md``):

- ``DEFAULT_SAMPLES`` (64) worlds a decision, the game's strongest built-in policy (its
  ``heuristic``) playing every seat of the playouts, as ``sf.pimc``;
- in a game whose hands can be spoiled and their pot carried (Spoil Five: the analysis reports
  ``spoil_prob``), a spoil is worth one seat's share of the carried pot (``carry_share=1``),
  and ties of the means go to that built-in's own choice (``tie_break``).  Together they beat
  plain pimc in Spoil Five;
- in a game that ships a trained agent for the table (``Inference.trained_model``: 4-player
  Forty-Five and Twenty-Five with their default rules), the worlds are weighed by the other
  seats' plays under the agent (``infer_worlds=INFER_WORLDS`` drawn, 64 kept;
  ``softness=INFER_SOFTNESS``).  It beat plain pimc as a partnership (+0.15 points a hand over
  9,000 deals in Forty-Five, 5,000 in Twenty-Five), for 30 to 50 times the cost of a decision
  (a network evaluation at every recorded play of every drawn world).  The agents are package
  data, played without flax (``games.forty_five.agent``).

In 4-player Forty-Five no other lever measured stronger (the tie-break, 256 worlds, endgame
solves and inference weighed by the heuristic were within noise of pimc).  Elsewhere in the
family (Auction, other seat counts or rules) the package ships no agent to weigh by, so there
the best bot is ``sf.pimc(env, 64)`` itself, named ``best``.

A game without position analysis (a plugin) gets its strongest built-in policy, the last of
``env.policy_names``.  The result is a jittable ``policy(key, state, player)`` that every tool
takes; the command line names it ``best`` (``--policy best``, ``--bots best``) and ``hint``
in terminal play shows its analysis and its choice (``hint_text``).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import C, Env, R, S
from spoilfive_jax.core.validate import as_key
from spoilfive_jax.tools.analysis import analyze
from spoilfive_jax.tools.pimc import CARRY_FIELD, DEFAULT_SAMPLES, PimcPolicy, pimc
from spoilfive_jax.tools.policies import PolicySpec

BEST = "best"  # the name tables and the command line give it
CARRY_SHARE = 1.0  # one seat's share of a carried pot (measured: benchmarks/best_bot.py)
INFER_WORLDS = 128  # worlds drawn a decision, DEFAULT_SAMPLES kept by the plays' likelihood
INFER_SOFTNESS = 0.1  # under the trained agent's distribution, a tenth spread evenly


def _declared(env: Env[S, R], kind: type[C]) -> C | None:
    """``env``'s implementation of capability ``kind``, or None where its game has none."""
    try:
        return env.capability(kind, BEST)
    except caps.MissingCapability:
        return None


def has_analysis(env: Env[S, R]) -> bool:
    """Whether ``env``'s game declares position analysis (so a search bot can play it)."""
    return _declared(env, caps.Analysis) is not None


def best_policy(env: Env[S, R], *, see_all: bool = False) -> Any:
    """The strongest policy the project has for ``env``'s game (module docstring): a jittable
    ``policy(key, state, player)``.  ``see_all=True``: the same bot seeing every hand (its
    cheating bound; a search bot only).  ``ValueError`` for something that is not an env."""
    if not isinstance(env, Env):
        raise ValueError(f"best_policy takes a game environment (sf.make(...)), got {env!r}")
    strongest = env.policy_names[-1]
    if not has_analysis(env):
        if see_all:
            raise ValueError(f"{env.id} has no position analysis, so no search bot to see all")
        return env.builtin_policy(strongest)
    carried = CARRY_FIELD in env.capability(caps.Analysis, BEST).analysis_fields(env)
    trained = trained_model(env)
    inferred: dict[str, Any] = {}
    if trained is not None and not see_all:  # (seeing every hand, there is nothing to infer)
        inferred = {"infer_worlds": INFER_WORLDS, "infer_model": trained}
        inferred["softness"] = INFER_SOFTNESS
    return pimc(
        env,
        DEFAULT_SAMPLES,
        strongest,
        see_all=see_all,
        tie_break=strongest if carried else None,
        carry_share=CARRY_SHARE if carried else 0.0,
        name=BEST,
        **inferred,
    )


def trained_model(env: Env[S, R]) -> Any:
    """The trained policy ``env``'s game ships for its table (``Inference.trained_model``), or
    None (a game without inference, or a table no agent was trained for)."""
    inference = _declared(env, caps.Inference)
    return None if inference is None else inference.trained_model(env)


def hint_text(
    env: Env[S, R],
    state: S,
    key: jax.Array | int = 0,
    num_samples: int = 200,
    policy: PolicySpec | None = None,
) -> str:
    """The analysis of ``state``'s legal moves as a table, best first, and the move
    ``sf.best_policy(env)`` makes of it (terminal play's ``hint``): the analysis draws its worlds
    as the best bot does (weighed by the other seats' plays where the bot infers), plays out
    with the bot's rollout policy, and the bot chooses from it as from its own search
    (``PimcPolicy.choose``; in Spoil Five it counts the carried pot, which the table does not
    show, so its move can differ from the top row).  ``policy``: another policy for the
    playouts (then no choice line).  A game without position analysis has no hint
    (``MissingCapability``)."""
    bot = best_policy(env) if policy is None else None
    if not isinstance(bot, PimcPolicy):  # other playouts, or no analysis (analyze says so)
        chosen = env.policy_names[-1] if policy is None else policy
        return analyze(key, env, state, num_samples, chosen).table()
    res = analyze(
        key,
        env,
        state,
        num_samples,
        bot.rollout_policy,
        infer_worlds=bot.infer_worlds,
        infer_model=bot.infer_model,
        softness=bot.softness,
    )
    legal = np.flatnonzero(res.legal)
    means = {f: res.values[f][legal] for f in res.fields}
    pick = _choose(bot, as_key(key), state, means, legal, np.ones(legal.size, bool))
    how = f"the best bot's choice from these samples: {bot.describe(worlds=False)}"
    return f"{res.table()}\nbest: {res.action_names[int(legal[int(pick)])]} ({how})"


@functools.partial(jax.jit, static_argnums=0)
def _choose(
    bot: PimcPolicy, key: jax.Array, state: Any, means: Any, legal: Any, used: Any
) -> jax.Array:
    """``bot.choose``, compiled (the hint's choice; one program per number of legal moves)."""
    return bot.choose(key, state, means, legal, used)
