"""Bad input on the command line: ``CliError`` and the parser that raises it."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, NoReturn

PROG = "spoilfive"


class CliError(Exception):
    """Bad input: reported as one line ``spoilfive: error: ...`` and exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse that raises ``CliError`` instead of printing usage and exiting, and refuses an
    option given twice with different values (``--hands 10 --hands 20``; the same value twice
    is accepted): every option that stores one value is made to check (``_Once``)."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix(PROG).strip()
        raise CliError(f"{command}: {message}" if command else message)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        for action in self._actions:  # (every option, its groups' too)
            kind = type(action)
            if action.option_strings and kind.__name__ in _STORES:
                action.__class__ = type(f"Once{kind.__name__}", (_Once, kind), {})
        return super().parse_known_args(args, namespace)


# The argparse actions that keep one value (not append, count, help or version; actions of our
# own, like the rule options', check repeats themselves).
_STORES = {"_StoreAction", "_StoreConstAction", "_StoreTrueAction", "_StoreFalseAction"}
_GIVEN = "_options_given"  # namespace attribute: dest -> (option as written, value)


class _Once(argparse.Action):
    """Mixed into a storing action: the same destination set again with another value (the
    same option twice, or two options of one setting such as ``--x``/``--no-x``) is an error
    naming both as the user wrote them."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given: dict[str, tuple[str, Any]] = getattr(namespace, _GIVEN, None) or {}
        value = self.const if self.nargs == 0 else values
        flag = option_string or self.option_strings[0]
        takes_value = self.nargs != 0

        def written(flag: str, value: Any) -> str:  # ``--hands 10``, ``--quiet``
            shown = " ".join(map(str, value)) if isinstance(value, list) else str(value)
            return f"{flag} {shown}" if takes_value else flag

        record_once(parser, given, self.dest, flag, value, written)
        setattr(namespace, _GIVEN, given)
        super().__call__(parser, namespace, values, option_string)


def record_once(
    parser: argparse.ArgumentParser,
    given: dict[str, tuple[str, Any]],
    key: str,
    flag: str,
    value: Any,
    written: Callable[[str, Any], str],
) -> None:
    """``given[key] = (flag, value)``, unless ``key`` was given before with another value: then
    the parser's error naming both as the user wrote them (``written(flag, value)``)."""
    if key in given and given[key][1] != value:
        before, now = written(*given[key]), written(flag, value)
        parser.error(f"{before} and {now} contradict each other; give one")
    given[key] = (flag, value)


def int_at_least(low: int):  # type: ignore[no-untyped-def]
    """An argparse type: an integer >= ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {value}")
        return value

    return parse
