"""Small integers packed into int32 words: the one convention of every packed layout.

A ``Field`` is bits ``first .. first + width - 1`` of a word, holding ``value + offset`` (so a
-1 can be stored as 0); it reads back as int32, or as bool for a ``flag``.  ``get`` reads a
field (``is_clear`` tests its bits for 0), ``put`` writes one (a value outside its range is cut
to the field's bits) and ``mask`` gives fields' bits for writing a whole word at once.  A
``Word`` is the table of named fields of one int32 attribute of a record (``Word.pack`` writes
several); ``Unpacked`` is a read-only attribute that reads its field, and ``pack_changes`` turns
keyword changes of those names into new words (``core.state.StateBase.replace``).
``pack_seats`` packs a small value per seat into one word (``width`` bits a seat),
``unpack_seats`` and ``seat_value`` read it back.

Users: Spoil Five's ``State`` (``status`` and ``record``) and the rollout kernels' status words
(``games/spoil_five/fast.py``, ``games/forty_five/fast_play.py``).  Why pack: XLA:CPU has no
multi-output loop fusion, so every stored array that depends on a shared intermediate (a
trick's resolution) is a fusion that recomputes it; packed, one fusion writes them all.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from spoilfive_jax.core.stats import array_module

I32 = jnp.int32


class Field(NamedTuple):
    """Bits ``first .. first + width - 1`` of an int32 word, holding ``value + offset``."""

    first: int  # lowest bit
    width: int  # number of bits
    offset: int = 0  # stored as value + offset (1 for a field whose values start at -1)
    flag: bool = False  # read back as bool (stored 0 or 1)

    @property
    def mask(self) -> int:
        """The field's bits in its word."""
        return ((1 << self.width) - 1) << self.first


def mask(*fields: Field) -> int:
    """The bits of ``fields`` in their word."""
    return sum(f.mask for f in fields)


def get(word: ArrayLike, field: Field) -> jax.Array:
    """The value of ``field`` in ``word``: int32, or bool for a flag; numpy for a host word
    (``core.stats.array_module``: no JAX call a read, so reading host states field by field,
    hand by hand, stays cheap)."""
    xp = array_module(word)
    v = (xp.asarray(word, np.int32) >> field.first) & ((1 << field.width) - 1)
    if field.flag:
        return v != 0
    return v - field.offset if field.offset else v


def is_clear(word: ArrayLike, field: Field) -> jax.Array:
    """bool: every bit of ``field`` is 0 in ``word`` (its value is ``-offset``; a flag is off).
    Cheaper than comparing ``get``: no shift, no offset."""
    return (jnp.asarray(word, I32) & field.mask) == 0


def put(word: ArrayLike, field: Field, value: ArrayLike) -> jax.Array:
    """int32: ``word`` with ``field`` set to ``value`` (cut to the field's bits)."""
    v = jnp.asarray(value).astype(I32)
    if field.offset:
        v = v + field.offset
    return (jnp.asarray(word, I32) & ~field.mask) | ((v & ((1 << field.width) - 1)) << field.first)


@dataclasses.dataclass(frozen=True)
class Word:
    """The named fields of the int32 attribute ``name`` of a record."""

    name: str  # the attribute that holds the word
    fields: Mapping[str, Field]

    def pack(self, word: ArrayLike, **values: ArrayLike) -> jax.Array:
        """int32: ``word`` with the fields named in ``values`` set (``put`` each)."""
        out = jnp.asarray(word, I32)
        for name, value in values.items():
            out = put(out, self.fields[name], value)
        return out


class Unpacked:
    """A read-only attribute: the field of its own name in ``word``, read from the record's
    ``word.name`` attribute (a batched record gives a batch; a host record, e.g. after
    ``jax.device_get``, reads back numpy)."""

    def __init__(self, word: Word) -> None:
        self.word = word

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.field = self.word.fields[name]

    def __get__(self, obj: Any, owner: type | None = None) -> jax.Array:
        if obj is None:
            raise AttributeError(self.name)
        return get(getattr(obj, self.word.name), self.field)


def pack_seats(values: ArrayLike, width: int) -> jax.Array:
    """int32[...]: per-seat values int[..., N] (each below ``1 << width``), seat s in bits
    ``width * s ..`` of one word."""
    t = jnp.asarray(values, I32)
    return (t << (width * jnp.arange(t.shape[-1], dtype=I32))).sum(-1).astype(I32)


def unpack_seats(word: ArrayLike, num_seats: int, width: int) -> jax.Array:
    """int32[..., N]: the per-seat values of a ``pack_seats`` word (numpy for a host word, as
    ``get``)."""
    xp = array_module(word)
    shifts = width * xp.arange(num_seats, dtype=np.int32)
    return (xp.asarray(word, np.int32)[..., None] >> shifts) & ((1 << width) - 1)  # type: ignore[no-any-return]


def seat_value(word: jax.Array, seat: ArrayLike, width: int) -> jax.Array:
    """The value of ``seat`` in a ``pack_seats`` word (elementwise)."""
    return (word >> (width * seat)) & ((1 << width) - 1)


def pack_changes(record: Any, changes: Mapping[str, Any], words: Sequence[Word]) -> dict[str, Any]:
    """``changes`` with the field names of ``words`` replaced by new words of ``record``.  A word
    whose every field changes is packed from 0, any other from its value in ``changes`` or in
    ``record``."""
    out = dict(changes)
    for word in words:
        values = {k: out.pop(k) for k in list(out) if k in word.fields}
        if values:
            every = len(values) == len(word.fields)
            base = 0 if every else out.get(word.name, getattr(record, word.name))
            out[word.name] = word.pack(base, **values)
    return out


__all__ = [
    "Field",
    "Unpacked",
    "Word",
    "get",
    "is_clear",
    "mask",
    "pack_changes",
    "pack_seats",
    "put",
    "seat_value",
    "unpack_seats",
]
