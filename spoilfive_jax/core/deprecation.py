"""The package's own deprecations: one warning class, so that a test suite (this one's
included, ``pyproject.toml``) can make every use of an old name an error while other
packages' deprecations stay warnings."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Mapping
from types import ModuleType


class SpoilFiveDeprecationWarning(DeprecationWarning):
    """A name or default of ``spoilfive_jax`` that goes with the next release."""


def deprecated(message: str, stacklevel: int = 2) -> None:
    """Warn that what the caller's caller used is deprecated (``message`` says what to use)."""
    warnings.warn(message, SpoilFiveDeprecationWarning, stacklevel=stacklevel + 1)


def renamed_module(package: str, name: str, renamed: Mapping[str, str]) -> ModuleType:
    """A package's ``__getattr__``: the module ``renamed[name]`` of ``package`` (imported with
    the package), with a deprecation warning, for a module's old ``name``; ``AttributeError``
    for any other name."""
    if name not in renamed:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    new = renamed[name]
    deprecated(f"{package}.{name} is now {package}.{new}", stacklevel=3)
    return sys.modules[f"{package}.{new}"]


__all__ = ["SpoilFiveDeprecationWarning", "deprecated", "renamed_module"]
