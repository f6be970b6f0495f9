"""``spoilfive rollout --per-hand``: one record per hand in CSV, JSON or Parquet, written chunk by
chunk as the run goes (``tools.checkpoint.ChunkWriter``), so memory does not grow with the hands.

The columns are the game's (``Presentation.per_hand_columns``): ``hand``, the scalar fields,
the per-seat (or per-team) block ``chips_0 ..`` and ``tricks_0 ..``.  CSV and JSON are the
bytes the whole-run writers wrote; Parquet (extra ``parquet``: pyarrow) has one row group per
chunk, typed columns (each field's own dtype: ``bool``, ``int8`` ... ``float32``, ``hand``
int64) and the run's facts (game, rules, policies, seed, ...) as JSON in the schema's metadata.

With a checkpoint, CSV and JSON record their byte offset at every checkpoint and are cut back
to it on resume.  A Parquet file has no footer until it is closed, so it cannot be continued:
each chunk is written as a closed part file in the checkpoint directory
(``hands-000000.parquet`` ...), and at the end (or when stopped) the parts are copied row group
by row group into FILE (a temporary file, then ``os.replace``); the parts go once the
checkpoint records that FILE is whole.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from spoilfive_jax.cli.output import jsonable, words
from spoilfive_jax.tools.checkpoint import sync_directory
from spoilfive_jax.tools.rollout import RolloutResult

TAIL = "\n  ]\n}\n"  # what ends the JSON after the last record


class Columns:
    """The per-hand columns of hands ``start ..`` (``fields``: a chunk's ``RolloutResult``
    fields): ``table`` name -> array (each field's own dtype), and the game's names of the
    scalar fields, of the block in JSON and of its CSV prefix."""

    def __init__(self, env: Any, start: int, fields: Mapping[str, np.ndarray]) -> None:
        result = RolloutResult(dict(fields), env)
        names, block, self.block_name, self.prefix = words(env).per_hand_columns(env, result)
        self.names: tuple[str, ...] = tuple(names)
        tricks = np.asarray(result.tricks_won)
        self.block, self.tricks = np.asarray(block), tricks
        table = {"hand": np.arange(start, start + tricks.shape[0], dtype=np.int64)}
        table.update({f: np.asarray(getattr(result, f)) for f in names})
        table.update({f"{self.prefix}_{i}": self.block[:, i] for i in range(self.block.shape[1])})
        table.update({f"tricks_{j}": tricks[:, j] for j in range(tricks.shape[1])})
        self.table = table


class TextHands:
    """A CSV or JSON file of hands (``-``: stdout, which cannot be resumed), written as
    UTF-8 bytes so that a checkpoint's offset is a byte offset."""

    format = "text"

    def __init__(self, target: str, env: Any) -> None:
        self.target, self.env = target, env
        self.file: Any = None
        self.hands = 0
        self.fresh = False  # the head is still to be written (before the first hands)

    def describe(self) -> dict[str, Any]:
        """The format and the absolute path (or stdout)."""
        where = "stdout" if self.target == "-" else os.path.abspath(self.target)
        return {"format": self.format, "path": where}

    def head(self, cols: Columns) -> str:
        """What the file starts with (given the first chunk's columns)."""
        return ""

    def open(self, position: dict[str, Any] | None) -> None:
        """Start the file (``position`` None: truncated, the head written with the first hands) or
        continue it at a checkpoint's byte offset."""
        if self.target == "-":
            self.file = sys.stdout
        elif position is None:
            self.file = open(self.target, "wb")  # noqa: SIM115 (closed by close())
        else:
            self._reopen(int(position["offset"]))
            self.hands = int(position["hands"])
            return
        self.fresh = True

    def _reopen(self, offset: int) -> None:
        """Continue the file at ``offset``, cutting off what a stopped run wrote after it."""
        try:
            self.file = open(self.target, "r+b")  # noqa: SIM115 (closed by close())
        except FileNotFoundError:
            raise ValueError(
                f"{self.target} is gone, but the checkpoint has written part of it: remove the "
                "checkpoint to start again"
            ) from None
        if self.file.seek(0, os.SEEK_END) < offset:
            raise ValueError(
                f"{self.target} is shorter than the checkpoint's position (it changed since): "
                "remove the checkpoint to start again"
            )
        self.file.truncate(offset)
        self.file.seek(offset)

    def _emit(self, text: str) -> None:
        if self.file is sys.stdout:
            self.file.write(text)
        else:
            self.file.write(text.encode("utf-8"))

    def write(self, start: int, fields: Mapping[str, np.ndarray]) -> None:
        """The records of hands ``start ..`` (``fields``: a chunk's rollout fields)."""
        cols = Columns(self.env, start, fields)
        if self.fresh:
            self._emit(self.head(cols))
            self.fresh = False
        self._emit(self.text(cols))
        self.hands += len(cols.table["hand"])

    def text(self, cols: Columns) -> str:
        """The records of a chunk's hands."""
        raise NotImplementedError

    def sync(self) -> dict[str, Any]:
        """Flush and fsync; the byte offset and the hands written so far."""
        self.file.flush()
        if self.file is not sys.stdout:
            os.fsync(self.file.fileno())
        return {
            "offset": self.file.tell() if self.file is not sys.stdout else 0,
            "hands": self.hands,
        }

    def finish(self, complete: bool) -> dict[str, Any] | None:
        """Flush what is written (the records stay as they are)."""
        self.file.flush()
        return None

    def close(self) -> None:
        """Close the file (never stdout)."""
        if self.file is not None and self.file is not sys.stdout:
            self.file.close()
        self.file = None


class CsvHands(TextHands):
    """``--per-hand --csv``: a header, then one row of integers a hand (flags as 0/1)."""

    format = "csv"

    def head(self, cols: Columns) -> str:
        """The header row: the columns' names."""
        return _csv_text([list(cols.table)])

    def text(self, cols: Columns) -> str:
        """One row of integers a hand."""
        table = np.column_stack([c.astype(np.int64) for c in cols.table.values()])
        return _csv_text(table.tolist())


class JsonHands(TextHands):
    """``--per-hand --json``: the run's facts, then ``"hands": [...]``, one record a line."""

    format = "json"

    def __init__(self, target: str, env: Any, meta: dict[str, Any]) -> None:
        super().__init__(target, env)
        self.meta = meta

    def describe(self) -> dict[str, Any]:
        """The format, the path and the run's facts the head holds."""
        return {**super().describe(), "meta": jsonable(self.meta)}

    def head(self, cols: Columns) -> str:
        """The run's facts, then the opening of the records' list."""
        return json.dumps(jsonable(self.meta), indent=2)[:-2] + ',\n  "hands": [\n'

    def text(self, cols: Columns) -> str:
        """One record a line, separated by commas (also from the chunk before)."""
        scalar = [(f, _python(cols.table[f])) for f in cols.names]
        blocks, trick_rows = cols.block.astype(int).tolist(), cols.tricks.tolist()
        lines = []
        for i, h in enumerate(cols.table["hand"].tolist()):
            rec: dict[str, Any] = {"hand": h}
            for f, values in scalar:
                rec[f] = values[i]
            rec[cols.block_name] = blocks[i]
            rec["tricks"] = trick_rows[i]
            lines.append("    " + json.dumps(rec))
        lead = ",\n" if self.hands else ""
        return lead + ",\n".join(lines)

    def finish(self, complete: bool) -> dict[str, Any] | None:
        """Close the records' list and the object (the checkpoint's offset stays before them: a
        resume cuts them off)."""
        if not self.fresh:  # (a head was written: the records' list is open)
            self._emit(TAIL)
        return super().finish(complete)


def _python(x: np.ndarray) -> list[Any]:
    """A column as JSON values: flags as bools, anything else as ints."""
    return x.tolist() if x.dtype == np.bool_ else x.astype(np.int64).tolist()


def _csv_text(rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


class ParquetHands:
    """``--per-hand --parquet FILE``: one row group a chunk.  Without ``parts`` (no
    checkpoint) the chunks go straight into FILE, closed at the end; with ``parts`` (the
    checkpoint's directory) each chunk is a closed part file there, copied into FILE at the
    end (the module's docstring)."""

    def __init__(self, target: str, env: Any, meta: dict[str, Any], parts: Path | None = None):
        self.target, self.env, self.parts = Path(target), env, parts
        self.metadata = {k: json.dumps(v) for k, v in jsonable(meta).items()}
        self.count, self.assembled, self.complete = 0, False, False
        self.writer: Any = None

    def describe(self) -> dict[str, Any]:
        """The format, the absolute path and the metadata (the run's facts)."""
        return {"format": "parquet", "path": os.path.abspath(self.target), "meta": self.metadata}

    def part(self, i: int) -> Path:
        """Part file ``i`` in the checkpoint directory."""
        assert self.parts is not None
        return self.parts / f"hands-{i:06d}.parquet"

    def open(self, position: dict[str, Any] | None) -> None:
        """Without parts: nothing yet (FILE is made at the first write).  With parts: continue after
        the checkpoint's parts, removing any a killed run wrote after them (all of them once FILE is
        whole)."""
        if self.parts is None:
            return
        self.parts.mkdir(parents=True, exist_ok=True)
        self.count = int(position["parts"]) if position else 0
        self.assembled = bool(position and position.get("assembled"))
        if not self.assembled:
            for i in range(self.count):
                if not self.part(i).is_file():
                    raise ValueError(
                        f"{self.part(i)} is gone, but the checkpoint counts it: remove the "
                        "checkpoint to start again"
                    )
        for stale in sorted(self.parts.glob("hands-*.parquet*")):  # (after the position)
            if self.assembled or not stale.name.endswith(".parquet") or _index(stale) >= self.count:
                stale.unlink()

    def write(self, start: int, fields: Mapping[str, np.ndarray]) -> None:
        """One row group of hands ``start ..``: into FILE, or as a closed part file."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.table(Columns(self.env, start, fields).table)
        table = table.replace_schema_metadata(self.metadata)
        if self.parts is None:
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.target, table.schema)
            self.writer.write_table(table, row_group_size=max(1, table.num_rows))
            return
        part = self.part(self.count)
        tmp = part.with_name(part.name + ".tmp")
        pq.write_table(table, tmp, row_group_size=max(1, table.num_rows))
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, part)
        self.count += 1

    def sync(self) -> dict[str, Any]:
        """The parts are on disk (each was fsync'd): their count."""
        if self.parts is not None:
            sync_directory(self.parts)
        return {"parts": self.count}

    def finish(self, complete: bool) -> dict[str, Any] | None:
        """FILE with every hand written: closed, or assembled from the parts; ``complete``: the
        position that says FILE is whole."""
        if self.parts is None:
            self.close()
            return None
        if self.assembled:
            if not self.target.is_file():
                raise ValueError(
                    f"{self.target} is gone, and this checkpoint's run has finished: remove the "
                    "checkpoint to play it again"
                )
            return None
        if self.count:
            self._assemble()
        self.complete = complete
        return {"parts": self.count, "assembled": True} if complete else None

    def _assemble(self) -> None:
        """FILE from the parts, row group by row group (one in memory at a time)."""
        import pyarrow.parquet as pq

        tmp = self.target.with_name(self.target.name + ".tmp")
        schema = pq.read_schema(self.part(0))
        with pq.ParquetWriter(tmp, schema) as out:
            for i in range(self.count):
                part = pq.ParquetFile(self.part(i))
                for g in range(part.num_row_groups):
                    group = part.read_row_group(g)
                    out.write_table(group, row_group_size=max(1, group.num_rows))
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, self.target)
        sync_directory(self.target.parent)

    def close(self) -> None:
        """Close FILE's writer; once FILE is whole, remove the parts."""
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        if self.complete:  # (FILE is whole and the checkpoint says so)
            for i in range(self.count):
                self.part(i).unlink(missing_ok=True)


def _index(part: Path) -> int:
    """The number of a part file (``hands-000012.parquet``: 12)."""
    try:
        return int(part.name.split("-")[1].split(".")[0])
    except (IndexError, ValueError):
        return -1


class Writers:
    """Several per-hand files of one run (``--json``, ``--csv`` and ``--parquet`` together),
    as one ``ChunkWriter``."""

    def __init__(self, writers: list[Any]) -> None:
        self.writers = writers
        self.last: list[Any] = [None] * len(writers)

    def describe(self) -> dict[str, Any]:
        """Every file's description."""
        return {"files": [w.describe() for w in self.writers]}

    def open(self, position: dict[str, Any] | None) -> None:
        """Open every file at its position."""
        self.last = list(position["files"]) if position else [None] * len(self.writers)
        for w, p in zip(self.writers, self.last, strict=True):
            w.open(p)

    def write(self, start: int, fields: Mapping[str, np.ndarray]) -> None:
        """Hands ``start ..`` to every file."""
        for w in self.writers:
            w.write(start, fields)

    def sync(self) -> dict[str, Any]:
        """Every file's position."""
        self.last = [w.sync() for w in self.writers]
        return {"files": self.last}

    def finish(self, complete: bool) -> dict[str, Any] | None:
        """Finish every file; the new positions (the last ones where a file keeps its own)."""
        new = [w.finish(complete) for w in self.writers]
        if all(p is None for p in new):
            return None
        return {"files": [p if p is not None else q for p, q in zip(new, self.last, strict=True)]}

    def close(self) -> None:
        """Close every file."""
        for w in self.writers:
            w.close()
