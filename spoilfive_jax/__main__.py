"""``python -m spoilfive_jax``: the ``spoilfive`` command line."""

from spoilfive_jax.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
