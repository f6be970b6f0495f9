"""Long runs: checkpoints, per-hand writers and the chunk loop every streamed run tool shares.

A streamed run (``rollout``/``score_hands``/``evaluate`` with ``per_hand=False``) plays its
hands call by call ("chunks", ``tools.chunks``) and pools each call's output into a state of
fixed size on the host.  ``run_chunks`` is that loop, for every tool, with what a long run
needs around it:

- ``checkpoint``: after every chunk, the pooled state, the hands done and the per-hand writer's
  position are written to ``DIR/state.ckpt`` atomically (a temporary file, fsync, ``os.replace``,
  fsync of the directory), with a sha256 of the payload.  The same run started again with the
  same directory resumes after the last chunk saved and gives the result of a run never
  stopped, bit for bit: the chunks are cut from the position alone, and the state is pooled in
  the same order from the same float64 values.  A checkpoint of another run (the ``run``
  description differs: key, game, rules, policies, size, batch, ...) is refused with a
  ``ValueError`` naming what differs; a torn or corrupted one (its checksum does not match) is
  never used.
- ``writer`` (a ``ChunkWriter``): each chunk's per-hand fields go to a file as they are played,
  flushed and positioned with every checkpoint.
- ``stop``: asked after each chunk; True ends the run there (checkpoint saved), with the result
  of the hands done so far.  A ``KeyboardInterrupt`` at any moment leaves the last checkpoint
  valid (it is replaced whole, or not at all).
- ``progress(done, total)``: called once before the first chunk (``done``: the hands a
  checkpoint already holds, else 0) and after each chunk.
- Many processes (``tools.distributed``): every process reads the checkpoint (a directory they
  share) and must find the same hands done (else a ``ValueError``); process 0 alone writes it
  and the per-hand files; a stop asked of any process stops all of them after the same chunk.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import io
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import jax
import numpy as np

from spoilfive_jax.core.env import Env, R, S
from spoilfive_jax.core.stats import Moments, RunStats
from spoilfive_jax.tools.chunks import Chunk
from spoilfive_jax.tools.distributed import agree, any_process, is_main_process, same_everywhere

MAGIC = b"spoilfive-checkpoint 1\n"
STATE = "state.ckpt"


@dataclasses.dataclass(frozen=True)
class Saved:
    """What a checkpoint holds: the hands done, the pooled state (a tree of host arrays,
    ``RunStats`` and ``Moments``), the run's seconds so far and the writer's position."""

    done: int
    state: Any
    seconds: float = 0.0
    position: dict[str, Any] | None = None


class Checkpoint:
    """A run's checkpoint directory (created on first use).  ``note``: more JSON-able facts
    that must match on resume (the command line puts what the library cannot see there, e.g.
    the policies' names and the agent files' checksums).  Two runs must not share one."""

    def __init__(self, directory: str | os.PathLike[str], *, note: Mapping[str, Any] | None = None):
        try:
            self.directory = Path(os.fspath(directory))
        except TypeError:
            raise ValueError(
                f"checkpoint must be a directory path, got {type(directory).__name__}"
            ) from None
        if self.directory.exists() and not self.directory.is_dir():
            raise ValueError(f"checkpoint: {self.directory} is a file, not a directory")
        try:
            self.note = json.loads(json.dumps(dict(note or {}), allow_nan=False))
        except (TypeError, ValueError) as e:
            raise ValueError(f"checkpoint note must be JSON-able: {e}") from None

    @property
    def file(self) -> Path:
        """``DIR/state.ckpt``."""
        return self.directory / STATE

    def __repr__(self) -> str:
        return f"Checkpoint({str(self.directory)!r})"

    def info(self) -> dict[str, Any] | None:
        """The saved record (``run``, ``done``, ``seconds``, ``position``) without its state,
        None when nothing is saved yet; ``ValueError`` when the file is damaged."""
        payload = self._read()
        return None if payload is None else payload[0]

    def load(self, run: Mapping[str, Any]) -> Saved | None:
        """The saved state of ``run`` (None: nothing saved yet), or ``ValueError`` when the
        directory holds another run's checkpoint or a damaged one."""
        payload = self._read()
        if payload is None:
            return None
        meta, arrays = payload
        expected = {**_plain(run), "note": self.note}
        if meta.get("run") != expected:
            differ = _differences(meta.get("run"), expected)
            raise ValueError(
                f"checkpoint {self.directory} is of another run ({differ}); give another "
                "directory, or remove it to start again"
            )
        try:
            state = _decode(meta["state"], arrays)
            return Saved(int(meta["done"]), state, float(meta["seconds"]), meta["position"])
        except (KeyError, TypeError, ValueError) as e:
            raise self._damaged(f"its state cannot be read: {e}") from None

    def save(self, run: Mapping[str, Any], saved: Saved) -> None:
        """Write ``saved`` atomically: the old checkpoint stays whole until the new one is."""
        arrays: dict[str, np.ndarray] = {}
        meta = {
            "run": {**_plain(run), "note": self.note},
            "done": int(saved.done),
            "seconds": float(saved.seconds),
            "position": saved.position,
            "state": _encode(saved.state, arrays),
        }
        buf = io.BytesIO()
        np.savez(buf, **arrays)  # type: ignore[arg-type]
        payload = json.dumps(meta).encode() + b"\n" + buf.getvalue()
        digest = hashlib.sha256(payload).hexdigest().encode()
        self.make()
        write_atomic(self.file, MAGIC + b"sha256 " + digest + b"\n" + payload)

    def make(self) -> None:
        """Create the directory (``ValueError`` when it cannot be)."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(
                f"checkpoint: cannot create {self.directory}: {e.strerror or e}"
            ) from None

    def _damaged(self, why: str) -> ValueError:
        return ValueError(
            f"checkpoint {self.file} is damaged ({why}); remove it to start the run again"
        )

    def _read(self) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
        if self.directory.exists() and not self.directory.is_dir():
            raise ValueError(f"checkpoint: {self.directory} is a file, not a directory")
        try:
            data = self.file.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as e:
            raise ValueError(f"checkpoint: cannot read {self.file}: {e.strerror or e}") from None
        if not data.startswith(MAGIC):
            raise ValueError(f"checkpoint: {self.file} is not a spoilfive checkpoint")
        head, _, payload = data[len(MAGIC) :].partition(b"\n")
        if head != b"sha256 " + hashlib.sha256(payload).hexdigest().encode():
            raise self._damaged("its sha256 does not match: a torn or corrupted write")
        try:
            text, _, blob = payload.partition(b"\n")
            with np.load(io.BytesIO(blob), allow_pickle=False) as npz:
                arrays = {k: npz[k] for k in npz.files}
            return json.loads(text), arrays
        except (OSError, ValueError) as e:
            raise self._damaged(str(e)) from None


def write_atomic(path: Path, data: bytes) -> None:
    """``path`` holds ``data`` or what it held before, never part of it (temporary file,
    fsync, ``os.replace``, fsync of the directory)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    sync_directory(path.parent)


def sync_directory(directory: Path) -> None:
    """fsync a directory, so a rename in it is on disk (a no-op where that is not possible)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


CheckpointSpec = str | os.PathLike[str] | Checkpoint | None
"""What a tool's ``checkpoint=`` takes: a directory path, a ``Checkpoint`` or None (none)."""


def as_checkpoint(value: CheckpointSpec) -> Checkpoint | None:
    """``value`` as a ``Checkpoint``: None, a ``Checkpoint`` or a directory path."""
    if value is None or isinstance(value, Checkpoint):
        return value
    return Checkpoint(value)


# ---------------------------------------------------------------------------- what a run is


def _plain(x: Any) -> Any:
    """``x`` as JSON reads it back (tuples become lists), for comparisons."""
    return json.loads(json.dumps(x))


def _differences(saved: Any, expected: dict[str, Any]) -> str:
    if not isinstance(saved, dict):
        return "no run description"
    keys = sorted(k for k in {*saved, *expected} if saved.get(k) != expected.get(k))
    return ", ".join(
        f"{k}: {_short(saved.get(k))} in the checkpoint, {_short(expected.get(k))} in this run"
        for k in keys
    )


def _short(x: Any) -> str:
    text = json.dumps(x)
    return text if len(text) <= 60 else text[:57] + "..."


def key_facts(key: jax.Array) -> dict[str, Any]:
    """A PRNG key's implementation and data (JSON), to tell runs apart."""
    typed = jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key)
    data = jax.random.key_data(key) if typed else key
    impl = str(jax.random.key_impl(key)) if typed else "raw"
    return {"impl": impl, "data": np.asarray(data).ravel().tolist()}


def policy_facts(names: tuple[str | None, ...], policies: tuple[Any, ...], seats: Any) -> Any:
    """A lineup's built-in names, or its callables' module, name and ``repr`` (when that names
    no memory address), and the seats' policy indices."""

    def one(name: str | None, fn: Any) -> str:
        if name is not None:
            return name
        text = repr(fn)
        if " at 0x" in text:
            name = getattr(fn, "__qualname__", type(fn).__qualname__)
            text = f"{getattr(fn, '__module__', '')}.{name}"
        return text

    return {
        "policies": [one(n, f) for n, f in zip(names, policies, strict=True)],
        "seats": np.asarray(seats).tolist(),
    }


def env_facts(env: Env[S, R]) -> dict[str, Any]:
    """The game, table and rules of ``env`` (JSON)."""
    return {"game": env.id, "players": env.num_players, "rules": repr(env.rules)}


def _version() -> str:
    """The installed package's version (the package's ``__init__`` is above the tools)."""
    try:
        return importlib.metadata.version("spoilfive-jax")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def run_facts(tool: str, env: Env[S, R], key: jax.Array, **facts: Any) -> dict[str, Any]:
    """What makes a run's result: the tool, the game, the key, the backend, the package
    version and the tool's own ``facts``."""
    return {
        "tool": tool,
        **env_facts(env),
        "key": key_facts(key),
        "backend": jax.default_backend(),
        "version": _version(),
        **facts,
    }


# ---------------------------------------------------------------------------- state on disk

_TYPES: dict[str, Any] = {"RunStats": RunStats, "Moments": Moments}


def _encode(x: Any, arrays: dict[str, np.ndarray]) -> Any:
    """``x`` as JSON, its arrays stored in ``arrays`` under names (exact: dtype and bits)."""
    if isinstance(x, (np.ndarray, np.generic, jax.Array)):
        name = f"a{len(arrays)}"
        arrays[name] = np.asarray(x)
        return {"scalar" if isinstance(x, np.generic) else "array": name}
    if isinstance(x, RunStats) or (isinstance(x, tuple) and type(x).__name__ in _TYPES):
        kind = type(x).__name__
        if _TYPES.get(kind) is not type(x):
            raise TypeError(f"cannot checkpoint a {kind}")
        if isinstance(x, RunStats):  # (not dataclasses.asdict: it copies the Moments as tuples)
            items = {f.name: getattr(x, f.name) for f in dataclasses.fields(x)}
        else:
            items = x._asdict()  # type: ignore[attr-defined]
        return {"type": kind, "fields": {k: _encode(v, arrays) for k, v in items.items()}}
    if isinstance(x, dict):
        return {"dict": [[k, _encode(v, arrays)] for k, v in x.items()]}
    if isinstance(x, (list, tuple)):
        return {"list" if isinstance(x, list) else "tuple": [_encode(v, arrays) for v in x]}
    if x is None or isinstance(x, (bool, int, float, str)):
        return {"value": x}
    raise TypeError(f"cannot checkpoint a {type(x).__name__}")


def _decode(x: dict[str, Any], arrays: dict[str, np.ndarray]) -> Any:
    """The inverse of ``_encode``."""
    if "array" in x:
        return np.array(arrays[x["array"]])
    if "scalar" in x:
        return arrays[x["scalar"]][()]
    if "type" in x:
        fields = {k: _decode(v, arrays) for k, v in x["fields"].items()}
        return _TYPES[x["type"]](**fields)
    if "dict" in x:
        return {k: _decode(v, arrays) for k, v in x["dict"]}
    if "list" in x:
        return [_decode(v, arrays) for v in x["list"]]
    if "tuple" in x:
        return tuple(_decode(v, arrays) for v in x["tuple"])
    return x["value"]


# ---------------------------------------------------------------------------- the chunk loop


@runtime_checkable
class ChunkWriter(Protocol):
    """Where a streamed rollout's per-hand fields go, chunk by chunk (the command line's CSV,
    JSON and Parquet files).  ``run_chunks`` calls ``open`` once, ``write`` for every chunk in
    order of the hands, ``sync`` before each checkpoint, ``finish`` at the end (also when
    stopped early) and ``close`` always, last."""

    def describe(self) -> dict[str, Any]:
        """What is written where (JSON): part of the run a checkpoint must match."""
        ...

    def open(self, position: dict[str, Any] | None) -> None:
        """Start a new file (``position`` None), or continue one at a checkpoint's
        ``position`` (what ``sync`` returned), dropping whatever was written after it."""
        ...

    def write(self, start: int, fields: Mapping[str, np.ndarray]) -> None:
        """Hands ``start ..`` of the run: ``fields`` name -> host array, hands first (the
        ``RolloutResult`` fields of the chunk)."""
        ...

    def sync(self) -> dict[str, Any]:
        """Everything written so far is on disk; returns the position to resume from."""
        ...

    def finish(self, complete: bool) -> dict[str, Any] | None:
        """Finish the file(s) with the hands written (``complete``: every hand of the run);
        returns a new position for the checkpoint, or None to keep the last one."""
        ...

    def close(self) -> None:
        """Release the files (after ``finish``, or on an error: the last ``sync`` stands)."""
        ...


@dataclasses.dataclass(frozen=True)
class Outcome:
    """The end of ``run_chunks``: the pooled state (None: no chunk), the hands done of
    ``total`` and the seconds the run took (over every resumed part)."""

    state: Any
    done: int
    total: int
    seconds: float

    @property
    def stopped(self) -> bool:
        """The run ended early (``stop``): ``done < total``."""
        return self.done < self.total


@dataclasses.dataclass(frozen=True)
class Loop:
    """What a tool's streamed run gives ``run_chunks``: ``calls(done)`` dispatches the calls
    of the hands from ``done`` on (yields ``(output, chunk)``; each chunk's cut depends on its
    position alone), ``add(state, output, chunk)`` pools one (state None: the first) and,
    with a writer, ``hands(output, chunk)`` is the chunk's per-hand fields."""

    calls: Callable[[int], Iterator[tuple[Any, Chunk]]]
    add: Callable[[Any, Any, Chunk], Any]
    total: int
    run: dict[str, Any]
    hands: Callable[[Any, Chunk], Mapping[str, np.ndarray]] | None = None


def run_chunks(
    loop: Loop,
    *,
    checkpoint: Checkpoint | None = None,
    writer: ChunkWriter | None = None,
    progress: Callable[[int, int], Any] | None = None,
    stop: Callable[[], bool] | None = None,
) -> Outcome:
    """Play ``loop``'s chunks (resumed from ``checkpoint``), one call dispatched ahead of the
    one pooled; see the module's docstring."""
    begin = time.perf_counter()
    # (what is played, before any of it; where process 0 alone writes the hands may differ)
    agree("the processes were given different runs", loop.run)
    run = dict(loop.run)
    if writer is not None:
        run["writer"] = writer.describe()
    saved = checkpoint.load(run) if checkpoint is not None else None
    done, state, before = (saved.done, saved.state, saved.seconds) if saved else (0, None, 0.0)
    # A multi-process run (``tools.distributed``): every process reads the checkpoint, process 0
    # alone writes it and the per-hand files, and a stop asked of any process stops them all.
    main = is_main_process()
    if checkpoint is not None:
        same_everywhere(
            "the hands a checkpoint holds",
            done,
            f"{checkpoint.directory} must be one directory"
            " that every process reads (a shared filesystem)",
        )
    out_writer = writer if main else None
    if out_writer is not None:
        out_writer.open(saved.position if saved else None)
    try:
        if progress is not None:
            progress(done, loop.total)
        calls = loop.calls(done)
        pending = next(calls, None) if done < loop.total else None
        while pending is not None:
            wanted = stop is None or not any_process(stop())
            ahead = next(calls, None) if wanted else None  # the device plays on meanwhile
            out, chunk = pending
            state = loop.add(state, out, chunk)
            done += chunk.hands
            if writer is not None:
                assert loop.hands is not None, "a writer needs the loop's hands"
                hands = loop.hands(out, chunk)  # (every process: a collective when spread)
                if out_writer is not None:
                    out_writer.write(chunk.start, hands)
            if checkpoint is not None and main:
                seconds = before + time.perf_counter() - begin
                position = out_writer.sync() if out_writer is not None else None
                checkpoint.save(run, Saved(done, state, seconds, position))
            if progress is not None:
                progress(done, loop.total)
            pending = ahead if wanted and (stop is None or not any_process(stop())) else None
        seconds = before + time.perf_counter() - begin
        if out_writer is not None:
            position = out_writer.finish(done == loop.total)
            if checkpoint is not None and position is not None:
                checkpoint.save(run, Saved(done, state, seconds, position))
    finally:
        if out_writer is not None:
            out_writer.close()
    return Outcome(state, done, loop.total, seconds)
