"""A Ctrl-C while the ``spoilfive`` command is still importing ends it with one line.

The command imports the package (and JAX, seconds on a cold start) before ``cli.main`` runs,
and ``cli.main`` is what turns a ``KeyboardInterrupt`` into ``spoilfive: interrupted``: a
Ctrl-C in that first second printed a 28-line traceback instead.  The package's ``__init__``
imports this module before anything else, and importing it calls ``guard()``: in the
``spoilfive`` process only (the
console script or ``python -m spoilfive_jax``) it installs a SIGINT handler that prints the same
line and exits with status 130; ``cli.main`` calls ``release()`` to hand Ctrl-C back to Python
(a ``KeyboardInterrupt``, caught there).  Anywhere else (a library user's program, a test)
``guard()`` does nothing.  Standard library only: it runs before any other import.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType

PROG = "spoilfive"
_MODULES = ("spoilfive_jax", "spoilfive_jax.cli")  # ``python -m`` forms of the command


def is_command(argv: list[str] | None = None, orig_argv: list[str] | None = None) -> bool:
    """This process is the ``spoilfive`` command: ``argv[0]`` is the console script
    (``spoilfive``, ``spoilfive.exe``, ``spoilfive-script.py``), or the interpreter was started
    with ``-m spoilfive_jax``."""
    argv = sys.argv if argv is None else argv
    orig = list(getattr(sys, "orig_argv", ()) if orig_argv is None else orig_argv)
    script = os.path.basename(argv[0]) if argv else ""
    if script in (PROG, f"{PROG}.exe", f"{PROG}-script.py", f"{PROG}-script.pyw"):
        return True
    for i, arg in enumerate(orig):
        if arg == "-m" and i + 1 < len(orig) and orig[i + 1] in _MODULES:
            return True
        if arg.startswith("-m") and arg[2:] in _MODULES:
            return True
    return False


def _interrupted(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C before ``cli.main`` runs: the line ``cli.main`` prints, and status 130."""
    sys.stderr.write(f"\n{PROG}: interrupted\n")
    sys.stderr.flush()
    # At once, without unwinding: an exception raised while a C extension (jaxlib) is half
    # loaded can crash the interpreter's shutdown.  Nothing is written yet, so nothing is lost.
    _exit(130)


_exit = os._exit  # (a test replaces it, to stay alive)


def guard(argv: list[str] | None = None, orig_argv: list[str] | None = None) -> bool:
    """Install the handler in the ``spoilfive`` process (``is_command``), unless Ctrl-C is
    already handled otherwise; returns whether it did."""
    if not is_command(argv, orig_argv) or threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False
    signal.signal(signal.SIGINT, _interrupted)
    return True


def release() -> None:
    """Hand Ctrl-C back to Python (``KeyboardInterrupt``) if ``guard`` took it."""
    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is _interrupted
    ):
        signal.signal(signal.SIGINT, signal.default_int_handler)


guard()  # on import: the package imports this module first, before JAX
