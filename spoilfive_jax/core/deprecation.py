"""The package's own deprecations: one warning class, so that a test suite (this one's
included, ``pyproject.toml``) can make every use of an old name an error while other
packages' deprecations stay warnings."""

from __future__ import annotations

import warnings


class SpoilFiveDeprecationWarning(DeprecationWarning):
    """A name or default of ``spoilfive_jax`` that goes with the next release."""


def deprecated(message: str, stacklevel: int = 2) -> None:
    """Warn that what the caller's caller used is deprecated (``message`` says what to use)."""
    warnings.warn(message, SpoilFiveDeprecationWarning, stacklevel=stacklevel + 1)


__all__ = ["SpoilFiveDeprecationWarning", "deprecated"]
