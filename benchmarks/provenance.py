"""Where and when a benchmark's figures were measured, saved with them in its ``--json`` file
(``scripts/docs.py figures`` prints it beside the figures in the docs)."""

from __future__ import annotations

import datetime
import os
import platform
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any


def provenance(script: str, argv: list[str]) -> dict[str, Any]:
    """The date (UTC), the command that measured (without its ``--json FILE``), and the machine."""
    import jax

    argv = list(argv)
    if "--json" in argv:
        i = argv.index("--json")
        del argv[i : i + 2]

    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "command": shlex.join(["python", f"benchmarks/{Path(script).name}", *argv]),
        "machine": {
            "processor": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "jax": jax.__version__,
        },
    }


def merged(
    old: dict[str, Any], new: dict[str, Any], items: str, key: Callable[[dict[str, Any]], Any]
) -> dict[str, Any]:
    """A ``--merge`` rerun's result: ``new[items]`` in place of the entries of ``old[items]``
    with the same ``key``, the others kept in order (new ones last).  Each entry keeps the
    command that measured it, and the result names every command."""
    for result in (new, old):
        for entry in result[items]:
            entry.setdefault("command", result["command"])
    fresh = {key(e): e for e in new[items]}
    entries = [fresh.pop(key(e), e) for e in old[items]] + list(fresh.values())
    commands = list(dict.fromkeys(c for e in entries for c in e["command"].split("; ")))
    return {**new, "command": "; ".join(commands), items: entries}
