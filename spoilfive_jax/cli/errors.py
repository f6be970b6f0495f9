"""Bad input on the command line: ``CliError`` and the parser that raises it."""

from __future__ import annotations

import argparse
from typing import NoReturn

PROG = "spoilfive"


class CliError(Exception):
    """Bad input: reported as one line ``spoilfive: error: ...`` and exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse that raises ``CliError`` instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix(PROG).strip()
        raise CliError(f"{command}: {message}" if command else message)


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
