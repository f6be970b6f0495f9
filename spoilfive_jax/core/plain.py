"""The ``Presentation`` every game has from the base ``Env``: plain defaults, so that a game
that declares only the core runs ``spoilfive rollout``, ``tournament``, ``analyze`` and
``rules`` (``score`` needs ``HandScoring``, ``play`` needs ``TerminalPlay``).

The title comes from the game's id (``"my_game"`` -> ``"My Game"``), the rules from its rules
dataclass (every field, ``name=value``; no rule flags on the command line: the rules are the
defaults), and a rollout's table from its summary: one column per summary entry that holds a
value per seat (its ``_se`` entry as the ``±``), every other number on a line below.  A game
declares its own ``Presentation`` module in place of this one to say more (``core.capabilities``;
``examples/oh_hell/spoilfive_oh_hell/report.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from spoilfive_jax.core.cards import parse_cards
from spoilfive_jax.core.present import Report, Table, plus_minus, se_or_nan

if TYPE_CHECKING:  # the types only: core.env declares this module as its default
    from spoilfive_jax.core.env import Env, HandState

S = TypeVar("S", bound="HandState")  # the env's state (``core.env.Env``'s ``S``), per call
R = TypeVar("R", bound=Hashable)  # its rules


def title(env: Env[S, R]) -> str:
    """The id in words: ``"my_game"`` -> ``"My Game"``."""
    return env.id.replace("_", " ").title()


def table_text(env: Env[S, R]) -> str:
    """``"4 players"``."""
    return f"{env.num_players} players"


def rule_options() -> tuple[Any, ...]:
    """No rule flags: the command line plays the rules' defaults."""
    return ()


def rules_from_options(game_id: str, options: dict[str, Any]) -> None:
    """None: the registry's rules for ``game_id`` (``sf.make``'s default, its preset
    included); there are no options to read."""
    return None


def rules_in_force(env: Env[S, R]) -> dict[str, Any]:
    """Every field of the rules dataclass with its value (``{}`` for rules that are not one)."""
    rules = env.rules
    if not dataclasses.is_dataclass(rules):
        return {}
    return {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}


def rules_line(env: Env[S, R]) -> str:
    """``name=value ...`` of every rule field (``defaults`` when there are none)."""
    return " ".join(f"{k}={v}" for k, v in rules_in_force(env).items()) or "defaults"


def rules_text(env: Env[S, R], suit: int | None = None) -> str:
    """The title, the table and the rules in force (no card order: the game says none)."""
    return f"Rules ({title(env)}, {table_text(env)})\n  options: {rules_line(env)}"


def default_policy(env: Env[S, R]) -> str:
    """``"random"`` when the game has it, else its first built-in policy."""
    names = tuple(env.policy_names)
    return "random" if "random" in names else names[0]


def read_cards(env: Env[S, R], text: str | list[str]) -> list[int]:
    """Cards as the project writes them (``5H``, ``10h``, ``10♥``)."""
    return parse_cards(text)


def tournament_note(env: Env[S, R]) -> str:
    """None."""
    return ""


def _per_seat(env: Env[S, R], summary: dict[str, Any]) -> list[str]:
    """The summary's entries that hold one number per seat (not their ``_se``)."""
    return [
        k
        for k, v in summary.items()
        if not k.endswith("_se") and np.ndim(v) == 1 and len(v) == env.num_players
    ]


def _scalars(summary: dict[str, Any]) -> list[str]:
    return [
        k
        for k, v in summary.items()
        if not k.endswith("_se") and np.ndim(v) == 0 and isinstance(v, (int, float, np.number))
    ]


def rollout_report(env: Env[S, R], summary: dict[str, Any], names: Any, seconds: float) -> Report:
    """A table with a column per per-seat entry of the summary, the other numbers below."""
    s, h = summary, int(summary["hands"])
    rate = s.get("hands_per_s", float("nan"))
    head = (
        f"{title(env)} · {h:,} hands · {table_text(env)} · {seconds:.1f} s "
        f"({rate:,.0f} hands/s, compile included)\nrules: {rules_line(env)}"
    )
    columns = _per_seat(env, s)
    rows = []
    for i, name in enumerate(names):
        row = [str(i), str(name)]
        for k in columns:
            se = s.get(k + "_se")
            row.append(
                plus_minus(s[k][i], se_or_nan(se[i], h), digits=3)
                if se is not None
                else f"{float(s[k][i]):.3f}"
            )
        rows.append(row)
    table = Table(head, ["seat", "policy", *columns], rows, left=2)
    lines = [f"{k} {s[k]:,}" for k in _scalars(s) if k not in ("hands", "hands_per_s")]
    return Report([table], [" · ".join(lines)] if lines else [])


def summary_rows(
    env: Env[S, R], summary: dict[str, Any], names: Any
) -> tuple[list[str], list[Any]]:
    """CSV, long format: every per-seat entry a row per seat, then the other numbers."""
    s = summary
    rows: list[list[Any]] = []
    for k in _per_seat(env, s):
        se = s.get(k + "_se")
        rows += [
            [k, i, name, s[k][i], se[i] if se is not None else ""] for i, name in enumerate(names)
        ]
    rows += [[k, "", "", s[k], ""] for k in _scalars(s)]
    return ["stat", "seat", "policy", "value", "se"], rows


def per_hand_columns(env: Env[S, R], result: Any) -> tuple[tuple[str, ...], Any, str, str]:
    """Decisions, then each seat's reward."""
    return ("decisions",), result.rewards, "rewards", "reward"


def plot_rollout(plt: Any, env: Env[S, R], result: Any, names: Any, path: str) -> None:
    """Mean reward by seat with 95% error bars."""
    s = result.summary()
    seats = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(seats, s["mean_rewards"], yerr=1.96 * np.asarray(s["mean_rewards_se"]), capsize=3)
    ax.set_xticks(seats, [f"{i}\n{names[int(i)]}" for i in seats], fontsize=8)
    ax.set_xlabel("seat")
    ax.set_ylabel("reward per hand")
    ax.set_title(f"{title(env)}: mean reward by seat ({s['hands']:,} hands)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
