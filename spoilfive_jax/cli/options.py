"""``--game``, ``--players`` and the rule options, built from what each game declares.

Every registered game lists its flags (``Presentation.rule_options``, ``core.present.RuleOption``);
a flag several games share is one argparse option.  The values are checked against the chosen game
only after parsing, so ``--ante`` under ``--game forty_five`` is named as an option of another game,
and a flag given twice with different values (``--jink --no-jink``) is refused.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from spoilfive_jax.cli.errors import CliError, int_at_least, record_once
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env
from spoilfive_jax.core.present import RuleOption
from spoilfive_jax.registry import available_games, env_class, make

DEFAULT_GAME = "spoil_five"
_BARE = "\0bare"  # the flag was given without a value
_NEGATIVE = "\0negative"  # --no-FLAG


def _players(text: str) -> int:
    n = int_at_least(0)(text)
    if not 2 <= n <= 10:
        raise argparse.ArgumentTypeError(f"expected 2 to 10 players, got {n}")
    return n


class _RuleAction(argparse.Action):
    """Records ``(flag, raw value)`` per rule option in ``namespace.rule_given``; the same
    option given again with another value is an error."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given: dict[str, tuple[str, str]] = dict(getattr(namespace, "rule_given", None) or {})
        raw = self.const if values is None or values == [] else values
        name = self.dest.removeprefix("rule_")
        record_once(parser, given, name, option_string or self.option_strings[0], raw, _as_given)
        namespace.rule_given = given


def _as_given(flag: str, raw: Any) -> str:
    """How the user wrote an option: ``--jink``, or ``--follow seed`` when it took a value."""
    if isinstance(raw, str) and not raw.startswith("\0"):
        return f"{flag} {raw}"
    return flag


def _games_by_class() -> dict[type[Env[Any, Any]], list[str]]:
    out: dict[type[Env[Any, Any]], list[str]] = {}
    for game in available_games():
        out.setdefault(env_class(game), []).append(game)
    return out


def add_game_options(p: argparse.ArgumentParser, players: bool = True) -> None:
    """``--game``, ``-n/--players`` and every game's rule options, grouped by who takes them."""
    classes = _games_by_class()
    g = p.add_argument_group("the game and the table")
    if players:  # (every subcommand that plays: all but rules)
        p.add_argument(
            "--devices",
            type=int_at_least(1),
            metavar="N",
            help="CPU devices to spread the work over (default: one per core; results do not "
            "depend on it; on a GPU or TPU their own devices are used)",
        )
    g.add_argument(
        "--game",
        choices=available_games(),
        default=DEFAULT_GAME,
        help=f"the game (default {DEFAULT_GAME}; docs/rules.md)",
    )
    if players:
        defaults = ", ".join(
            f"{cls.default_num_players} for {gs[0]}" for cls, gs in classes.items()
        )
        g.add_argument("-n", "--players", type=_players, help=f"2..10 (default {defaults}, ...)")
    owners: dict[str, list[tuple[list[str], RuleOption]]] = {}
    for cls, games in classes.items():
        for opt in _flags_of(cls):
            owners.setdefault(opt.name, []).append((games, opt))
    groups: dict[str, argparse._ArgumentGroup] = {}
    for name, held in owners.items():
        games = [gm for gs, _ in held for gm in gs]
        every = len(held) == len(classes)
        heading = "rules (every game)" if every else f"rules of {', '.join(games)}"
        if heading not in groups:
            groups[heading] = p.add_argument_group(heading)
        _add_rule_option(groups[heading], name, held, every)


def _add_rule_option(
    g: argparse._ArgumentGroup, name: str, held: list[tuple[list[str], RuleOption]], every: bool
) -> None:
    opts = [o for _, o in held]
    first = opts[0]
    helps = {o.help for o in opts}
    if len(helps) == 1:
        text = first.help
    else:
        text = "; ".join(f"{gs[0]}{' ...' if len(gs) > 1 else ''}: {o.help}" for gs, o in held)
    if first.kind == "choice" and all(o.choices == first.choices for o in opts):
        text += f" ({'|'.join(first.choices)})"
    takes_value = any(o.kind != "flag" for o in opts)
    may_be_bare = any(o.kind == "flag" or o.bare is not None for o in opts)
    kwargs: dict[str, Any] = {"dest": f"rule_{name}", "action": _RuleAction, "help": text}
    if takes_value:
        kwargs["nargs"] = "?" if may_be_bare else None
        kwargs["metavar"] = first.metavar or name.upper()
        if may_be_bare:
            kwargs["const"] = _BARE
    else:
        kwargs["nargs"] = 0
        kwargs["const"] = _BARE
    g.add_argument(first.flag, **kwargs)
    if any(o.negative is not None for o in opts):
        g.add_argument(
            "--no-" + first.flag[2:],
            dest=f"rule_{name}",
            action=_RuleAction,
            nargs=0,
            const=_NEGATIVE,
            help=argparse.SUPPRESS,
        )


def rule_values(game: str, given: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """The values of the rule flags given, checked against ``game``'s own options."""
    cls = env_class(game)
    opts = {o.name: o for o in _class_words(cls).rule_options()}
    values: dict[str, Any] = {}
    for name, (flag, raw) in given.items():
        if name not in opts:
            others = [
                g for g in available_games() if name in {o.name for o in _flags_of(env_class(g))}
            ]
            raise CliError(
                f"{flag} is not an option of --game {game}; it is one of {', '.join(others)}"
            )
        o = opts[name]
        if raw == _NEGATIVE:
            if o.negative is None:
                raise CliError(f"{flag} is not an option of --game {game}")
            values[name] = o.negative
        elif raw == _BARE:
            if o.kind == "flag":
                values[name] = o.bare
            elif o.bare is None:
                raise CliError(f"{flag} needs a value for --game {game}")
            else:
                values[name] = o.bare
        elif o.kind == "flag":
            negative = f" or --no-{o.flag[2:]}" if o.negative is not None else ""
            raise CliError(
                f"{flag} takes no value for --game {game}, got {raw!r}: use {flag}{negative}"
            )
        else:
            values[name] = o.parse(raw)
    return values


def _options_of(game: str) -> tuple[RuleOption, ...]:
    return _class_words(env_class(game)).rule_options()


def env_from_args(args: argparse.Namespace) -> Env[Any, Any]:
    """The environment ``--game``, ``--players`` and the rule options describe."""
    game = args.game
    values = rule_values(game, getattr(args, "rule_given", None) or {})
    rules = _class_words(env_class(game)).rules_from_options(game, values)
    return make(game, getattr(args, "players", None), rules=rules)


def check_seat(flag: str, seat: int, n: int) -> None:
    if not 0 <= seat < n:
        raise CliError(f"{flag} must be a seat 0..{n - 1} for {n} players, got {seat}")


def names_text(names: Sequence[str]) -> str:
    return names[0] if len(set(names)) == 1 else ",".join(names)


def _class_words(cls: type[Env[Any, Any]]) -> caps.Presentation:
    """The ``Presentation`` a game's class declares (its rule flags are read before any table
    is made)."""
    return caps.resolve(cls.__name__, cls.capabilities, caps.Presentation, "the command line")


def _flags_of(cls: type[Env[Any, Any]]) -> tuple[RuleOption, ...]:
    """The rule flags of a game's class; none for a game without ``Presentation`` (the command
    line lists the others' flags, and refuses that game by name when it is asked for)."""
    if caps.Presentation not in cls.capabilities:
        return ()
    return tuple(_class_words(cls).rule_options())
