"""The mapping limit (``tools.programs``): a process near ``vm.max_map_count`` drops JAX's
compiled programs at the next tool call, with a warning, and the tools give the same results
after (the programs compile again)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.tools import programs

ENV = sf.make("spoil_five", num_players=3)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_counts_come_from_the_operating_system() -> None:
    assert programs.mappings() > 100  # (the interpreter, its libraries and JAX's)
    assert programs.map_limit() >= 1000


def test_a_process_far_from_the_limit_keeps_its_programs(recwarn: pytest.WarningsRecorder) -> None:
    assert not programs.bound_compiled_programs()
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.slow
def test_near_the_limit_the_tools_drop_the_programs_and_give_the_same_results(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = sf.rollout(0, ENV, "random", 100, 32).rewards
    monkeypatch.setattr(programs, "map_limit", lambda: 10)  # any process holds more than 5
    with pytest.warns(RuntimeWarning, match="compiled programs were dropped"):
        after = sf.rollout(0, ENV, "random", 100, 32).rewards
    np.testing.assert_array_equal(before, after)
    # every other tool checks the guard too; dropping once more per call would only make each
    # compile again (and every later test of this worker), so the drop itself is counted here
    dropped: list[bool] = []
    monkeypatch.setattr(programs.jax, "clear_caches", lambda: dropped.append(True))
    for call in (
        lambda: sf.evaluate(0, ENV, {"a": "random", "b": "random"}, 8, 8),
        lambda: sf.play_sessions(0, ENV, "random", 4, max_hands=2, batch_size=4),
        lambda: sf.analyze(0, ENV, ENV.init(0), num_samples=4, policy="random"),
        lambda: sf.score_hands(0, [[0, 1, 2, 3, 4]], 20, 1, env=ENV, num_rollouts=4),
    ):
        had = len(dropped)
        with pytest.warns(RuntimeWarning, match="mappings"):
            call()
        assert len(dropped) > had
