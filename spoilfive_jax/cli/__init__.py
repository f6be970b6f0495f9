"""The ``spoilfive`` command line (also ``python -m spoilfive_jax``).

One module per subcommand: ``rollout`` (mass self-play with a summary, JSON/CSV and a plot),
``score`` (what a hand is worth), ``tournament`` (policies against each other), ``bench``
(throughput table), ``play`` (against bots in the terminal), ``analyze`` (every legal move of a
position scored, ``sf.analyze``) and ``rules`` (card ranking and rule options).  ``--game`` takes
the registry's ids (``spoilfive_jax.available_games()``); everything that differs between games
(rule flags, tables, rules text, plots, terminal play, positions) comes from the game's hooks
(``core.env.Env``), so no subcommand names a game.

Shared modules: ``errors`` (``CliError``, the parser), ``options`` (``--game``, ``--players``,
the rule flags), ``policies`` (built-in names, ``best``, ``pimc[:K]`` and ``agent:PATH``),
``output`` (tables, JSON, CSV, the output checks made before any work), ``progress`` (the bar:
rate and ETA), ``runs`` (what the run subcommands share: ``--checkpoint DIR``, ``--quiet``,
Ctrl-C) and ``hands`` (``rollout --per-hand``'s CSV, JSON and Parquet files, written chunk
by chunk).

``main(argv) -> int`` returns the exit status: 0 on success, 2 on bad input (one line
``spoilfive: error: ...`` on stderr, never a traceback).  ``rich`` (extra ``cli``) draws tables
and the progress bar when installed, else plain text is printed; ``matplotlib`` (extra ``plot``)
is needed for ``rollout --plot`` only, ``pyarrow`` (extra ``parquet``) for ``rollout --parquet``,
``spoilfive_jax.rl`` (extra ``rl``) for ``agent:PATH``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from spoilfive_jax.cli import analyze, bench, play, rollout, rules, score, tournament
from spoilfive_jax.cli.errors import PROG, CliError, Parser

__all__ = ["CACHE_ENV", "PROG", "CliError", "build_parser", "compile_cache_dir", "main"]

COMMANDS = (rollout, score, tournament, bench, play, analyze, rules)


def build_parser() -> Parser:
    from spoilfive_jax import __version__

    parser = Parser(
        prog=PROG,
        description="Spoil Five and the Forty-Five family on JAX: rollouts, hand scores, "
        "tournaments, benchmarks, terminal play, position analysis and the rules (docs/rules.md).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split("\n")).strip()
    return text or type(error).__name__


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input).

    Every CPU core is used: one XLA host device per core (``spoilfive_jax.use_all_cores``;
    ``--devices N`` on a subcommand: N of them), set before JAX's first computation; in a
    process where JAX already ran this changes nothing.  Results do not depend on the number
    of devices.  Ctrl-C prints one line,
    ``spoilfive: interrupted``, and returns 130, from the first moment (while the package
    imports, ``spoilfive_jax._interrupt``, as later); during a run (``rollout``, ``score``,
    ``tournament``) a first Ctrl-C stops it after the chunk in progress instead, with the
    summary so far (``cli.runs``), and returns 130 too.
    """
    from spoilfive_jax import _interrupt
    from spoilfive_jax.tools.cores import use_all_cores

    try:
        _interrupt.release()  # from here a Ctrl-C is a KeyboardInterrupt, caught below
        args = build_parser().parse_args(argv)  # (parsing runs no JAX computation)
        keep_compiled_programs()
        # in a process that already ran JAX (a test), silently
        use_all_cores(getattr(args, "devices", None), warn=False)
        _note_devices(getattr(args, "devices", None))
        return int(args.run(args))
    except SystemExit as e:  # --help and --version
        return e.code if isinstance(e.code, int) else 0
    except (CliError, ValueError) as e:
        print(f"{PROG}: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # stdout closed early (| head): stop quietly
        _silence_stdout()
        return 141
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"{PROG}: error: {where}{e.strerror or _one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if not _lost_contact(e):
            raise
        from spoilfive_jax.tools import distributed

        distributed.end_run(f"a collective with the other processes failed ({_one_line(e)})")
        raise  # (not reached: end_run exits)


CACHE_ENV = "SPOILFIVE_COMPILE_CACHE"  # a directory, or "off"


def compile_cache_dir() -> str | None:
    """Where the command line keeps compiled programs between runs: ``$SPOILFIVE_COMPILE_CACHE``
    (``off``: nowhere), else ``spoilfive_jax/jax`` in the user's cache directory
    (``$XDG_CACHE_HOME``, else ``~/.cache``)."""
    chosen = os.environ.get(CACHE_ENV, "")
    if chosen.strip().lower() in ("off", "0", "no", "false"):
        return None
    if chosen:
        return chosen
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "spoilfive_jax", "jax")


def keep_compiled_programs() -> None:
    """JAX's persistent compilation cache, on by default for the command line: a program
    compiled once (an analysis, a hint, a rollout's kernel) is read back from disk by the next
    run instead of compiled again (``docs/benchmarks.md``: the second ``spoilfive analyze``).
    A cache the process already has (``JAX_COMPILATION_CACHE_DIR``, or set in code) is kept;
    ``SPOILFIVE_COMPILE_CACHE=off`` turns it off."""
    import jax

    if jax.config.values.get("jax_compilation_cache_dir") or os.environ.get(
        "JAX_COMPILATION_CACHE_DIR"
    ):
        return
    where = compile_cache_dir()
    if where is None:
        return
    try:
        os.makedirs(where, exist_ok=True)
    except OSError:  # (a read-only home: run without the cache)
        return
    jax.config.update("jax_compilation_cache_dir", where)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.2)


def _note_devices(devices: int | None) -> None:
    """Say once on stderr when ``--devices`` asks for more devices than there are cores: allowed
    (the results are the same), but the devices then share the cores and nothing runs faster."""
    from spoilfive_jax.tools.cores import cpu_count

    cores = cpu_count()
    if devices is not None and devices > cores:
        print(
            f"{PROG}: note: --devices {devices} is more than the {cores} "
            f"core{'s' if cores != 1 else ''} here: the devices share them (same results, "
            "no faster)",
            file=sys.stderr,
        )


_CONTACT = ("Gloo", "Connection reset", "Connection closed", "UNAVAILABLE", "Socket closed")


def _lost_contact(error: Exception) -> bool:
    """Whether ``error`` is a collective of a multi-process run that failed because another
    process went away (its connection reset); any other error is reported as it is."""
    import jax

    from spoilfive_jax.tools import distributed

    return (
        isinstance(error, jax.errors.JaxRuntimeError)
        and bool(distributed._STARTED)
        and any(word in str(error) for word in _CONTACT)
    )
