"""The reading of positions that every game shares (``core.position``)."""

from __future__ import annotations

import math

import pytest

from spoilfive_jax.core.position import first_inconsistent_move


@pytest.mark.parametrize("count", [1, 2, 7, 16])
def test_bisection_finds_the_first_inconsistent_prefix_in_log_replays(count):
    for start in (1, 3):
        for first in range(max(start, 1), count + 1):
            asked: list[int] = []

            def consistent(k: int, first: int = first, asked: list[int] = asked) -> bool:
                asked.append(k)
                return k < first

            assert first_inconsistent_move(count, start, consistent) == first
            assert all(start <= k < count for k in asked)  # the whole history is known
            assert len(asked) <= math.ceil(math.log2(count)) if count > 1 else not asked


def test_a_history_inconsistent_from_its_first_tried_prefix_blames_that_move():
    assert first_inconsistent_move(9, 4, lambda k: False) == 4
    assert first_inconsistent_move(9, 0, lambda k: False) == 1
