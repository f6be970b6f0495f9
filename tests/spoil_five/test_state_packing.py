"""The packed layout of Spoil Five's ``State`` (``games/spoil_five/state.py``): every packed
attribute round-trips at the ends of its range without touching its neighbours, reads work on
batched states, ``replace`` takes the old names (packed attributes, ``tricks_won``, ``hands``),
and the derived ``hands`` follow the cards played, the rob and the discard.  Then the packing
convention itself (``core/packed.py``): offsets, flags, cutting, per-seat values."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core.bits import Bits, members
from spoilfive_jax.core.packed import (
    Field,
    get,
    mask,
    pack_changes,
    pack_seats,
    put,
    seat_value,
    unpack_seats,
)
from spoilfive_jax.games.spoil_five import fast, game, view
from spoilfive_jax.games.spoil_five.state import PACKED_NAMES, RECORD, STATUS

# The range of every packed attribute for tables of up to 10 seats (docs: ``state.STATUS``).
RANGES = {
    "phase": (0, 3),
    "terminated": (False, True),
    "current_player": (-1, 9),
    "leader": (0, 9),
    "led_class": (-1, 4),
    "best_power": (-1, 29),
    "best_seat": (-1, 9),
    "renege_level": (-1, 13),
    "winner": (-1, 9),
    "trick_num": (0, 5),
    "jinker": (-1, 9),
    "robbed": (False, True),
    "illegal": (False, True),
    "_step_count": (0, 5 * 10 + 2),
}


def test_every_packed_attribute_has_a_range_and_the_fields_do_not_overlap() -> None:
    assert set(RANGES) == set(PACKED_NAMES)
    assert len(PACKED_NAMES) == len(set(PACKED_NAMES))
    for word in (STATUS, RECORD):
        used = 0
        for name, field in word.fields.items():
            assert used & field.mask == 0, f"{word.name}: overlapping fields"
            used |= field.mask
            lo, hi = RANGES[name]
            stored = (int(lo) + field.offset, int(hi) + field.offset)
            assert stored[0] >= 0 and stored[1] < 1 << field.width, f"{name}: range does not fit"
            assert field.flag == isinstance(lo, bool), name
        assert used < 1 << 31, f"{word.name} must stay a non-negative int32"


@pytest.mark.parametrize("n", [2, 10])
def test_round_trip_at_the_extremes_leaves_the_neighbours(n: int) -> None:
    state = sf.spoil_five.SpoilFive(n).init(jax.random.PRNGKey(n))
    before = {name: np.asarray(getattr(state, name)) for name in PACKED_NAMES}
    for name, (lo, hi) in RANGES.items():
        for value in (lo, hi):
            out = state.replace(**{name: value})
            got = np.asarray(getattr(out, name))
            assert got.dtype == (np.bool_ if isinstance(lo, bool) else np.int32), name
            assert got == value, (name, value, got)
            for other in PACKED_NAMES:
                if other != name:
                    assert np.asarray(getattr(out, other)) == before[other], (name, other)


def test_all_extremes_together() -> None:
    state = sf.spoil_five.SpoilFive(10).init(jax.random.PRNGKey(0))
    for pick in itertools.product((0, 1), repeat=3):  # a few mixes of low and high ends
        values = {name: RANGES[name][pick[i % 3]] for i, name in enumerate(sorted(RANGES))}
        out = state.replace(**values)
        for name, value in values.items():
            assert np.asarray(getattr(out, name)) == value, name


def test_a_host_state_reads_back_numpy_with_the_same_values() -> None:
    """After ``jax.device_get`` the packed attributes read in numpy (no JAX call a read): the
    same values and dtypes as on the device, at both ends of every range, batched."""
    state = sf.spoil_five.SpoilFive(10).init(jax.random.PRNGKey(0))
    ends = [state.replace(**{name: RANGES[name][i] for name in RANGES}) for i in (0, 1)]
    both = jax.tree.map(lambda *x: jnp.stack(x), *ends)
    host = jax.device_get(both)
    for name in PACKED_NAMES:
        got, want = getattr(host, name), getattr(both, name)
        assert isinstance(got, np.ndarray) and not isinstance(got, jax.Array), name
        assert got.dtype == want.dtype and got.shape == want.shape == (2,), name
        np.testing.assert_array_equal(got, want, err_msg=name)
        assert getattr(jax.tree.map(lambda x: x[1], host), name) == RANGES[name][1], name


def test_pack_cuts_a_value_to_its_field() -> None:
    word = STATUS.pack(0, leader=3, led_class=4)
    cut = STATUS.pack(word, leader=16 + 5)  # 4 bits: 21 is cut to 5; led_class is untouched
    fields = STATUS.fields
    assert int(get(cut, fields["leader"])) == 5 and int(get(cut, fields["led_class"])) == 4


def test_batched_reads_and_replace() -> None:
    env = sf.spoil_five.SpoilFive(5)
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(1), 6))
    seats = jnp.arange(6, dtype=jnp.int32) % 5
    out = states.replace(current_player=seats, terminated=seats > 2, tricks_won=jnp.ones((6, 5)))
    assert out.current_player.shape == (6,) and out.current_player.dtype == jnp.int32
    np.testing.assert_array_equal(out.current_player, seats)
    np.testing.assert_array_equal(out.terminated, np.asarray(seats) > 2)
    np.testing.assert_array_equal(out.tricks_won, np.ones((6, 5), np.int32))
    np.testing.assert_array_equal(out.phase, states.phase)  # untouched neighbours
    assert out.hands.lo.shape == (6, 5) and out.legal_action_mask.shape == (6, 55)
    # the same reads under jit and vmap
    cur = jax.jit(jax.vmap(lambda s: s.current_player))(out)
    np.testing.assert_array_equal(cur, seats)


def test_tricks_won_round_trip_for_ten_seats() -> None:
    state = sf.spoil_five.SpoilFive(10).init(jax.random.PRNGKey(2))
    counts = np.array([5, 0, 3, 1, 4, 2, 5, 5, 0, 3], np.int32)
    np.testing.assert_array_equal(state.replace(tricks_won=counts).tricks_won, counts)


def _sets(b: Bits) -> list[set[int]]:
    lo, hi = np.asarray(b.lo), np.asarray(b.hi)
    return [set(members(lo[s], hi[s])) for s in range(lo.shape[0])]


def test_hands_follow_the_plays_and_replace_takes_hands() -> None:
    env = sf.spoil_five.SpoilFive(4, sf.spoil_five.Rules(rob="forced"))
    key = jax.random.PRNGKey(3)
    for _ in range(40):  # a deal with a robber, played to the end
        key, k = jax.random.split(key)
        state = env.init(k)
        if int(state.robber) >= 0:
            break
    assert int(state.robber) >= 0
    dealt = _sets(state.hands)
    turnup = int(state.turnup)
    gone: set[int] = set()
    while not bool(state.terminated):
        a = env.legal_actions(state)[0]
        robbing = int(state.phase) == game.PHASE_ROB
        seat = int(state.current_player)
        state = env.step(state, a)
        if robbing and a < 52:
            dealt[seat] = (dealt[seat] - {a}) | {turnup}
        elif a < 52:
            gone.add(a)
        assert _sets(state.hands) == [h - gone for h in dealt]
        # replace(hands=) with the current hands keeps them
        again = state.replace(hands=state.hands)
        assert _sets(again.hands) == _sets(state.hands)
    assert bool(state.robbed)


def test_replace_keeps_hands_unless_a_held_card_is_played() -> None:
    state = sf.spoil_five.SpoilFive(3).init(jax.random.PRNGKey(4))
    seat = int(state.current_player)
    card = min(_sets(state.hands)[seat])
    assert _sets(state.replace(discard=jnp.int32(card)).hands) == _sets(state.hands)
    assert _sets(state.replace(robbed=True, robber=seat).hands) == _sets(state.hands)
    played = Bits(
        state.played.lo | np.uint32(1 << card if card < 32 else 0),
        state.played.hi | np.uint32(1 << (card - 32) if card >= 32 else 0),
    )
    # a card played is in nobody's hand
    assert _sets(state.replace(played=played).hands)[seat] == _sets(state.hands)[seat] - {card}


# ---------------------------------------------------------------------------- core.packed


def test_fields_store_value_plus_offset_and_flags_read_back_as_bool() -> None:
    seat = Field(3, 4, offset=1)
    flag = Field(7, 1, flag=True)
    word = put(put(0, seat, -1), flag, True)
    assert int(word) == (0 << 3) | (1 << 7)  # -1 is stored as 0
    assert int(get(word, seat)) == -1 and get(word, flag).dtype == jnp.bool_
    word = put(word, seat, 14)  # stored 15: the top of 4 bits
    assert int(get(word, seat)) == 14 and bool(get(word, flag))
    assert int(get(put(word, seat, 15), seat)) == -1  # 16 is cut to its 4 bits
    assert mask(seat, flag) == 0b1111_1000


def test_per_seat_values_round_trip() -> None:
    counts = jnp.array([[5, 0, 3], [1, 4, 2]], jnp.int32)
    word = pack_seats(counts, 3)
    assert word.shape == (2,) and word.dtype == jnp.int32
    np.testing.assert_array_equal(unpack_seats(word, 3, 3), counts)
    np.testing.assert_array_equal(seat_value(word, jnp.array([2, 1]), 3), [3, 4])


def test_replace_of_every_field_of_a_word_starts_from_zero() -> None:
    state = sf.spoil_five.SpoilFive(3).init(jax.random.PRNGKey(5))
    values = {"trick_num": 0, "jinker": -1, "robbed": False, "illegal": False, "_step_count": 0}
    assert set(values) == set(RECORD.fields)
    changes = pack_changes(state.replace(record=jnp.int32(-1)), values, (STATUS, RECORD))
    assert set(changes) == {"record"} and int(changes["record"]) == 0  # no old bit left
    one = pack_changes(state, {"jinker": 2}, (STATUS, RECORD))
    assert int(get(one["record"], RECORD.fields["jinker"])) == 2
    assert int(get(one["record"], RECORD.fields["_step_count"])) == int(state._step_count)


def test_the_kernel_status_word_of_a_public_state_reads_back_its_trick() -> None:
    """``fast.status_word`` (policies) and ``view._status_word`` (analysis playouts) write the
    kernel's fields with their offsets: nothing led reads -1, as the public State says."""
    env = sf.spoil_five.SpoilFive(4, sf.spoil_five.Rules(rob="forced"))
    key = jax.random.PRNGKey(6)
    seen_rob = seen_trick = False
    for _ in range(30):
        key, k = jax.random.split(key)
        state = env.init(k)
        while not bool(state.terminated):
            word, cont = fast.status_word(state), view._status_word(state)
            leading = int(state.current_player) == int(state.leader)
            if int(state.phase) == game.PHASE_PLAY and not leading:
                seen_trick = True
                assert int(fast.get(word, fast._F_BEST)) == int(state.best_power)
                assert int(fast.get(cont, fast._F_LED)) == int(fast.get(word, fast._F_LED)) >= 0
            else:
                seen_rob |= int(state.phase) == game.PHASE_ROB
                assert int(fast.get(cont, fast._F_LED)) == int(fast.get(cont, fast._F_BEST)) == -1
            assert bool(fast.get(word, fast._F_ROBBED)) == bool(state.robbed)
            state = env.step(state, env.legal_actions(state)[0])
        if seen_rob and seen_trick:
            break
    assert seen_rob and seen_trick
