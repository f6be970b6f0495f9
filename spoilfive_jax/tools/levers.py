"""The checks of the search bot's levers (``sf.pimc``'s and ``sf.analyze``'s arguments): each
a ``ValueError`` naming the argument, raised when the bot is built or bound, not when it first
plays.  Both ``tools.pimc`` and ``tools.analysis`` use them (so neither imports the other's
checks)."""

from __future__ import annotations

import numbers
from typing import Any

import jax
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, R, S
from spoilfive_jax.registry import available_games, make
from spoilfive_jax.tools.policies import PolicySpec, resolve_one

CARRY_FIELD = "spoil_prob"  # the analysis field of "nobody takes the pot" (``carry_share``)
ALL_TRICKS = "all"  # ``solve_tricks``: the whole hand solved


def check_inference(infer_worlds: Any, softness: Any, kept: int = 0) -> None:
    """``ValueError`` for an ``infer_worlds`` that is not an integer >= 0, or not more than
    the ``kept`` worlds it is to choose from (then it would weigh nothing), or a ``softness``
    that is not a number in [0, 1]."""
    if isinstance(infer_worlds, bool) or not isinstance(infer_worlds, (int, np.integer)):
        raise ValueError(f"infer_worlds must be an integer >= 0, got {infer_worlds!r}")
    if infer_worlds < 0:
        raise ValueError(f"infer_worlds must be an integer >= 0, got {infer_worlds!r}")
    if 0 < infer_worlds <= kept:
        raise ValueError(
            f"infer_worlds must be 0 (no inference) or more than the {kept} worlds it keeps, "
            f"got {infer_worlds!r}"
        )
    if isinstance(softness, bool) or not isinstance(softness, numbers.Real):
        raise ValueError(f"softness must be a number in [0, 1], got {softness!r}")
    if not 0 <= float(softness) <= 1:
        raise ValueError(f"softness must be a number in [0, 1], got {softness!r}")


def check_levers(
    env: Env[S, R],
    tie_break: Any,
    carry_share: float,
    solve_tricks: int | str = 0,
    rollout_policy: PolicySpec = "heuristic",
    infer_worlds: int = 0,
    who: str = "pimc",
) -> None:
    """``ValueError`` for a lever ``env``'s game cannot take: a tie-break it cannot resolve;
    ``carry_share`` without an analysis field ``spoil_prob`` (a hand nobody wins) and states
    with a ``pot``; ``solve_tricks`` (a number of tricks, or ``"all"``) without the
    ``EndgameSolve`` capability, above its ``max_solve_tricks``, or with a rollout policy that
    is not a built-in name;
    ``infer_worlds`` without the ``Inference`` capability.  ``who``: the caller the messages
    name (``pimc``, ``analyze``)."""
    if infer_worlds:
        env.capability(caps.Inference, f"{who}'s infer_worlds")
    if solve_tricks:
        solver = env.capability(caps.EndgameSolve, f"{who}'s solve_tricks")
        top = solver.max_solve_tricks(env)
        if solve_tricks != ALL_TRICKS and int(solve_tricks) > top:
            raise ValueError(
                f"{who}: solve_tricks is at most {top} (or {ALL_TRICKS!r}) for {env.id} at "
                f"{env.num_players} players, got {solve_tricks}"
            )
        check_solve_policy(solve_tricks, rollout_policy)
    if tie_break is not None:
        check_rollout_policy(env, tie_break, "tie_break", who)
    if carry_share:
        fields = env.capability(caps.Analysis, who).analysis_fields(env)
        if CARRY_FIELD not in fields:
            raise ValueError(
                f"{who}: carry_share needs a game whose hands can be spoiled and carried; "
                f"{env.id}'s analysis has no {CARRY_FIELD} field ({', '.join(fields)})"
            )
        shape = jax.eval_shape(env.init, jax.random.PRNGKey(0))
        if not hasattr(shape, "pot"):
            raise ValueError(f"{who}: carry_share needs states with a pot; {env.id}'s have none")


def check_infer_model(env: Env[S, R], model: Any, who: str = "pimc") -> None:
    """``ValueError`` for an ``infer_model`` the bot cannot weigh plays by: ``"random"`` (say
    ``softness=1`` for random play), a name ``env`` does not know, or something that is neither
    a name nor a policy with ``action_probs``.  ``who``: the caller the message names."""
    if hasattr(model, "action_probs"):
        return
    if not isinstance(model, str):
        raise ValueError(
            f"{who}: infer_model must be a built-in policy name (e.g. 'heuristic') or a loaded "
            f"agent's policy (sf.load_policy), got {model!r}"
        )
    if model == "random":
        raise ValueError(f"{who}: infer_model 'random' weighs nothing; use softness=1 instead")
    check_rollout_policy(env, model, "infer_model", who)


def check_rollout_policy(
    env: Env[S, R], policy: PolicySpec, what: str = "rollout_policy", who: str = "pimc"
) -> None:
    """``ValueError`` now, when the bot is built or bound, for a rollout policy it could not
    play with (rather than when it first plays): with an env, one the env cannot resolve (a
    name it does not know, ``"greedy"`` for Spoil Five, a non-callable); without one, a name
    no registered game knows or something that is not a policy spec.  ``what``: the argument's
    name in the message (``tie_break`` is checked the same way); ``who``: the caller's."""
    if env is not None:
        try:
            resolve_one(env, policy)
        except ValueError as e:
            raise ValueError(f"{who}: bad {what} for {env.id}: {e}") from None
        return
    if isinstance(policy, str):
        known = sorted({p for g in available_games() for p in _policy_names(g)})
        if known and policy not in known:
            raise ValueError(
                f"{who}: {what} {policy!r} is not a built-in policy of any game "
                f"({', '.join(known)}); give one of those or a jittable policy(key, state, player)"
            )
    elif not callable(policy):
        raise ValueError(
            f"{who}: {what} must be a built-in policy name or a jittable "
            f"policy(key, state, player), got {policy!r}"
        )


def _policy_names(game: str) -> tuple[str, ...]:
    """The built-in policy names of ``game``'s default table (none if it cannot be made)."""
    try:
        return tuple(make(game).policy_names)
    except Exception:  # a plugin that cannot build its default table names nothing here
        return ()


def check_solve_tricks(solve_tricks: Any) -> int | str:
    """``solve_tricks`` checked: an integer >= 0 (0: no solve) or ``"all"`` (the whole hand,
    returned as it is: the game's solver knows how many tricks that is); ``ValueError`` else."""
    if isinstance(solve_tricks, str) and solve_tricks == ALL_TRICKS:
        return solve_tricks
    integral = isinstance(solve_tricks, (int, np.integer)) and not isinstance(solve_tricks, bool)
    if not integral or solve_tricks < 0:
        raise ValueError(
            f"solve_tricks must be an integer >= 0 or {ALL_TRICKS!r}, got {solve_tricks!r}"
        )
    return int(solve_tricks)


def check_solve_policy(solve_tricks: int | str, rollout_policy: PolicySpec) -> None:
    """A solve runs on the game's rollout kernel: its rollout policy must be a built-in name."""
    if solve_tricks and not isinstance(rollout_policy, str):
        raise ValueError(
            "pimc: solve_tricks needs a built-in rollout_policy (a name such as "
            f"'heuristic': the solve runs on the game's kernel), got {rollout_policy!r}"
        )
