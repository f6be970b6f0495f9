"""``core.transpositions``: what a store of a searched node lets a later lookup conclude, for
each kind of result (exact, fail-low, fail-high), merged bounds, worlds kept apart and one
writer a row."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from spoilfive_jax.core import transpositions as tt

INF = tt.INF


def _key(word: int, world: int = 0) -> jax.Array:
    seed = tt.seed((jnp.int32(world),))
    return tt.key(jnp.array([word, 7], jnp.int32), seed)


def _store(
    table: jax.Array, keys: list[jax.Array], value: int, alpha: int, beta: int, aux: int = 0
) -> jax.Array:
    b = len(keys)
    e = tt.Entry(
        jnp.ones(b, bool),
        jnp.stack(keys),
        jnp.full(b, value, jnp.int32),
        jnp.full(b, alpha, jnp.int32),
        jnp.full(b, beta, jnp.int32),
        jnp.full(b, aux, jnp.int32),
    )
    return tt.remember(table, e)


def _look(table: jax.Array, key: jax.Array, alpha: int, beta: int) -> tuple[bool, int, int]:
    settled, value, aux = tt.recall(
        table, jnp.ones(1, bool), key[None], jnp.array([alpha]), jnp.array([beta])
    )
    return bool(settled[0]), int(value[0]), int(aux[0])


def test_an_exact_value_settles_every_window() -> None:
    table = _store(tt.empty(64), [_key(1)], 5, 0, 10, aux=3)
    for window in ((-INF, INF), (5, 9), (-3, 5), (6, 8)):
        assert _look(table, _key(1), *window) == (True, 5, 3)


def test_a_fail_low_is_an_upper_bound_only() -> None:
    table = _store(tt.empty(64), [_key(1)], 4, 4, 10)  # at alpha: the value is 4 or less
    assert _look(table, _key(1), 4, 9) == (True, 4, 0)  # 4 <= alpha: a cut
    assert _look(table, _key(1), 6, 9)[:2] == (True, 4)
    assert not _look(table, _key(1), 2, 9)[0]  # could be 3: search it
    assert not _look(table, _key(1), -INF, INF)[0]


def test_a_fail_high_is_a_lower_bound_only() -> None:
    table = _store(tt.empty(64), [_key(1)], 7, 0, 7)  # at beta: the value is 7 or more
    assert _look(table, _key(1), 0, 7)[:2] == (True, 7)
    assert _look(table, _key(1), 0, 5)[:2] == (True, 7)
    assert not _look(table, _key(1), 0, 8)[0]


def test_bounds_of_one_node_merge_without_an_aux() -> None:
    table = _store(tt.empty(64), [_key(1)], 6, 0, 6)  # >= 6
    table = _store(table, [_key(1)], 6, 6, 10)  # <= 6
    assert _look(table, _key(1), 7, 9)[:2] == (True, 6)  # a cut either way
    assert _look(table, _key(1), 0, 5)[:2] == (True, 6)
    assert not _look(table, _key(1), 0, 9)[0]  # its line's aux is unknown: not taken as exact


def test_worlds_and_nodes_are_kept_apart() -> None:
    table = _store(tt.empty(64), [_key(1, world=0)], 5, 0, 10)
    assert not _look(table, _key(1, world=1), -INF, INF)[0]
    assert not _look(table, _key(2, world=0), -INF, INF)[0]


def test_one_writer_a_row() -> None:
    """Two nodes stored to one row in one step: the first in the batch is kept whole."""
    table = tt.empty(1)  # every node shares the one row
    table = _store(table, [_key(1), _key(2)], 5, 0, 10, aux=1)
    assert _look(table, _key(1), -INF, INF) == (True, 5, 1)
    assert not _look(table, _key(2), -INF, INF)[0]
    np.testing.assert_array_equal(np.asarray(table).shape, (1, 6))


@pytest.mark.parametrize("size", [0, 3, 100])
def test_the_size_is_a_power_of_two(size: int) -> None:
    with pytest.raises(ValueError, match="power of two"):
        tt.empty(size)
