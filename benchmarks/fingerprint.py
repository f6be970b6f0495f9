"""A behaviour fingerprint of the whole library: same keys, bit-identical results.

What it is for: a refactor (of the ``Env`` interface, of where names live, of what results are
called) must leave behaviour unchanged.  This script runs the engine and the tools of every game
(``sf.available_games()``) with fixed seeds at small sizes and records, for every output array,
its dtype, shape and the SHA-256 of its bytes, as a JSON dict
``{case_name: {field: "dtype [shape] sha256"}}``.  Run it before the refactor (the baseline,
``benchmarks/fingerprint_baseline.json``, was made at the commit named in its ``"_meta"``) and
after it with ``--compare``: any field present in both runs whose bytes differ is a change of
behaviour.

Cases (``game/table/tool``; ``--list`` prints them).  Two tables per game (``TABLES``: table
sizes and rule options); both run the engine cases and the second one rollout, the first runs
the tools of ``TOOLS``:

- ``init``: ``jax.jit(env.init)`` of three keys, ``env.init_from_deck``;
- ``playout``: random legal play of 8 hands (dealers 0, 1, ...) from ``jax.vmap(env.init)``
  through ``jax.vmap(env.step)`` in a ``lax.scan`` to the end: every leaf of the stacked states
  by its pytree path (``states.<path>``, ``final.<path>``), the actions, the public attributes
  every game has (``public.current_player``, ``terminated``, ``rewards``, ``tricks_won``,
  ``legal_action_mask``, ``phase``, ``illegal``, ``truncated``, ``observation``),
  ``env.observe`` of every seat and ``env.observe_full`` at every step;
- ``legal_actions``: ``env.legal_actions`` and ``env.action_str`` at every step of two hands;
- ``rollout_<policy>``: ``sf.rollout`` with one built-in policy at every seat: the result's
  fields, ``summary()``, ``hands_won()``; ``rollout_mixed``: every built-in cycled over the
  seats, dealer 1 (Spoil Five: 2 chips carried); ``rollout_callable``: a jitted Python policy
  with the heuristic (the public-step path); ``pimc``: a rollout with the search bot;
- ``evaluate`` (every built-in, seats rotated), ``score`` (``sf.score_hands`` of three hands;
  Spoil Five also in its ``num_players``/``rules`` form), ``sessions`` (``sf.play_sessions``:
  Spoil Five chip sessions, the family whole games), ``analyze`` (``sf.analyze`` of a position
  from ``env.position_from_history(text)``, or reached by stepping, and the position's leaves),
  ``auto_reset`` (its step in a scan over several hands), ``pettingzoo`` (the AEC wrapper
  through two hands);
- ``cli/...``: the JSON of ``spoilfive rollout`` and ``spoilfive score`` at tiny sizes, run as
  ``python -m spoilfive_jax`` in subprocesses (in a thread, alongside the other cases).

Timing fields (``seconds``, ``*_per_s``, ...) are dropped everywhere; Python floats are hashed as
float64 bytes, so numbers are compared exactly.  The script imports the ``spoilfive_jax`` of
the checkout it lives in (its parent directory goes first on ``sys.path``; the CLI subprocesses
get it as ``PYTHONPATH``), not an installed copy.

The default run leaves out the cases of ``FULL_ONLY``: 46 cases, about 280 s of CPU time, nearly
all of it XLA compiles (measured: 6.5 minutes on this project's 2-core machine while other jobs
kept its load near 5; about 3 minutes expected on the quiet machine, where compiles use both
cores); ``--full`` runs all 61 cases (about 350 s of CPU; 9 to 12 minutes under that load).  The
baseline holds every case.

Results are read generically (dataclass fields, ``vars()``, dict items; nested names are joined
with ``.``, list items as ``[i]``), and every case runs inside ``try``: a case that fails is
recorded as ``{"error": "<message>"}`` and the others still run.

    python benchmarks/fingerprint.py --full --out benchmarks/fingerprint_baseline.json  # baseline
    python benchmarks/fingerprint.py --compare benchmarks/fingerprint_baseline.json  # (--full)
    python benchmarks/fingerprint.py --compare BASE.json --only spoil_five/n3/ --only cli/
    python benchmarks/fingerprint.py --compare BASE.json --rename mean_chips=mean_reward \\
        --rename renames.json                  # a JSON object {"OLD": "NEW", ...}

``--compare`` prints, per case, the fields that differ, are missing from this run or are new in
it, and exits 1 when a field present in both differs, when a case fails now with an error it did
not have before, or when a case meant to run gave nothing; missing and new fields alone fail
only with ``--strict`` (cases of the baseline this run did not select are not compared).

``--rename OLD=NEW`` (repeatable, or a JSON file of such pairs) maps the baseline's names to this
run's before comparing, for deliberate renames: OLD equal to a case name renames that case; OLD
with a ``.`` or ``[`` renames a field path and everything under it
(``fields.rewards=rewards``); a plain OLD renames that component of every field path
(``mean_chips=mean_reward`` turns ``summary.mean_chips`` into ``summary.mean_reward``; an empty
NEW removes the component: ``fields=`` turns ``fields.rewards`` into ``rewards``).

``--only SUBSTRING`` (repeatable) runs only the cases whose name contains one of them (cases
of ``FULL_ONLY`` included).  ``--out FILE`` writes the fingerprint, with a ``"_meta"`` entry
(commit, date, versions, platform) that ``--compare`` ignores.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import functools
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # fingerprint the checkout this script is in, not an installed copy

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import spoilfive_jax as sf  # noqa: E402

BASELINE = Path(__file__).resolve().parent / "fingerprint_baseline.json"

# Every game's tables: (label, num_players, rule options of ``sf.make``).  The first of each game
# runs every tool; the second the engine cases and one rollout.
TABLES: dict[str, list[tuple[str, int, dict[str, Any]]]] = {
    "spoil_five": [
        ("n3", 3, {}),
        (
            "n5_traditional",
            5,
            {
                "follow": "traditional",
                "renege": "led",
                "rob": "forced",
                "ante_after_spoil": "dealer",
            },
        ),
    ],
    "forty_five": [("n4", 4, {}), ("n6_joker", 6, {"joker": True, "jink": "announced"})],
    "twenty_five": [("n4", 4, {}), ("n3_trick", 3, {"renege": "trick", "rob": "forced"})],
    "auction_forty_fives": [("n4", 4, {}), ("n6_joker", 6, {"joker": True})],
}
# The public attributes every game's State has (recorded at every step of the playout).
PUBLIC = (
    "current_player",
    "terminated",
    "truncated",
    "rewards",
    "tricks_won",
    "legal_action_mask",
    "phase",
    "illegal",
    "observation",
)
# The tools run at the first table of each game (the second table runs the engine cases and one
# rollout).  Compiles dominate the run time, so the three games of the Forty-Five family, which
# share one class (``FortyFive``, their rules differ), split the tools between them: Forty-Five
# runs each tool, Twenty-Five and Auction the ones whose code their rules change.
TOOLS = {
    "spoil_five": (
        "rollout_each", "rollout_mixed", "rollout_callable", "evaluate", "score", "sessions",
        "analyze", "pimc", "auto_reset", "pettingzoo",
    ),
    "forty_five": (
        "rollout_each", "rollout_mixed", "rollout_callable", "evaluate", "score", "sessions",
        "analyze", "pimc", "auto_reset", "pettingzoo",
    ),
    "twenty_five": ("rollout_mixed", "evaluate"),
    "auction_forty_fives": ("rollout_mixed", "evaluate", "score", "analyze"),
}  # fmt: skip
# Cases only ``--full`` (or an ``--only`` that names them) runs, to keep the default run short
# (module docstring); the baseline has them all.
FULL_ONLY = (
    "spoil_five/n3/auto_reset",
    "forty_five/n4/rollout_random",
    "forty_five/n4/rollout_greedy",
    "forty_five/n4/pimc",
    "forty_five/n4/auto_reset",
    "twenty_five/n3_trick/",
    "auction_forty_fives/n4/score",
    "auction_forty_fives/n4/analyze",
    "auction_forty_fives/n6_joker/",
)
HANDS = 256  # rollouts and tournaments (one compiled shape)
CALLABLE_HANDS = 64  # the public-step path (a Python policy)
PLAYOUT_BATCH = 8
TIMING = re.compile(r"^(seconds|elapsed|wall_s|compile_s|time_s)$|_per_s$|_seconds$")
SUITS, RANKS = "CDHS", "A23456789TJQK"


# ------------------------------------------------------------------------ digests


def _array_digest(x: Any) -> str:
    a = np.asarray(x)
    if a.dtype == object:
        raise TypeError(f"cannot hash an object array of shape {a.shape}")
    shape = "[" + ",".join(str(d) for d in a.shape) + "]"  # "[]" for a scalar
    return f"{a.dtype.name} {shape} {hashlib.sha256(a.tobytes(order='C')).hexdigest()}"


def _text_digest(texts: Sequence[str]) -> str:
    data = json.dumps(list(texts), ensure_ascii=False).encode()
    return f"str [{len(texts)}] {hashlib.sha256(data).hexdigest()}"


def _scalar(v: Any) -> bool:
    return isinstance(v, (bool, int, float, np.generic)) and not isinstance(v, (str, bytes))


def _is_env(v: Any) -> bool:
    return callable(getattr(v, "init", None)) and callable(getattr(v, "step", None))


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def digest(obj: Any, prefix: str = "", out: dict[str, str] | None = None) -> dict[str, str]:
    """``{field: "dtype [shape] sha256"}`` of every array and number in ``obj`` (arrays, numbers,
    strings, dicts, lists, dataclasses, objects with ``__dict__``), named by their path; timing
    fields, environments and callables are left out."""
    out = {} if out is None else out
    last = re.sub(r"\[.*$", "", prefix.rsplit(".", 1)[-1])
    if TIMING.search(last):
        return out
    if obj is None:
        out[prefix] = "None"
    elif isinstance(obj, (np.ndarray, jax.Array)) or _scalar(obj):
        out[prefix] = _array_digest(obj)
    elif isinstance(obj, str):
        out[prefix] = _text_digest([obj]).replace("[1]", "[]", 1)
    elif isinstance(obj, bytes):
        out[prefix] = f"bytes [{len(obj)}] {hashlib.sha256(obj).hexdigest()}"
    elif isinstance(obj, dict):
        for k, v in obj.items():
            digest(v, _join(prefix, str(k)), out)
    elif isinstance(obj, (list, tuple)) and hasattr(obj, "_asdict"):  # a NamedTuple
        digest(obj._asdict(), prefix, out)
    elif isinstance(obj, (list, tuple)):
        if obj and all(isinstance(v, str) for v in obj):
            out[prefix] = _text_digest(obj)
        elif all(_scalar(v) for v in obj):
            out[prefix] = _array_digest(np.asarray(obj))
        else:
            for i, v in enumerate(obj):
                digest(v, f"{prefix}[{i}]", out)
    elif _is_env(obj) or callable(obj):
        pass
    elif dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            digest(getattr(obj, f.name), _join(prefix, f.name), out)
    elif hasattr(obj, "__dict__"):
        digest({k: v for k, v in vars(obj).items() if not k.startswith("_")}, prefix, out)
    else:
        print(f"fingerprint: {prefix}: left out a {type(obj).__name__}", file=sys.stderr)
    return out


def part(out: dict[str, str], prefix: str, fn: Callable[[], Any], tree: bool = False) -> None:
    """Digest ``fn()`` under ``prefix`` (``tree``: as a pytree, ``tree_digest``); if it raises,
    record ``<prefix>.error`` instead, so one part of a case failing leaves the case's other
    fields compared."""
    try:
        value = fn()
    except Exception as e:
        out[_join(prefix, "error")] = f"{type(e).__name__}: {e}"
    else:
        (tree_digest if tree else digest)(value, prefix, out)


def tree_digest(tree: Any, prefix: str, out: dict[str, str]) -> dict[str, str]:
    """Every leaf of a pytree (a State), named by its path."""
    leaves, _ = jax.tree_util.tree_flatten_with_path(tree)
    for path, leaf in leaves:
        out[prefix + jax.tree_util.keystr(path)] = _array_digest(leaf)
    return out


# ------------------------------------------------------------------------ helpers


def cards(text: str) -> list[int]:
    """Card ids of ``"5H JH 10D"`` (``suit * 13 + rank``; local, so no library name is used)."""
    out = []
    for t in text.split():
        rank, suit = t[:-1].upper().replace("10", "T"), t[-1].upper()
        out.append(SUITS.index(suit) * 13 + RANKS.index(rank))
    return out


@functools.cache
def table(game: str, label: str) -> Any:
    for lab, n, options in tables_of(game):
        if lab == label:
            return sf.make(game, n, **options) if n else sf.make(game)
    raise KeyError(label)


def tables_of(game: str) -> list[tuple[str, int | None, dict[str, Any]]]:
    """A game's tables: ``TABLES``, or for a game it does not name its default table."""
    return TABLES.get(game) or [("default", None, {})]  # type: ignore[return-value]


def _pick_random(key: jax.Array, mask: jax.Array) -> jax.Array:
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf)).astype(jnp.int32)


@jax.jit
def random_policy(key: jax.Array, state: Any, player: jax.Array) -> jax.Array:
    """A jitted Python policy (uniform over the legal actions): plays on the public step."""
    del player
    return _pick_random(key, state.legal_action_mask)


def _public(state: Any, names: Sequence[str] = PUBLIC) -> dict[str, jax.Array]:
    """The public attributes of one hand's state (those it has)."""
    out = {}
    for name in names:
        with contextlib.suppress(AttributeError):
            out[name] = getattr(state, name)
    return out


@functools.cache
def playout(env: Any) -> Any:
    """Random legal play of ``PLAYOUT_BATCH`` hands (dealers 0, 1, ...) through
    ``jax.vmap(env.step)`` in a ``lax.scan`` of ``max_decisions + 1`` steps: (final states,
    the states before each step [T, B], the actions, the public attributes and the
    observations of each step).  Cached: the legal-actions case reads the same hands."""
    n, steps = env.num_players, env.max_decisions + 1

    def views(s: Any) -> dict[str, Any]:
        return {
            "public": _public(s),
            "observe": jax.vmap(lambda p: env.observe(s, p))(jnp.arange(n, dtype=jnp.int32)),
            "observe_full": env.observe_full(s),
        }

    def run(key: jax.Array) -> Any:
        k_deal, k_play = jax.random.split(key)
        dealers = jnp.arange(PLAYOUT_BATCH, dtype=jnp.int32) % n
        states = jax.vmap(env.init)(jax.random.split(k_deal, PLAYOUT_BATCH), dealers)

        def body(s: Any, k: jax.Array) -> tuple[Any, Any]:
            ks = jax.random.split(k, PLAYOUT_BATCH)
            actions = jax.vmap(_pick_random)(ks, s.legal_action_mask)
            return jax.vmap(env.step)(s, actions), (s, actions, jax.vmap(views)(s))

        keys = jax.random.split(k_play, steps)
        final, (stacked, actions, seen) = jax.lax.scan(body, states, keys)
        return final, stacked, actions, seen

    return jax.device_get(jax.jit(run)(jax.random.PRNGKey(7)))


def _live_state(env: Any, seed: int, decisions: int) -> Any:
    """One hand after ``decisions`` random legal decisions (earlier if it would end)."""
    step = jax.jit(env.step)
    s = jax.jit(env.init)(jax.random.PRNGKey(seed))
    key = jax.random.PRNGKey(seed + 1)
    for _ in range(decisions):
        key, k = jax.random.split(key)
        nxt = step(s, _pick_random(k, s.legal_action_mask))
        if bool(nxt.terminated):
            break
        s = nxt
    return s


# ------------------------------------------------------------------------ cases


def case_init(env: Any, first: bool) -> dict[str, str]:
    out: dict[str, str] = {}
    init = jax.jit(env.init)
    for seed in (0, 1, 2):
        tree_digest(init(jax.random.PRNGKey(seed)), f"init{seed}", out)
    if first:  # (a table without the joker: 52 cards)
        deck = np.random.default_rng(5).permutation(52).astype(np.int32)
        part(out, "from_deck", lambda: env.init_from_deck(deck, 1), tree=True)
    return out


def case_playout(env: Any) -> dict[str, str]:
    final, stacked, actions, seen = playout(env)
    out: dict[str, str] = {}
    tree_digest(stacked, "states", out)
    tree_digest(final, "final", out)
    digest(actions, "actions", out)
    digest(seen["public"], "public", out)
    for p in range(env.num_players):
        digest(seen["observe"][:, :, p], f"observe.seat{p}", out)
    digest(seen["observe_full"], "observe_full", out)
    assert bool(np.asarray(final.terminated).all()), "a playout hand did not end"
    return out


def case_legal_actions(env: Any) -> dict[str, str]:
    """``env.legal_actions`` and ``env.action_str`` at every decision of two playout hands."""
    _, stacked, _, _ = playout(env)
    out: dict[str, str] = {}
    for hand in (0, 1):
        legal, texts = [], []
        for t in range(env.max_decisions + 1):
            s = jax.tree.map(lambda x, t=t, h=hand: x[t, h], stacked)
            legal.append([int(a) for a in env.legal_actions(s)])
            texts.append([env.action_str(a) for a in legal[-1]])
        out[f"hand{hand}.legal_actions"] = _text_digest([json.dumps(x) for x in legal])
        out[f"hand{hand}.action_text"] = _text_digest(
            [json.dumps(x, ensure_ascii=False) for x in texts]
        )
    return out


def _rollout_digest(res: Any) -> dict[str, str]:
    out = digest(res)
    part(out, "summary", res.summary)
    part(out, "hands_won", res.hands_won)
    return out


def _mixed(env: Any) -> list[str]:
    """Every built-in policy of the game, cycled over the seats."""
    names = list(env.policy_names)
    return [names[i % len(names)] for i in range(env.num_players)]


def case_rollout(env: Any, policy: Any, num_hands: int = HANDS, **options: Any) -> dict[str, str]:
    return _rollout_digest(sf.rollout(jax.random.PRNGKey(21), env, policy, num_hands, **options))


def case_evaluate(env: Any) -> dict[str, str]:
    """Every built-in policy, seats rotated (the compile of ``rollout_mixed`` serves it)."""
    return digest(sf.evaluate(22, env, {p: p for p in env.policy_names}, HANDS))


def case_score(env: Any, game: str) -> dict[str, str]:
    hands = [cards("5H JH AH KD 2C"), cards("2C 3C 4D 6S 7S"), cards("KS QS 7C 8D 3H")]
    turnup = None if game == "auction_forty_fives" else cards("9H")[0]
    policy = "heuristic"
    res = sf.score_hands(23, hands, turnup, 1, env=env, policy=policy, num_rollouts=64)
    out = digest(res)
    if game == "spoil_five":  # the table form (num_players, rules) and per-query seats
        part(out, "by_rules", lambda: sf.score_hands(
            24, hands, turnup, [0, 1, 2], num_players=env.num_players, rules=env.rules,
            policy="heuristic", num_rollouts=64,
        ))  # fmt: skip
    return out


def case_sessions(env: Any, game: str) -> dict[str, str]:
    if game == "spoil_five":
        res = sf.play_sessions(25, env, "heuristic", 16, max_hands=6, stack=9)
    else:
        res = sf.play_sessions(25, env, "greedy", 8, max_hands=12, batch_size=8)
    out = digest(res)
    part(out, "summary", res.summary)
    return out


def case_analyze(env: Any, state: Any, policy: str = "heuristic") -> dict[str, str]:
    res = sf.analyze(26, env, state, num_samples=48, policy=policy)
    out = digest(res)
    part(out, "table", lambda: [res.table()])
    return out


TEXT_POSITIONS = {  # positions given as text, at the first table of the game
    "spoil_five": "players=3; dealer=0; turnup=7D; player=1; hand=5D JH AH KC 4S; history=",
    "forty_five": (
        "players=4; dealer=0; turnup=7D; player=3; hand=8H QS JS 2H 3C; history=1:QC 2:5C"
    ),
}


def case_analyze_position(env: Any, game: str) -> dict[str, str]:
    """A position given as text (``sf.position_from_history``; the method of the env before the
    capabilities), or one reached by stepping."""
    out: dict[str, str] = {}
    if game in TEXT_POSITIONS:
        if hasattr(sf, "position_from_history"):
            state = sf.position_from_history(env, TEXT_POSITIONS[game])
        else:
            state = env.position_from_history(TEXT_POSITIONS[game])
    else:
        state = _live_state(env, 29, 4)
    tree_digest(state, "position", out)
    out.update(case_analyze(env, state))
    return out


def case_pimc(env: Any, game: str) -> dict[str, str]:
    if game == "spoil_five":
        lineup = [sf.pimc(num_samples=2, rollout_policy="random"), "heuristic", "random"]
        return case_rollout(env, lineup, num_hands=4)
    lineup = [sf.pimc(num_samples=2, rollout_policy="greedy"), "greedy"] * 2
    return case_rollout(env, lineup, num_hands=2)


def case_auto_reset(env: Any) -> dict[str, str]:
    step = sf.auto_reset(env.step, env.init)

    def run(key: jax.Array) -> Any:
        def body(s: Any, k: jax.Array) -> tuple[Any, Any]:
            a, b = jax.random.split(k)
            s = step(s, _pick_random(a, s.legal_action_mask), b)
            return s, (s, _public(s, PUBLIC[:-1]))  # (not the observation)

        k0, k1 = jax.random.split(key)
        keys = jax.random.split(k1, 3 * env.max_decisions)
        return jax.lax.scan(body, env.init(k0), keys)[1]

    stacked, public = jax.jit(run)(jax.random.PRNGKey(27))
    out = tree_digest(stacked, "states", {})
    digest(public, "public", out)
    assert int(np.asarray(public["terminated"]).sum()) >= 2, "auto_reset: fewer than 2 hands"
    return out


def case_pettingzoo(game: str, n: int) -> dict[str, str]:
    from spoilfive_jax.rl.pettingzoo import raw_env

    e = raw_env(num_players=n, game=game)
    rec: dict[str, list[Any]] = {"observation": [], "action_mask": [], "reward": [], "done": []}
    actions, infos = [], []
    for episode in range(2):
        e.reset(seed=28 + episode)
        for i, _agent in enumerate(e.agent_iter()):
            obs, reward, terminated, truncated, info = e.last()
            rec["observation"].append(obs["observation"])
            rec["action_mask"].append(obs["action_mask"])
            rec["reward"].append(float(reward))
            rec["done"].append(bool(terminated or truncated))
            if terminated or truncated:
                infos.append(info)
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            a = int(legal[(5 * i + 2) % legal.size])
            actions.append(a)
            e.step(a)
    out = {k: _array_digest(np.stack(v) if k in ("observation", "action_mask") else np.asarray(v))
           for k, v in rec.items()}  # fmt: skip
    out["actions"] = _array_digest(np.asarray(actions))
    digest(infos, "final_info", out)
    return out


# ------------------------------------------------------------------------ the CLI

CLI = {
    "cli/rollout_spoil_five": [
        *("rollout", "--hands", "256", "--players", "3", "--seed", "3"),
        *("--policy", "heuristic,random,random", "--quiet", "--json", "-"),
    ],
    "cli/rollout_forty_five": [
        *("rollout", "--game", "forty_five", "--hands", "256", "--seed", "3"),
        *("--policy", "greedy,random,greedy,random", "--quiet", "--json", "-"),
    ],
    "cli/score_spoil_five": [
        *("score", "5H JH AH KD 2C", "KS QS 7C 8D 3H", "--turnup", "9H", "--seat", "2"),
        *("--players", "3", "--rollouts", "64", "--seed", "3", "--json", "-"),
    ],
    "cli/score_forty_five": [
        *("score", "5H JH AH KD 2C", "KS QS 7C 8D 3H", "--turnup", "9H", "--seat", "1"),
        *("--game", "forty_five", "--policy", "greedy", "--rollouts", "64", "--json", "-"),
    ],
}


class CliRunner(threading.Thread):
    """Runs the CLI commands one after another in subprocesses, alongside the in-process cases."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(daemon=True)
        self.names = names
        self.results: dict[str, dict[str, str]] = {}
        self.done = {name: threading.Event() for name in names}

    def run(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8", COLUMNS="160")
        for name in self.names:
            try:
                proc = subprocess.run(
                    [sys.executable, "-m", "spoilfive_jax", *CLI[name]],
                    capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
                )  # fmt: skip
                if proc.returncode != 0:
                    raise RuntimeError(f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
                self.results[name] = digest(json.loads(proc.stdout))
            except Exception as e:
                self.results[name] = {"error": f"{type(e).__name__}: {e}"}
            self.done[name].set()

    def result(self, name: str) -> dict[str, str]:
        self.done[name].wait()
        return self.results[name]


# ------------------------------------------------------------------------ the list of cases


def cases() -> list[tuple[str, Callable[[], dict[str, str]]]]:
    """(name, thunk) of every case, in run order."""
    out: list[tuple[str, Callable[[], dict[str, str]]]] = []

    def add(name: str, fn: Callable[..., dict[str, str]], *args: Any, **kw: Any) -> None:
        out.append((name, functools.partial(fn, *args, **kw)))

    def env_call(game: str, label: str, fn: Callable[..., dict[str, str]], *a: Any, **kw: Any):
        return lambda: fn(table(game, label), *a, **kw)

    games = list(TABLES)
    with contextlib.suppress(Exception):  # a game TABLES does not name runs at its default table
        games += [g for g in sf.available_games() if g not in TABLES]
    for game in games:
        for t, (label, n, _) in enumerate(tables_of(game)):
            name = f"{game}/{label}"
            tools = TOOLS.get(game, ()) if t == 0 else ()
            add(f"{name}/init", env_call(game, label, case_init, t == 0))
            add(f"{name}/playout", env_call(game, label, case_playout))
            add(f"{name}/legal_actions", env_call(game, label, case_legal_actions))
            try:
                policies = list(table(game, label).policy_names)
            except Exception:  # the case below records the error
                policies = ["heuristic"]
            for p in policies if "rollout_each" in tools else policies[-1:] if t else []:
                add(f"{name}/rollout_{p}", env_call(game, label, case_rollout, p))
            call = {
                "rollout_mixed": lambda env, g=game: case_rollout(
                    env, _mixed(env), dealer=1, **({"carried": 2} if g == "spoil_five" else {})
                ),
                "rollout_callable": lambda env, n=n: case_rollout(
                    env, [random_policy, "heuristic"] * (n // 2) + [random_policy] * (n % 2),
                    CALLABLE_HANDS,
                ),
                "evaluate": case_evaluate,
                "score": lambda env, g=game: case_score(env, g),
                "sessions": lambda env, g=game: case_sessions(env, g),
                "analyze": lambda env, g=game: case_analyze_position(env, g),
                "pimc": lambda env, g=game: case_pimc(env, g),
                "auto_reset": case_auto_reset,
            }  # fmt: skip
            for tool in tools:
                if tool == "pettingzoo":
                    add(f"{name}/pettingzoo", case_pettingzoo, game, n)
                elif tool in call:
                    add(f"{name}/{tool}", env_call(game, label, call[tool]))
    for name in CLI:
        out.append((name, functools.partial(_cli_placeholder, name)))
    return out


def _cli_placeholder(name: str) -> dict[str, str]:  # replaced by the runner in ``run``
    raise RuntimeError(f"{name}: the CLI runner did not start")


def selected(only: Sequence[str] | None = None, full: bool = False) -> list[str]:
    """The names of the cases to run: those whose name contains one of ``only``, else every case
    (``full``) or those not in ``FULL_ONLY``."""
    names = [n for n, _ in cases()]
    if only:
        return [n for n in names if any(s in n for s in only)]
    return [n for n in names if full or not any(s in n for s in FULL_ONLY)]


def run(names: Sequence[str], verbose: bool = True) -> dict[str, dict[str, str]]:
    """Run the named cases and return their digests."""
    chosen = [(n, f) for n, f in cases() if n in set(names)]
    runner = CliRunner([n for n, _ in chosen if n in CLI])
    if runner.names:
        runner.start()
    results: dict[str, dict[str, str]] = {}
    for name, fn in chosen:
        start, cpu = time.perf_counter(), time.process_time()
        try:
            results[name] = runner.result(name) if name in CLI else fn()
        except Exception as e:
            if verbose:
                traceback.print_exc()
            results[name] = {"error": f"{type(e).__name__}: {e}"}
        if verbose:
            status = "ERROR" if "error" in results[name] else f"{len(results[name])} fields"
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            print(f"{name:<44} {wall:6.1f} s ({cpu:5.1f} s cpu)  {status}", file=sys.stderr)
    return results


# ------------------------------------------------------------------------ comparing


def load_renames(specs: Iterable[str]) -> list[tuple[str, str]]:
    """``OLD=NEW`` pairs, or paths of JSON files holding an object of them."""
    pairs: list[tuple[str, str]] = []
    for spec in specs:
        if "=" in spec:
            old, new = spec.split("=", 1)
            pairs.append((old, new))
        else:
            pairs += list(json.loads(Path(spec).read_text()).items())
    return pairs


def rename_field(field: str, renames: Sequence[tuple[str, str]]) -> str:
    for old, new in renames:
        if "." in old or "[" in old:
            if field == old or field.startswith((old + ".", old + "[")):
                field = (new + field[len(old) :]).lstrip(".")
        else:
            parts = []
            for part in field.split("."):
                name, rest = re.match(r"([^\[]*)(.*)", part).groups()  # type: ignore[union-attr]
                if name == old:
                    if not new and not rest:
                        continue
                    part = new + rest
                parts.append(part)
            field = ".".join(parts)
    return field


def apply_renames(
    data: dict[str, dict[str, str]], renames: Sequence[tuple[str, str]]
) -> dict[str, dict[str, str]]:
    """The baseline with its case and field names mapped to the new ones."""
    cases_renamed = {old: new for old, new in renames if old in data}
    fields = [(old, new) for old, new in renames if old not in data]
    out = {}
    for case, values in data.items():
        if case.startswith("_"):
            continue
        out[cases_renamed.get(case, case)] = {rename_field(f, fields): d for f, d in values.items()}
    return out


def compare(
    base: dict[str, dict[str, str]],
    new: dict[str, dict[str, str]],
    renames: Sequence[tuple[str, str]] = (),
    only: Sequence[str] | None = None,
    strict: bool = False,
    out: Any = None,
) -> int:
    """Print the differences of ``new`` from ``base`` per case; 1 if behaviour changed.

    ``only``: the names of the cases that were meant to run (baseline cases outside it are not
    compared); by default every case of ``new``."""
    out = out or sys.stdout
    base = apply_renames(base, renames)
    new = {k: v for k, v in new.items() if not k.startswith("_")}
    wanted = set(new) if only is None else set(only)
    base = {k: v for k, v in base.items() if k in wanted}
    failed, clean = 0, 0
    for case in list(base) + [c for c in new if c not in base]:
        b, n = base.get(case), new.get(case)
        if n is None:
            print(f"{case}: MISSING (in the baseline, did not run)", file=out)
            failed += 1
            continue
        if b is None:
            print(f"{case}: NEW ({len(n)} fields)", file=out)
            failed += strict
            continue
        differ = [f for f in b if f in n and b[f] != n[f]]
        missing = [f for f in b if f not in n]
        added = [f for f in n if f not in b]
        broke = "error" in n and "error" not in b
        if not (differ or missing or added):
            clean += 1
            continue
        bad = bool(differ) or broke or (strict and bool(missing or added))
        failed += bad
        head = "DIFFERS" if bad else "names changed"
        print(
            f"{case}: {head}: {len(differ)} differ, {len(missing)} missing, {len(added)} new",
            file=out,
        )
        for f in differ:
            print(f"  differ   {f}\n    was {b[f]}\n    now {n[f]}", file=out)
        for f in missing:
            print(f"  missing  {f}", file=out)
        for f in added:
            print(f"  new      {f}" + (f": {n[f]}" if f == "error" else ""), file=out)
    total = len(set(base) | set(new))
    verdict = "identical" if not failed else f"{failed} case(s) changed"
    print(f"{total} cases: {clean} identical; {verdict}", file=out)
    return 1 if failed else 0


# ------------------------------------------------------------------------ main


def meta(seconds: float) -> dict[str, Any]:
    def git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", *args], capture_output=True, text=True, cwd=ROOT, check=True
            ).stdout.strip()
        except Exception:
            return ""

    import jaxlib

    return {
        "commit": git("rev-parse", "HEAD"),
        "library_tree": git("rev-parse", "HEAD:spoilfive_jax"),  # equal trees: same library
        "library_modified": bool(git("status", "--porcelain", "--", "spoilfive_jax")),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "backend": jax.default_backend(),
        "devices": jax.device_count(),
        "runtime_s": round(seconds, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", help="write the fingerprint JSON here")
    p.add_argument("--compare", metavar="FILE", help="compare with a saved fingerprint")
    p.add_argument("--only", action="append", help="run the cases whose name contains this")
    p.add_argument("--full", action="store_true", help="run every case (FULL_ONLY too)")
    p.add_argument("--rename", action="append", default=[], help="OLD=NEW, or a JSON file")
    p.add_argument("--strict", action="store_true", help="missing or new fields fail too")
    p.add_argument("--meta", action="append", default=[], help="KEY=VALUE for _meta (--out)")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("-q", "--quiet", action="store_true")
    args = p.parse_args(argv)
    names = selected(args.only, args.full)
    if args.list:
        print("\n".join(names))
        return 0
    renames = load_renames(args.rename)
    start = time.perf_counter()
    results = run(names, verbose=not args.quiet)
    seconds = time.perf_counter() - start
    print(f"fingerprint: {len(results)} cases in {seconds:.1f} s", file=sys.stderr)
    if args.out:
        info = meta(seconds)
        info.update(m.split("=", 1) for m in args.meta)
        info["cases"] = "all (--full)" if args.full and not args.only else args.only or "default"
        Path(args.out).write_text(json.dumps({"_meta": info, **results}, indent=1) + "\n")
    if args.compare:
        base = json.loads(Path(args.compare).read_text())
        return compare(base, results, renames, names, args.strict)
    errors = [n for n, r in results.items() if "error" in r]
    if errors:
        print(f"fingerprint: {len(errors)} case(s) failed: {', '.join(errors)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
