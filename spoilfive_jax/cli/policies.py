"""Policies named on the command line: a game's built-in policy, ``best`` (the strongest the
project has, ``sf.best_policy``), ``pimc`` / ``pimc:K`` (the search bot, ``sf.pimc``, K samples
a decision) or ``agent:PATH``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spoilfive_jax.cli.errors import CliError
from spoilfive_jax.cli.output import words
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, R, S

AGENT_PREFIX = "agent:"
AGENT_SUFFIXES = (".npz", ".msgpack")
PIMC = "pimc"
BEST = "best"


def pimc_policy(spec: str, env: Env[S, R]) -> Any:
    """``pimc`` (the default samples a decision) or ``pimc:K``: the PIMC bot of ``env``
    (``tools.pimc``), rolling out with the game's baseline."""
    from spoilfive_jax.tools.pimc import DEFAULT_SAMPLES, pimc

    rest = spec[len(PIMC) :]
    samples = DEFAULT_SAMPLES
    if rest:
        text = rest[1:] if rest.startswith(":") else ""
        if not text.isdigit() or int(text) < 1:
            raise CliError(f"bad policy {spec!r}: use pimc or pimc:K with K samples >= 1")
        samples = int(text)
    try:
        env.capability(caps.Analysis, "analyze").max_legal_actions(env)
    except NotImplementedError:
        raise CliError(f"--game {env.id} has no position analysis, so no pimc bot") from None
    return pimc(env, samples)


def load_agent(path: str) -> Any:
    """A trained agent through ``spoilfive_jax.rl.agent.load_policy`` (extra ``rl``)."""
    p = Path(path)
    if p.suffix not in AGENT_SUFFIXES:
        raise CliError(f"an agent file must end in .npz or .msgpack, got {path!r}")
    if not p.is_file():
        raise CliError(f"agent file not found: {path}")
    try:  # the RL extra (flax, optax) loads only when an agent is asked for
        from spoilfive_jax.rl import agent as module
    except ModuleNotFoundError as e:
        if e.name not in (None, "spoilfive_jax.rl.agent"):
            raise CliError(
                f"loading an agent needs the module {e.name!r}: pip install 'spoilfive-jax[rl]'"
            ) from None
        raise CliError(
            "agent policies need spoilfive_jax.rl.agent (the RL module), which this installation "
            "does not have"
        ) from None
    try:
        return module.load_policy(str(p))
    except CliError:
        raise
    except ValueError as e:
        if "is not an agent saved by this project" in str(e):  # the library's words, and why
            raise CliError(str(e)) from None
        raise CliError(
            f"{path} is not an agent saved by this project (spoilfive_jax.rl.agent.save_agent "
            "or examples/train_ppo.py)"
        ) from None
    except Exception:  # numpy/msgpack/flax errors: the file is not what it claims to be
        raise CliError(
            f"{path} is not an agent saved by this project (spoilfive_jax.rl.agent.save_agent "
            "or examples/train_ppo.py)"
        ) from None


def check_agent(policy: Any, env: Env[S, R]) -> Any:
    """A loaded agent bound to ``env`` (``AgentPolicy.bind``): an agent of another game or
    table size is a one-line error before any work ("this agent plays spoil_five, not
    forty_five")."""
    binder = getattr(policy, "bind", None)
    if not callable(binder):
        return policy
    try:
        return binder(env)
    except ValueError as e:
        raise CliError(str(e)) from None


def resolve(spec: str, env: Env[S, R], cache: dict[str, Any]) -> Any:
    """A built-in policy name of ``env`` (passed on as is), ``best`` (``sf.best_policy``),
    ``pimc[:K]`` (the search bot) or ``agent:PATH`` (loaded once)."""
    spec = spec.strip()
    if spec in env.policy_names:
        return spec
    if spec == BEST:
        from spoilfive_jax.tools.best import best_policy

        return best_policy(env)
    if spec == PIMC or spec.startswith(PIMC + ":"):
        return pimc_policy(spec, env)
    if spec.startswith(AGENT_PREFIX):
        path = spec[len(AGENT_PREFIX) :]
        if path not in cache:
            cache[path] = load_agent(path)
        return check_agent(cache[path], env)
    names = ", ".join(env.policy_names)
    raise CliError(
        f"unknown policy {spec!r} for --game {env.id}; use {names}, best, pimc[:K] or "
        "agent:PATH.npz"
    )


def builtin_or_agent(spec: str, env: Env[S, R]) -> Any:
    """A policy function for ``spec`` (terminal play needs functions, not names)."""
    policy = resolve(spec, env, {})
    return env.builtin_policy(policy) if isinstance(policy, str) else policy


def seat_policies(text: str | None, env: Env[S, R]) -> tuple[list[Any], list[str]]:
    """One spec for every seat or one per seat, comma-separated: (policies, names)."""
    n = env.num_players
    text = text or words(env).default_policy(env)
    names = [s.strip() for s in text.split(",")]
    if len(names) == 1:
        names = names * n
    if len(names) != n or not all(names):
        raise CliError(f"--policy needs one policy or one per seat ({n}), got {text!r}")
    cache: dict[str, Any] = {}
    return [resolve(s, env, cache) for s in names], names
