"""Progress on stderr: a rich bar (or plain lines) with the rate and the time left for the run
subcommands, a status line for the others."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import spoilfive_jax.cli.output as output

_LOG_WIDTH = 200  # the bar's width when stderr is not a terminal (a log file)


def clock(seconds: float) -> str:
    """``1:02:03`` / ``2:03``."""
    m, s = divmod(round(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def eta_text(seconds: float | None) -> str:
    """``ETA 1:02:03`` / ``ETA 2:03`` for the seconds left (``ETA -`` when not known yet)."""
    return "ETA -" if seconds is None else f"ETA {clock(seconds)}"


class Progress:
    """Progress of a run on stderr: a rich bar (or plain lines) with the ``unit``s done of the
    total, the rate and the time left.  The first call is where the run starts (0, or the
    hands a checkpoint holds): the bar starts there and the rate counts what is played after
    it.  ``done`` is the last count seen (also when disabled)."""

    def __init__(self, label: str, total: int, enabled: bool, unit: str = "hands") -> None:
        self.label, self.total, self.enabled, self.unit = label, total, enabled, unit
        self.start = time.perf_counter()
        self.done = 0
        self._base: tuple[int, float] | None = None
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        rich = output.rich_module()
        if self.enabled and rich is not None:
            import rich.progress as rp

            console = rich.console.Console(stderr=True)
            if not console.is_terminal:  # (a log file: the one final line, never cut at 80)
                console = rich.console.Console(stderr=True, width=_LOG_WIDTH)
            self._bar = rp.Progress(
                rp.TextColumn("{task.description}"),
                rp.BarColumn(),
                rp.MofNCompleteColumn(),
                rp.TextColumn(f"{self.unit} · {{task.fields[rate]}} · {{task.fields[eta]}}"),
                console=console,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(
                f"{self.label} (compiling)", total=self.total, rate=f"- {self.unit}/s", eta="ETA -"
            )
        return self

    def rate(self, done: int) -> tuple[float, float | None]:
        """(units a second since the first call, seconds left or None)."""
        base, since = self._base if self._base is not None else (0, self.start)
        rate = (done - base) / max(time.perf_counter() - since, 1e-9)
        return rate, ((self.total - done) / rate if rate > 0 else None)

    def __call__(self, done: int, total: int) -> None:
        self.done = done
        if self._base is None:  # where the run starts (compiling next)
            self._base = (done, time.perf_counter())
            if self._bar is not None:
                self._bar.update(self._task, completed=done)
            elif self.enabled and done:
                print(f"{self.label}: resuming at {done:,}/{total:,} {self.unit}", file=sys.stderr)
            return
        rate, left = self.rate(done)
        speed = f"{rate:,.0f} {self.unit}/s"
        if self._bar is not None:
            # the time left while running; the time taken once done (one time, not two)
            when = eta_text(left) if done < total else f"took {clock(self.elapsed())}"
            self._bar.update(
                self._task, completed=done, description=self.label, rate=speed, eta=when
            )
        elif self.enabled:
            line = f"{self.label}: {done:,}/{total:,} {self.unit}, {speed}, {eta_text(left)}"
            print(line, file=sys.stderr)

    def elapsed(self) -> float:
        """Seconds since the bar was made (compiling included)."""
        return time.perf_counter() - self.start

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            if exc[0] is not None:  # failed: no half-drawn bar (nor a blank line) above the error
                self._bar.live.transient = True
                self._bar.console.quiet = True
            self._bar.__exit__(*exc)


@contextmanager
def status(text: str, enabled: bool) -> Iterator[None]:
    rich = output.rich_module()
    if not enabled or rich is None:
        yield
        return
    with rich.console.Console(stderr=True).status(text):
        yield
