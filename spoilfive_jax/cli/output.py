"""What the commands write: tables (rich when installed, else plain text), JSON, CSV, and the
checks on every output target made before any work starts.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from spoilfive_jax.cli.errors import CliError
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, R, S
from spoilfive_jax.core.present import Report, Table

# What matplotlib's Agg canvas writes (``savefig`` picks the format by the extension).
PLOT_FORMATS: tuple[str, ...] = (
    ".png",
    ".pdf",
    ".svg",
    ".svgz",
    ".jpg",
    ".jpeg",
    ".eps",
    ".ps",
    ".tif",
    ".tiff",
)
PLOT_FORMATS += (".webp", ".pgf", ".raw", ".rgba")
# What ``--json`` and ``--csv`` write is text in that format, so a file must be named for it
# (``--csv out.xlsx`` would be CSV in a file Excel cannot open); ``.txt`` is plain text too.
TEXT_FORMATS: dict[str, tuple[str, ...]] = {"--json": (".json", ".txt"), "--csv": (".csv", ".txt")}


def rich_module() -> Any:
    """The ``rich`` package, or None when it is not installed (plain text then)."""
    try:
        import rich.console
        import rich.table
    except ImportError:
        return None
    import rich

    return rich


def show_table(table: Table) -> None:
    """The title lines, then the table on stdout: rich when installed, else aligned plain text.
    No blank padding lines and no trailing spaces either way."""
    rich = rich_module()
    if rich is None:
        print(table.title)
        print(plain_table(table.columns, table.rows, table.left))
        return
    import rich.box

    console = rich.console.Console(highlight=False)
    if not console.is_terminal:  # a file or a pipe: never squeeze the table to 80 columns
        console = rich.console.Console(highlight=False, width=max(console.width, 160))
    grid = rich.table.Table(box=rich.box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for i, c in enumerate(table.columns):
        grid.add_column(c, justify="left" if i < table.left else "right", no_wrap=True)
    for r in table.rows:
        grid.add_row(*r)
    with console.capture() as captured:
        console.print(table.title, soft_wrap=True)
        console.print(grid)
    lines = [line.rstrip() for line in captured.get().splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    sys.stdout.write("\n".join(lines) + "\n")


def show_report(report: Report) -> None:
    for table in report.tables:
        show_table(table)
    for line in report.lines:
        print(line)


def plain_table(columns: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(columns, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        out = [
            f"{c:<{w}}" if i < left else f"{c:>{w}}"
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(out).rstrip()

    body = [line(columns), "  ".join("-" * w for w in widths)]
    return "\n".join(body + [line(r) for r in rows])


def add_output_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("output")
    g.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="write JSON to FILE (no FILE or '-': stdout instead of the table)",
    )
    g.add_argument(
        "--csv",
        nargs="?",
        const="-",
        metavar="FILE",
        help="write CSV to FILE (no FILE or '-': stdout instead of the table)",
    )


def check_writable(flag: str, target: str) -> None:
    """Open ``target`` for writing now (a new file is removed again), so a path that cannot
    be written fails before the work rather than after it."""
    path = Path(target)
    if path.is_dir():
        raise CliError(f"{flag}: cannot write {target}: it is a directory")
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise CliError(f"{flag}: cannot write {target}: {e.strerror or e}") from None
    if not existed:
        path.unlink(missing_ok=True)


def check_format(flag: str, target: str) -> None:
    """A ``--json``/``--csv`` file must be named for what is written into it, as ``--plot``'s
    must: ``.json`` (or ``.txt``) for JSON, ``.csv`` (or ``.txt``) for CSV.  A path that
    exists and is no regular file (``/dev/stdout``, a pipe) takes any name."""
    path = Path(target)
    if path.exists() and not path.is_file():
        return
    suffix, allowed = path.suffix.lower(), TEXT_FORMATS[flag]
    if suffix not in allowed:
        raise CliError(
            f"{flag} writes {flag[2:].upper()} text: name a file ending in "
            f"{' or '.join(allowed)} (got {suffix or 'no extension'} in {target!r}), or '-' "
            "for stdout"
        )


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse output options that would fail after the work: both on stdout, a path that
    cannot be written, a file not named for what goes into it (``--csv out.xlsx``, like
    ``--plot out.txt``), ``--plot`` without matplotlib."""
    if args.json == "-" and args.csv == "-":
        raise CliError("--json and --csv cannot both go to stdout; give one a FILE")
    plot = getattr(args, "plot", None)
    for flag, target in (("--json", args.json), ("--csv", args.csv), ("--plot", plot)):
        if target not in (None, "-"):
            check_writable(flag, target)
            if flag != "--plot":
                check_format(flag, target)
    if plot is not None:
        suffix = Path(plot).suffix.lower()
        if suffix not in PLOT_FORMATS:
            raise CliError(
                f"--plot: cannot draw {plot!r}: name a file ending in "
                f"{', '.join(PLOT_FORMATS[:4])}, ... (got {suffix or 'no extension'})"
            )
        if importlib.util.find_spec("matplotlib") is None:
            raise CliError("--plot needs matplotlib: pip install 'spoilfive-jax[plot]'")


def table_wanted(args: argparse.Namespace) -> bool:
    return "-" not in (args.json, args.csv)


def jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return [jsonable(v) for v in x] if x.dtype == np.float32 else jsonable(x.tolist())
    if isinstance(x, np.float32):  # its shortest decimal (0.93075, not 0.9307500123977661)
        return jsonable(float(str(x)))
    if isinstance(x, np.generic):
        return jsonable(x.item())
    if isinstance(x, float) and not np.isfinite(x):
        return None
    return x


@contextmanager
def _sink(target: str) -> Iterator[TextIO]:
    """stdout for ``-``, else the file (opened for writing, newline-neutral for csv)."""
    if target == "-":
        yield sys.stdout
        return
    with open(target, "w", newline="", encoding="utf-8") as f:
        yield f


def write_json(target: str, data: dict[str, Any], records: str | None = None) -> None:
    """JSON of ``data``; the list ``data[records]`` (if given) is written one item a line."""
    data = jsonable(data)
    rows = data.pop(records) if records else None
    with _sink(target) as f:
        text = json.dumps(data, indent=2)
        if rows is None:
            f.write(text + "\n")
            return
        lines = ",\n".join("    " + json.dumps(r) for r in rows)
        f.write(text[:-2] + f',\n  "{records}": [\n{lines}\n  ]\n}}\n')


def write_csv(target: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    with _sink(target) as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(jsonable(list(rows)))


def write_records(args: argparse.Namespace, meta: dict[str, Any], records: list[Any]) -> None:
    """``--json`` (meta + the records one a line) and ``--csv`` (the records) of a command."""
    if args.json is not None:
        write_json(args.json, {**meta, "hands": records}, "hands")
    if args.csv is not None:
        header = list(records[0])
        write_csv(args.csv, header, [[r[k] for k in header] for r in records])


def words(env: Env[S, R]) -> caps.Presentation:
    """What the command line shows of ``env``'s game (its ``Presentation`` capability)."""
    return env.capability(caps.Presentation, "the command line")
