"""``core.transpositions``: what a store of a searched node lets a later lookup conclude, for
each kind of result (exact, fail-low, fail-high), a store replacing another, worlds kept apart
and rows written twice in a step."""

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


def test_a_later_store_replaces_the_entry() -> None:
    table = _store(tt.empty(64), [_key(1)], 6, 0, 6)  # >= 6
    table = _store(table, [_key(1)], 6, 6, 10)  # <= 6
    assert _look(table, _key(1), 7, 9)[:2] == (True, 6)  # the upper bound cuts
    assert not _look(table, _key(1), 0, 5)[0]  # the lower bound is gone
    assert not _look(table, _key(1), 0, 9)[0]  # two bounds are never taken as an exact value


def test_worlds_and_nodes_are_kept_apart() -> None:
    table = _store(tt.empty(64), [_key(1, world=0)], 5, 0, 10)
    assert not _look(table, _key(1, world=1), -INF, INF)[0]
    assert not _look(table, _key(2, world=0), -INF, INF)[0]


def test_a_row_stored_twice_in_a_step_holds_one_entry_or_none() -> None:
    """Two nodes stored to one row in one step: a lookup of each finds its own entry or
    nothing; a row mixing the words of two stores (as a device may write it) is ignored."""
    table = _store(tt.empty(1), [_key(1), _key(2)], 5, 0, 10, aux=1)
    found = [_look(table, _key(w), -INF, INF) for w in (1, 2)]
    assert sorted(f[0] for f in found) == [False, True]
    assert (True, 5, 1) in found
    first = np.asarray(_store(tt.empty(1), [_key(1)], 5, 0, 10, aux=1))
    second = np.asarray(_store(tt.empty(1), [_key(2)], 3, 0, 10))
    mixed = np.concatenate([first[:, :2], second[:, 2:]], axis=1)  # node 1's check, 2's value
    assert not _look(jnp.asarray(mixed), _key(1), -INF, INF)[0]
    assert _look(jnp.asarray(first), _key(1), -INF, INF)[0]


@pytest.mark.parametrize("size", [0, 3, 100])
def test_the_size_is_a_power_of_two(size: int) -> None:
    with pytest.raises(ValueError, match="power of two"):
        tt.empty(size)
