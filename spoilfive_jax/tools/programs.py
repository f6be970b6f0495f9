"""Compiled programs in a long-lived process, and the operating system's limit on them.

XLA:CPU maps memory for every program it compiles, and Linux lets one process hold at most
``vm.max_map_count`` mappings (65,530 by default); past it, the next compile crashes the process
(a segfault, not an exception).  Measured with JAX 0.10 on x86_64: a process holds about 430
mappings after import, and an analysis program adds about 500.  ``sf.analyze`` compiles one
program per table, playout policy, number of samples and number of legal actions, so analysing
thousands of positions of one table adds a handful (Spoil Five at 5 players: 3,730 mappings
after 288 positions, as after 250; Forty-Five at 4 players: 7,971 after 243, growing by about 6
a hand).  A process reaches the limit only by compiling over a hundred distinct programs: many
tables, sample counts or policies in one session.

The run tools call ``bound_compiled_programs`` first: once the process holds more than half the
limit, JAX's compiled programs are dropped (``jax.clear_caches``: they compile again on their
next use) with a ``RuntimeWarning``, instead of the crash.
"""

from __future__ import annotations

import warnings

import jax

DEFAULT_LIMIT = 65_530  # Linux's default vm.max_map_count
SHARE = 0.5  # drop the programs past this share of the limit


def mappings() -> int:
    """The memory mappings this process holds (0 where the platform does not say)."""
    try:
        with open("/proc/self/maps", "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def map_limit() -> int:
    """The most mappings one process may hold (``vm.max_map_count``; Linux's default when the
    platform does not say)."""
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return DEFAULT_LIMIT


def bound_compiled_programs(share: float = SHARE) -> bool:
    """Drop JAX's compiled programs (``jax.clear_caches``) when this process holds more than
    ``share`` of the mapping limit, with a ``RuntimeWarning``; returns whether it did."""
    held, limit = mappings(), map_limit()
    if held <= share * limit:
        return False
    jax.clear_caches()
    warnings.warn(
        f"this process held {held:,} memory mappings of the {limit:,} it may hold (most of them "
        "XLA's compiled programs), so JAX's compiled programs were dropped; they compile again "
        "on their next use",
        RuntimeWarning,
        stacklevel=3,
    )
    return True


__all__ = ["bound_compiled_programs", "map_limit", "mappings"]
