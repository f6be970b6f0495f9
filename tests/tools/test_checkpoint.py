"""Checkpoint and resume in the library (``tools.checkpoint``): a streamed run stopped after any
chunk and resumed from its checkpoint gives the result of a run never stopped, bit for bit
(every number of the summary, the per-hand fields a writer receives); a checkpoint of another
run, or a damaged one, is refused by name; a ``KeyboardInterrupt`` leaves the last checkpoint
valid.

One small table and one batch (``B``: 300 hands are two calls of 16 batches, the last one
partial), so each tool compiles once.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.tools.checkpoint import STATE, Checkpoint, ChunkWriter
from spoilfive_jax.tools.rollout import rollout_range

B = 16
HANDS = 300  # two calls of 256 hands, the last one partial
ENV = sf.make("spoil_five", num_players=2)
TIMING = ("hands_per_s", "seconds")


def assert_identical(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Every number of two summaries bit for bit (timings apart)."""
    assert a.keys() == b.keys()
    for k in a:
        if k not in TIMING:
            x, y = np.asarray(a[k]), np.asarray(b[k])
            assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), k


def stop_after(calls: int) -> Any:
    """A ``should_stop`` that says stop once ``calls`` chunks are done."""
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)

    def stop() -> bool:
        return len(seen) > calls  # (the first progress call is the start)

    return progress, stop


class Recorder:
    """A ``ChunkWriter`` that keeps what it is given (and where it was told to resume)."""

    def __init__(self) -> None:
        self.parts: list[tuple[int, dict[str, np.ndarray]]] = []
        self.opened: list[Any] = []
        self.finished: list[bool] = []

    def describe(self) -> dict[str, Any]:
        return {"format": "memory"}

    def open(self, position: dict[str, Any] | None) -> None:
        self.opened.append(position)

    def write(self, start: int, fields: Mapping[str, np.ndarray]) -> None:
        self.parts.append((start, {k: np.array(v) for k, v in fields.items()}))

    def sync(self) -> dict[str, Any]:
        return {"chunks": len(self.parts)}

    def finish(self, complete: bool) -> dict[str, Any] | None:
        self.finished.append(complete)
        return None

    def close(self) -> None:
        pass


def test_a_stopped_rollout_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    plain = sf.rollout(3, ENV, "random", HANDS, B, per_hand=False)
    progress, stop = stop_after(1)
    kw: dict[str, Any] = {"per_hand": False, "checkpoint": tmp_path}
    first = sf.rollout(3, ENV, "random", HANDS, B, progress, should_stop=stop, **kw)
    assert first.num_hands == 256  # one call of 16 batches
    assert Checkpoint(tmp_path).info()["done"] == 256
    seen: list[tuple[int, int]] = []
    resumed = sf.rollout(3, ENV, "random", HANDS, B, lambda d, t: seen.append((d, t)), **kw)
    assert seen == [(256, HANDS), (HANDS, HANDS)]  # the bar starts at the hands already done
    assert resumed.num_hands == HANDS
    assert_identical(plain.summary(), resumed.summary())
    # run again: nothing left to play, the same result
    again = sf.rollout(3, ENV, "random", HANDS, B, **kw)
    assert_identical(plain.summary(), again.summary())


def test_a_writer_gets_every_hand_once_across_a_resume(tmp_path: Path) -> None:
    whole = sf.rollout(3, ENV, "random", HANDS, B)  # per hand, in memory
    progress, stop = stop_after(1)
    a, b = Recorder(), Recorder()
    kw: dict[str, Any] = {"per_hand": False, "checkpoint": tmp_path}
    sf.rollout(3, ENV, "random", HANDS, B, progress, writer=a, should_stop=stop, **kw)
    sf.rollout(3, ENV, "random", HANDS, B, writer=b, **kw)
    assert a.opened == [None] and b.opened == [{"chunks": 1}]
    assert a.finished == [False] and b.finished == [True]
    parts = a.parts + b.parts
    assert [s for s, _ in parts] == [0, 256]
    for name, x in whole.fields.items():
        np.testing.assert_array_equal(np.concatenate([p[name] for _, p in parts]), x, name)
    # a checkpoint of a run without that writer is another run's
    with pytest.raises(ValueError, match=r"another run.*writer"):
        sf.rollout(3, ENV, "random", HANDS, B, **kw)
    assert isinstance(a, ChunkWriter)


def test_ranges_resume_too(tmp_path: Path) -> None:
    plain = rollout_range(3, ENV, "random", 40, HANDS, B, per_hand=False)
    progress, stop = stop_after(1)
    kw: dict[str, Any] = {"per_hand": False, "checkpoint": tmp_path}
    rollout_range(3, ENV, "random", 40, HANDS, B, progress, should_stop=stop, **kw)
    resumed = rollout_range(3, ENV, "random", 40, HANDS, B, **kw)
    assert_identical(plain.summary(), resumed.summary())


def test_evaluate_and_score_hands_resume(tmp_path: Path) -> None:
    entrants = {"first": "random", "second": "random"}
    plain = sf.evaluate(5, ENV, entrants, HANDS, B, per_hand=False)
    progress, stop = stop_after(1)
    kw: dict[str, Any] = {"per_hand": False, "checkpoint": tmp_path / "evaluate"}
    part = sf.evaluate(5, ENV, entrants, HANDS, B, progress=progress, should_stop=stop, **kw)
    assert part.hands == 256
    done = sf.evaluate(5, ENV, entrants, HANDS, B, **kw)
    for name in ("mean_reward", "ci95", "win_rate"):
        np.testing.assert_array_equal(getattr(plain, name), getattr(done, name), name)

    hands = np.array([[0, 1, 2, 3, 4], [10, 11, 25, 40, 51]], np.int32)
    kw = {"env": ENV, "policy": "random", "num_rollouts": 40, "batch_size": B, "per_hand": False}
    plain = sf.score_hands(2, hands, 20, [1, 0], **kw)
    progress, stop = stop_after(3)  # 48 rollouts: the first query's 40 are all done
    ckpt = tmp_path / "score"
    part = sf.score_hands(
        2, hands, 20, [1, 0], progress=progress, checkpoint=ckpt, should_stop=stop, **kw
    )
    assert part.win_prob.shape == (1,) and part.win_prob[0] == plain.win_prob[0]
    done = sf.score_hands(2, hands, 20, [1, 0], checkpoint=ckpt, **kw)
    for name, x in vars(plain).items():
        np.testing.assert_array_equal(x, getattr(done, name), name)


def test_a_checkpoint_of_another_run_is_refused(tmp_path: Path) -> None:
    progress, stop = stop_after(1)
    kw: dict[str, Any] = {"per_hand": False, "checkpoint": tmp_path}
    sf.rollout(3, ENV, "random", HANDS, B, progress, should_stop=stop, **kw)
    others = {
        "key": lambda: sf.rollout(4, ENV, "random", HANDS, B, **kw),
        "range": lambda: sf.rollout(3, ENV, "random", HANDS + 1, B, **kw),
        "batch": lambda: sf.rollout(3, ENV, "random", HANDS, 2 * B, **kw),
        "policy": lambda: sf.rollout(3, ENV, "heuristic", HANDS, B, **kw),
        "options": lambda: sf.rollout(3, ENV, "random", HANDS, B, dealer=1, **kw),
        "players": lambda: sf.rollout(3, sf.make("spoil_five", 3), "random", HANDS, B, **kw),
        "game": lambda: sf.rollout(3, sf.make("forty_five", 2), "random", HANDS, B, **kw),
        "tool": lambda: sf.evaluate(3, ENV, ["random", "heuristic"], HANDS, B, **kw),
    }
    for what, call in others.items():
        with pytest.raises(ValueError, match=f"is of another run \\(.*{what}: ") as e:
            call()
        assert "\n" not in str(e.value)
    note = Checkpoint(tmp_path, note={"policies": ["agent:a.npz"]})
    with pytest.raises(ValueError, match=r"another run.*note"):
        sf.rollout(3, ENV, "random", HANDS, B, per_hand=False, checkpoint=note)


def flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_damaged_checkpoint_is_never_used(tmp_path: Path) -> None:
    progress, stop = stop_after(1)
    kw: dict[str, Any] = {"per_hand": False, "checkpoint": tmp_path}
    sf.rollout(3, ENV, "random", HANDS, B, progress, should_stop=stop, **kw)
    state = tmp_path / STATE
    good = state.read_bytes()
    for at in (len(good) - 5, len(good) // 2, 80):  # in the arrays, the JSON, the checksum
        flip(state, at)
        with pytest.raises(ValueError, match=r"is damaged.*sha256 does not match"):
            sf.rollout(3, ENV, "random", HANDS, B, **kw)
        state.write_bytes(good)
    state.write_bytes(good[: len(good) // 2])  # torn
    with pytest.raises(ValueError, match="is damaged"):
        sf.rollout(3, ENV, "random", HANDS, B, **kw)
    state.write_bytes(b"something else")
    with pytest.raises(ValueError, match="is not a spoilfive checkpoint"):
        sf.rollout(3, ENV, "random", HANDS, B, **kw)
    state.write_bytes(good)  # whole again: it resumes
    assert sf.rollout(3, ENV, "random", HANDS, B, **kw).num_hands == HANDS


def test_a_keyboard_interrupt_leaves_the_last_checkpoint_valid(tmp_path: Path) -> None:
    plain = sf.rollout(3, ENV, "random", 600, B, per_hand=False)

    def interrupt(done: int, total: int) -> None:
        if done >= 512:  # after the second call's checkpoint, as a Ctrl-C might land
            raise KeyboardInterrupt

    kw: dict[str, Any] = {"per_hand": False, "checkpoint": tmp_path}
    with pytest.raises(KeyboardInterrupt):
        sf.rollout(3, ENV, "random", 600, B, interrupt, **kw)
    assert Checkpoint(tmp_path).info()["done"] == 512
    assert_identical(plain.summary(), sf.rollout(3, ENV, "random", 600, B, **kw).summary())


def test_bad_checkpoint_arguments_are_named(tmp_path: Path) -> None:
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(ValueError, match="is a file, not a directory"):
        sf.rollout(0, ENV, "random", 8, per_hand=False, checkpoint=afile)
    with pytest.raises(ValueError, match="checkpoint must be a directory path, got int"):
        sf.rollout(0, ENV, "random", 8, per_hand=False, checkpoint=3)
    with pytest.raises(ValueError, match="need per_hand=False"):
        sf.rollout(0, ENV, "random", 8, checkpoint=tmp_path)
    with pytest.raises(ValueError, match="need per_hand=False"):
        sf.evaluate(0, ENV, ["random", "heuristic"], 8, checkpoint=tmp_path)
    with pytest.raises(ValueError, match=r"writer must be a tools\.checkpoint\.ChunkWriter"):
        sf.rollout(0, ENV, "random", 8, per_hand=False, writer=object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="note must be JSON-able"):
        Checkpoint(tmp_path, note={"x": object()})
