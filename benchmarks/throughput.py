"""Random-legal-play throughput of the public step API, ``jax.jit(jax.vmap(env.step))``: hands/s
and decisions/s by table size, batch and action picker, with pyspiel peers when installed.

The measurement lives in the package (``spoilfive_jax.cli.throughput``, whose docstring says
what is timed and how) so that an installed ``spoilfive bench`` runs it; this script runs the
same program from a source checkout, and the other benchmarks take ``pyspiel_rate`` and
``time_run`` from here.

    python benchmarks/throughput.py [--players 2,5,10] [--batch 1024,65536] [--json out.json]
"""

from __future__ import annotations

from spoilfive_jax.cli.throughput import PEERS, main, measure, pyspiel_rate, time_run

__all__ = ["PEERS", "main", "measure", "pyspiel_rate", "time_run"]

if __name__ == "__main__":
    main()
