"""Progress on stderr: a rich bar with hands/s for rollouts, a status line for tournaments."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import spoilfive_jax.cli.output as output


class Progress:
    """Progress of a rollout on stderr: a rich bar with hands/s, or plain lines."""

    def __init__(self, label: str, total: int, enabled: bool) -> None:
        self.label, self.total, self.enabled = label, total, enabled
        self.start = time.perf_counter()
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        rich = output.rich_module()
        if self.enabled and rich is not None:
            import rich.progress as rp

            self._bar = rp.Progress(
                rp.TextColumn("{task.description}"),
                rp.BarColumn(),
                rp.MofNCompleteColumn(),
                rp.TextColumn("hands · {task.fields[rate]}"),
                rp.TimeElapsedColumn(),
                console=rich.console.Console(stderr=True),
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(
                f"{self.label} (compiling)", total=self.total, rate="- hands/s"
            )
        return self

    def __call__(self, done: int, total: int) -> None:
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        if self._bar is not None:
            self._bar.update(
                self._task, completed=done, description=self.label, rate=f"{rate:,.0f} hands/s"
            )
        elif self.enabled:
            print(f"{self.label}: {done:,}/{total:,} hands, {rate:,.0f} hands/s", file=sys.stderr)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            if exc[0] is not None:  # failed: leave no half-drawn bar above the error line
                self._bar.live.transient = True
            self._bar.__exit__(*exc)


@contextmanager
def status(text: str, enabled: bool) -> Iterator[None]:
    rich = output.rich_module()
    if not enabled or rich is None:
        yield
        return
    with rich.console.Console(stderr=True).status(text):
        yield
