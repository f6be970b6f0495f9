"""Where and when a benchmark's figures were measured, saved with them in its ``--json`` file
(``scripts/docs.py figures`` prints it beside the figures in the docs)."""

from __future__ import annotations

import datetime
import os
import platform
import shlex
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
