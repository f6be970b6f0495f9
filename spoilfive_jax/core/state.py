"""What every game's ``State`` shares: a frozen dataclass registered as a pytree
(``pytree_dataclass``) on ``StateBase`` (``replace``, and packed attributes written by name).

A State holds data only: observations come from ``env.observe``, pictures from the game's
render module, rules from the game module (pgx's states are plain dataclasses the same way).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, TypeVar

import jax

from spoilfive_jax.core.packed import Word, pack_changes

T = TypeVar("T")
S = TypeVar("S", bound="StateBase")


def pytree_dataclass(cls: type[T]) -> type[T]:
    """Register the frozen dataclass ``cls`` as a pytree: a field declared with
    ``metadata={"static": True}`` is static metadata (hashable: part of the jit cache key, no
    array), every other field is data.  Use under ``@dataclasses.dataclass(frozen=True)``."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    static = [f.name for f in fields if f.metadata.get("static", False)]
    data = [f.name for f in fields if f.name not in static]
    return jax.tree_util.register_dataclass(cls, data_fields=data, meta_fields=static)


class StateBase:
    """The base of a game's ``State`` (a ``pytree_dataclass``).

    ``PACKED``: the class's packed int32 words; each field of a word is read as an attribute of
    its name (``core.packed.Unpacked``) and written by that name through ``replace``."""

    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]
    PACKED: ClassVar[tuple[Word, ...]] = ()

    def replace(self: S, **changes: Any) -> S:
        """A copy with ``changes``: fields, and the packed attributes of ``PACKED`` by name."""
        return dataclasses.replace(self, **pack_changes(self, changes, self.PACKED))


__all__ = ["StateBase", "pytree_dataclass"]
