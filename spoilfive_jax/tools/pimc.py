"""A search bot: perfect-information Monte Carlo (PIMC) on top of ``tools.analysis``.

``pimc(env, num_samples, rollout_policy)`` returns a jittable ``policy(key, state, player)``
that, at each decision, samples ``num_samples`` worlds consistent with what the player knows
(``Analysis.resample_hidden_many``), tries every legal action in each (common random
numbers), plays the hand out with ``rollout_policy`` at every seat, and plays the action with
the highest mean of ``Analysis.analysis_fields(env)[0]`` (expected chips, or points).  It is
a policy like any other: ``sf.rollout``, ``sf.evaluate``, ``sf.score_hands``,
``sf.play_sessions`` and the play loops accept it.  ``pimc(num_samples=...,
rollout_policy=...)`` without an env returns an *unbound* bot: a policy spec that every tool
binds to its own env (``tools.policies.resolve_one`` calls ``bind(env)``); calling an unbound
bot directly is a ``ValueError``.

Four levers change what the bot chooses (which worlds it searches, how it values a world,
``PimcPolicy.scores`` and ``choose``), each measured alone in ``benchmarks/best_bot.py``:

- ``tie_break``: a policy whose choice wins a tie of the scores (equal up to float32's
  rounding, ``TIE_TOLERANCE``; otherwise the first legal action wins it: in Spoil Five,
  every card of a hand the player cannot win is worth the same lost ante);
- ``solve_tricks``: in a game with the ``EndgameSolve`` capability (the Forty-Five family),
  each world's last ``solve_tricks`` tricks (``"all"``: the whole play) are solved exactly
  (minimax for the bot's team, every hand in view; ``sf.solve``) instead of played out by
  ``rollout_policy``;
- ``carry_share``: in a game whose analysis reports ``spoil_prob`` and whose states carry a
  ``pot`` (Spoil Five), a hand nobody wins is worth ``carry_share * pot / N`` more to the bot:
  the spoiled pot is carried to the next hand, where it is one seat's share of what is won.

- ``infer_worlds``: in a game with the ``Inference`` capability (the Forty-Five family),
  that many worlds are drawn and ``num_samples`` kept, drawn without replacement in proportion
  to how likely each makes the other seats' plays under ``infer_model`` (``play_model``: a
  built-in policy softened by ``softness``, or a loaded agent's distribution).

``sf.best_policy`` (``tools.best``) is this bot with the levers that measured stronger.

Game-generic: it calls only the env methods listed in ``tools.analysis``.
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, HandState, R, S
from spoilfive_jax.tools.analysis import DEFAULT_SOFTNESS, block_values, play_model
from spoilfive_jax.tools.levers import (
    ALL_TRICKS,
    CARRY_FIELD,
    check_infer_model,
    check_inference,
    check_levers,
    check_rollout_policy,
    check_solve_policy,
    check_solve_tricks,
)
from spoilfive_jax.tools.policies import PolicySpec, bind, resolve_one

DEFAULT_SAMPLES = 64  # the strength-vs-samples curve: benchmarks/pimc_strength.py
TIE_TOLERANCE = 1e-6  # scores within this fraction of the best one (at least 1) are tied:
#   float32's rounding of equal sums, far below a real difference of the means


@dataclasses.dataclass(frozen=True)
class PimcPolicy:
    """``policy(key, state, player) -> action`` for one hand (vmap it for a batch).

    Hashable and frozen, so jitted callers compile it once per (env, num_samples, rollout).
    When a decision has one legal action it is still sampled (the cost is the same under vmap).
    """

    env: Any  # None: unbound, a spec that the tools bind to their env (``bind``)
    num_samples: int = DEFAULT_SAMPLES
    rollout_policy: PolicySpec = "heuristic"
    see_all: bool = False  # every world is the true deal: the cheating bound
    tie_break: Any = None  # a policy whose choice wins a tie (None: the first action)
    carry_share: float = 0.0  # a spoil is worth carry_share * pot / N more (Spoil Five)
    name: str = ""  # what tables call it ("" : pimc<samples>)
    solve_tricks: int | str = 0  # the last tricks of each world solved exactly ("all": all)
    infer_worlds: int = 0  # worlds drawn, num_samples kept by the plays' likelihood (Inference)
    infer_model: Any = "heuristic"  # how the other seats are modelled (``play_model``)
    softness: float = DEFAULT_SOFTNESS  # the share of each modelled play spread evenly

    @property
    def __name__(self) -> str:  # tournament tables name policies by ``__name__``
        return (self.name or f"pimc{self.num_samples}") + ("-sees-all" if self.see_all else "")

    def bind(self, env: Env[S, R]) -> PimcPolicy:
        """This bot for ``env``: an unbound bot takes ``env``; a bound one must already be for an
        equal env (``ValueError`` otherwise, rather than searching another game's rules)."""
        if self.env is None:
            rollout_policy = bind(env, self.rollout_policy)
            check_rollout_policy(env, rollout_policy)
            tie_break = None if self.tie_break is None else bind(env, self.tie_break)
            infer_model = bind(env, self.infer_model)
            check_levers(
                env,
                tie_break,
                self.carry_share,
                self.solve_tricks,
                rollout_policy,
                self.infer_worlds,
            )
            check_infer_model(env, infer_model)
            return dataclasses.replace(
                self,
                env=env,
                rollout_policy=rollout_policy,
                tie_break=tie_break,
                infer_model=infer_model,
            )
        if self.env != env:
            raise ValueError(
                f"this pimc bot was made for {self.env!r}, not {env!r}; use sf.pimc(env, ...) "
                "with the tool's env, or sf.pimc(num_samples=...) without one"
            )
        return self

    def __call__(self, key: jax.Array, state: HandState, player: jax.Array) -> jax.Array:
        if self.env is None:
            raise ValueError(
                "this pimc bot has no env: pass one (sf.pimc(env, ...)) or hand the bot to a "
                "tool (sf.rollout, sf.evaluate, sf.score_hands, sf.play_sessions), which binds it"
            )
        del player  # the analysis is for ``state.current_player``
        width = int(self.env.capability(caps.Analysis, "pimc").max_legal_actions(self.env))
        states = jax.tree.map(lambda x: jnp.asarray(x)[None], state)
        values, actions, used = block_values(
            self.env,
            self.rollout_policy,
            width,
            self.num_samples,
            key[None],
            states,
            self.see_all,
            self.solve_tricks,
            self.infer_worlds,
            play_model(self.env, self.infer_model, self.softness) if self.infer_worlds else None,
        )
        means = {f: v[0].mean(0) for f, v in values.items()}  # [width]
        return actions[0, self.choose(key, state, means, actions[0], used[0])]

    def describe(self, worlds: bool = True) -> str:
        """The bot in words: its worlds (unless ``worlds=False``), playouts and levers."""
        words = [f"pimc, {self.num_samples} worlds a decision"] if worlds else []
        words.append(f"{_name(self.rollout_policy)} playouts")
        if self.infer_worlds:
            words.append(
                f"kept from {self.infer_worlds} by how likely they make the other seats' plays "
                f"(the {_name(self.infer_model)}"
                f"{'' if isinstance(self.infer_model, str) else ' agent'}, "
                f"softness {self.softness:g})"
            )
        if self.solve_tricks == ALL_TRICKS:
            words.append("the whole play solved exactly")
        elif self.solve_tricks:
            last = "trick" if self.solve_tricks == 1 else f"{self.solve_tricks} tricks"
            words.append(f"the last {last} solved exactly")
        if self.tie_break is not None:
            words.append(f"ties to the {_name(self.tie_break)}")
        if self.carry_share:
            share = "its share" if self.carry_share == 1 else f"{self.carry_share:g} shares"
            words.append(f"a spoil worth {share} of the pot")
        if self.see_all:
            words.append("seeing every hand")
        return ", ".join(words)

    def scores(self, state: Any, means: dict[str, Any]) -> jax.Array:
        """What the bot maximises over some actions of one hand's ``state`` (jittable;
        ``means``: each analysis field's mean value of those actions, float[K]): the first
        field, plus ``carry_share * pot / N`` times the chance of a spoil (module docstring)."""
        fields = self.env.capability(caps.Analysis, "pimc").analysis_fields(self.env)
        score = jnp.asarray(means[fields[0]], jnp.float32)
        if self.carry_share:
            n = self.env.num_players
            carried = jnp.asarray(state.pot, jnp.float32) * self.carry_share / n
            score = score + carried * jnp.asarray(means[CARRY_FIELD], jnp.float32)
        return score

    def choose(
        self, key: jax.Array, state: Any, means: dict[str, Any], actions: Any, used: Any
    ) -> jax.Array:
        """The index into ``actions`` int[K] (those with ``used`` bool[K]) that the bot plays:
        the highest ``scores``; among scores tied with it (within ``TIE_TOLERANCE``), the
        action ``tie_break`` would play if it is one of them, else the first (jittable).  The
        hint chooses from the analysis's table with it too."""
        score = jnp.where(used, self.scores(state, means), -jnp.inf)
        best = jnp.argmax(score)
        if self.tie_break is None:
            return best
        top = score[best]
        tied = used & (score >= top - TIE_TOLERANCE * jnp.maximum(1.0, jnp.abs(top)))
        policy = resolve_one(self.env, self.tie_break)[1]
        tie_key = jax.random.fold_in(key, 2)  # (0 and 1 draw the worlds and the playouts)
        choice = policy(tie_key, state, jnp.maximum(state.current_player, 0))
        favoured = tied & (jnp.asarray(actions) == choice)
        return jnp.where(favoured.any(), jnp.argmax(favoured), best)


def pimc(
    env: Env[S, R] | None = None,
    num_samples: int = DEFAULT_SAMPLES,
    rollout_policy: PolicySpec = "heuristic",
    *,
    see_all: bool = False,
    tie_break: Any = None,
    carry_share: float = 0.0,
    name: str = "",
    solve_tricks: int | str = 0,
    infer_worlds: int = 0,
    infer_model: Any = "heuristic",
    softness: float = DEFAULT_SOFTNESS,
) -> PimcPolicy:
    """The PIMC bot (module docstring): ``num_samples`` worlds per decision, ``rollout_policy``
    (``"heuristic"``, each game's own; ``"greedy"`` in the family; ``"random"``; or a jittable
    policy) playing every seat in the rollouts.  ``env=None``: an unbound bot, which the tools
    bind to theirs.  The rollout policy is checked here (and again when an unbound bot is
    bound): a name the game does not know is a ``ValueError`` now, not when the bot first
    plays (``check_rollout_policy``).  ``see_all=True`` cheats: every world is the true deal
    (the other hands included), so the bot's margin over the fair one sizes what the hidden
    cards cost it (the cheating bound).  ``tie_break`` (a policy, e.g. ``"heuristic"``) and
    ``carry_share`` (a number >= 0; Spoil Five) change what the bot maximises (module
    docstring); ``solve_tricks`` (an integer >= 0, or ``"all"``: the whole hand; the Forty-Five
    family) solves each world's last tricks exactly; ``infer_worlds`` (an integer >= 0; a game
    with the ``Inference`` capability) draws that many worlds and keeps ``num_samples`` of them
    by how likely they make the other seats' plays under ``infer_model`` (a built-in policy
    name such as ``"heuristic"``, or a loaded agent: ``play_model``) softened by ``softness``
    (in [0, 1]: the share of each play spread evenly over the legal moves); ``name`` is what
    tables call the bot."""
    if isinstance(env, (int, np.integer)) and not isinstance(env, bool):
        raise ValueError(
            f"pimc's first argument is the env; pass the samples as num_samples={env!r}"
        )
    if isinstance(num_samples, bool) or int(num_samples) < 1:
        raise ValueError(f"num_samples must be an integer >= 1, got {num_samples!r}")
    if not isinstance(see_all, bool):
        raise ValueError(f"see_all must be True or False, got {see_all!r}")
    if isinstance(carry_share, bool) or not isinstance(carry_share, numbers.Real):
        raise ValueError(f"carry_share must be a number >= 0, got {carry_share!r}")
    if not carry_share >= 0 or carry_share == float("inf"):
        raise ValueError(f"carry_share must be a finite number >= 0, got {carry_share!r}")
    solve_tricks = check_solve_tricks(solve_tricks)
    check_solve_policy(solve_tricks, rollout_policy)  # (no env needed)
    check_inference(infer_worlds, softness, int(num_samples))
    if not isinstance(name, str):
        raise ValueError(f"name must be a string, got {name!r}")
    if isinstance(tie_break, PimcPolicy):
        raise ValueError("pimc: tie_break must be a cheap policy, not a search bot")
    bot = PimcPolicy(
        None,
        int(num_samples),
        rollout_policy,
        see_all,
        tie_break,
        float(carry_share),
        name,
        solve_tricks,
        int(infer_worlds),
        infer_model,
        float(softness),
    )
    if env is None:  # checked as far as no env allows; ``bind`` checks the rest
        check_rollout_policy(None, rollout_policy)
        if tie_break is not None:
            check_rollout_policy(None, tie_break, "tie_break")
        check_infer_model(None, infer_model)
        return bot
    if not isinstance(env, Env):
        raise ValueError(f"pimc's env must be a game environment (sf.make(...)), got {env!r}")
    env.capability(caps.Analysis, "pimc")  # a game without position analysis: named now
    return bot.bind(env)


def _name(policy: PolicySpec) -> str:
    """A policy's name in words: a built-in's name, else its ``__name__``."""
    return policy if isinstance(policy, str) else getattr(policy, "__name__", "custom policy")
