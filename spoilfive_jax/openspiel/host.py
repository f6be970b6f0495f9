"""The host side of the OpenSpiel games (``spoilfive_jax.openspiel.game``): every node of a hand
lives here, read once from the env.

- ``Layout`` packs one table's env state into one int32 vector (exact for booleans, integers and
  floats of up to 32 bits) and gives it back, host (numpy) or traced.
- ``programs_of(env)``: the jitted calls of one table.  A step is ONE call (``transition_legal``:
  the host has checked the action) that writes the packed state, the seat to act, the terminated
  flag, the rewards and the legal mask (``Sizes``), read back in one transfer; every seat's
  observation and information state come from one more call (``views``), made when a node is
  first asked for them, so that a search that never asks never pays for them; a step from a
  node whose views were read brings the new node's in the same call (``step_views``: a caller
  that reads one node's reads the next's, as OpenSpiel's own checks do).  The deal is one
  call where the game's ``DeckDeals.init_from_deck`` can be traced (``jitted_deal``), else it
  runs on the host.
- ``Deal`` (a chance node: the cards dealt so far) and ``Hand`` (a node of the play) are
  immutable and shared by the states that reach them: a clone copies references
  (``__deepcopy__`` returns the node itself), and a node remembers its last child, so a clone
  that takes the same action as its original (OpenSpiel's own checks do) gets the child without
  another call.  Texts and the unpacked env state are made once a node, when first asked for.
- A ``Hand`` pickles as its table, packed state and returns (the rest is computed again on
  load), a ``Deal`` as its cards.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Hashable
from typing import Any, NamedTuple, Protocol

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core import knowledge
from spoilfive_jax.core.env import Env, R, S
from spoilfive_jax.core.transition import transition_legal


class TableLike(Protocol):
    """What a node reads of its table (``game.Table``)."""

    @property
    def env(self) -> Env[Any, Any]: ...

    @property
    def programs(self) -> Programs: ...


@dataclasses.dataclass(frozen=True)
class Leaf:
    """One array of the env state in the packed vector: ``flat[offset : offset + size]``."""

    offset: int
    size: int
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    kind: str  # how it packs: "bits" (32-bit, bit for bit), "float" (as float32), "int" (widened)

    @classmethod
    def of(cls, offset: int, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Leaf:
        if jnp.issubdtype(dtype, jnp.floating):
            kind = "float"
        else:
            kind = "bits" if dtype.itemsize == 4 and dtype != np.int32 else "int"
        return cls(offset, int(np.prod(shape, dtype=np.int64)), shape, dtype, kind)


@dataclasses.dataclass(frozen=True)
class Layout:
    """How one table's env state packs into one int32 vector: 32-bit arrays bit for bit,
    booleans and smaller integers widened, smaller floats as float32.  ``unpack`` gives the
    state back from a packed vector, host (numpy) or traced."""

    treedef: Any
    leaves: tuple[Leaf, ...]
    size: int

    @classmethod
    def of(cls, state: Any) -> Layout:
        """The layout of states shaped as ``state`` (arrays or ``jax.ShapeDtypeStruct``s)."""
        leaves, treedef = jax.tree_util.tree_flatten_with_path(state)
        out, offset = [], 0
        for path, leaf in leaves:
            dtype, shape = np.dtype(leaf.dtype), tuple(int(d) for d in np.shape(leaf))
            number = jnp.issubdtype(dtype, jnp.number) or jnp.issubdtype(dtype, jnp.bool_)
            if dtype.itemsize > 4 or not number or jnp.issubdtype(dtype, jnp.complexfloating):
                raise ValueError(
                    f"the OpenSpiel games pack the env state into int32: field "
                    f"{jax.tree_util.keystr(path)} is {dtype} (booleans, integers and floats "
                    "of at most 32 bits pack)"
                )
            out.append(Leaf.of(offset, shape, dtype))
            offset += out[-1].size
        return cls(treedef, tuple(out), offset)

    @functools.cached_property
    def _plan(self) -> tuple[tuple[np.dtype[Any], int, int, tuple[int, ...]], ...]:
        """(dtype, start, stop, shape) of each leaf: the host ``unpack``'s slices."""
        return tuple((f.dtype, f.offset, f.offset + f.size, f.shape) for f in self.leaves)

    @functools.cached_property
    def _dtypes(self) -> frozenset[np.dtype[Any]]:
        return frozenset(f.dtype for f in self.leaves)

    def pack(self, state: Any) -> jax.Array:
        """int32[size] (traced): ``state`` packed."""
        parts = [jnp.zeros(0, jnp.int32)]
        for leaf, x in zip(self.leaves, jax.tree.leaves(state), strict=True):
            x = jnp.asarray(x).reshape(-1)
            if leaf.kind == "float":
                x = jax.lax.bitcast_convert_type(x.astype(jnp.float32), jnp.int32)
            elif leaf.kind == "bits":
                x = jax.lax.bitcast_convert_type(x, jnp.int32)
            parts.append(x.astype(jnp.int32))
        return jnp.concatenate(parts)

    def unpack(self, flat: Any) -> Any:
        """The state packed in ``flat`` int32[size]: numpy arrays from a numpy vector (views
        where the dtype is 32-bit), traced arrays from a traced one."""
        if isinstance(flat, np.ndarray):  # each dtype converted once; read-only views of it
            whole = {dtype: _as(flat, dtype) for dtype in self._dtypes}
            return self.treedef.unflatten(
                [whole[dtype][a:b].reshape(shape) for dtype, a, b, shape in self._plan]
            )
        out = []
        for leaf in self.leaves:
            x = flat[leaf.offset : leaf.offset + leaf.size]
            if leaf.kind != "int":
                wide = np.dtype(np.float32) if leaf.kind == "float" else leaf.dtype
                x = jax.lax.bitcast_convert_type(x, wide)
            if x.dtype != leaf.dtype:
                x = x != 0 if leaf.dtype == np.bool_ else x.astype(leaf.dtype)
            out.append(x.reshape(leaf.shape))
        return jax.tree.unflatten(self.treedef, out)


def _as(flat: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """The packed int32 vector read as ``dtype`` (``Leaf.kind``): 32-bit dtypes bit for bit
    (a view), booleans as nonzero, narrower integers and floats converted."""
    if dtype == np.bool_:
        out = flat != 0
    elif jnp.issubdtype(dtype, jnp.floating):
        with np.errstate(over="ignore"):  # (other leaves' bits read as a narrower float)
            out = flat.view(np.float32).astype(dtype, copy=False)
    else:
        out = flat.view(dtype) if dtype.itemsize == 4 else flat.astype(dtype)
    if out.flags.writeable:
        out.flags.writeable = False
    return out


class Sizes(NamedTuple):
    """A step's output, in order: the packed state, the seat to act, the terminated flag, the
    rewards [N] and the legal mask [A].  The views (``Programs.views``): every seat's
    observation [N, D] and perfect-recall information state [N, I] (I = 0: the env has none)."""

    state: int
    players: int
    actions: int
    observation: int
    information: int

    @property
    def step(self) -> int:
        """The length of a step's output."""
        return self.state + 2 + self.players + self.actions


def knows(env: Env[S, R]) -> bool:
    """Whether the game says what its seats know (the ``Knowledge`` capability): then every
    node computes the seats' perfect-recall information states with their observations
    (``Programs.views``)."""
    return caps.Knowledge in type(env).capabilities


@dataclasses.dataclass(frozen=True)
class Programs:
    """The jitted calls of one table.  ``start`` (a dealt env state), ``refresh`` (a packed
    state), ``step`` (packed state, action), ``resample`` (seed, packed state, seat; None
    without the ``Analysis`` capability) and ``deal`` (the pack, the dealer: None where
    ``DeckDeals.init_from_deck`` cannot be traced) each return one int32 vector, a step's
    output (``Sizes``); ``views`` (a packed state) returns every seat's observation and
    information state, float32; ``step_views`` is ``step`` followed by the new state's
    ``views`` (their float32 bits), in one call."""

    layout: Layout
    sizes: Sizes
    start: Callable[[Any], jax.Array]
    refresh: Callable[[np.ndarray], jax.Array]
    step: Callable[[np.ndarray, np.int32], jax.Array]
    views: Callable[[np.ndarray], jax.Array]
    step_views: Callable[[np.ndarray, np.int32], jax.Array]
    resample: Callable[[np.int32, np.ndarray, np.int32], jax.Array] | None
    deal: Callable[[np.ndarray, int], jax.Array] | None


def emitters(
    env: Env[S, R], layout: Layout
) -> tuple[Callable[[Any], jax.Array], Callable[[Any], jax.Array], Sizes]:
    """(what a step writes of a state: one int32 vector; what the views write: float32; the
    ``Sizes``)."""
    seats = jnp.arange(env.num_players, dtype=jnp.int32)
    infos = knows(env)

    def emit(state: Any) -> jax.Array:
        rewards = jnp.asarray(state.rewards, jnp.float32).reshape(-1)
        parts = [
            layout.pack(state),
            jnp.asarray(state.current_player, jnp.int32).reshape(1),
            jnp.asarray(state.terminated, jnp.int32).reshape(1),
            jax.lax.bitcast_convert_type(rewards, jnp.int32),
            jnp.asarray(state.legal_action_mask, jnp.int32).reshape(-1),
        ]
        return jnp.concatenate(parts)

    def views(state: Any) -> jax.Array:
        parts = [jax.vmap(lambda p: env.observe(state, p))(seats).reshape(-1)]
        if infos:
            parts.append(jax.vmap(lambda p: env.information_state(state, p))(seats).reshape(-1))
        return jnp.concatenate(parts).astype(jnp.float32)

    observation = int(np.prod(env.observation_shape))
    information = int(np.prod(env.information_state_shape)) if infos else 0
    sizes = Sizes(layout.size, env.num_players, env.num_actions, observation, information)
    return emit, views, sizes


def jitted_deal(env: Env[S, R], emit: Callable[[Any], jax.Array]) -> Any:
    """The jitted deal (pack, dealer) -> a step's output, where the game's
    ``DeckDeals.init_from_deck`` can be traced with the pack as an array (a game that reads the
    pack on the host cannot: then None, and each hand is dealt on the host)."""
    deals = env.capability(caps.DeckDeals, "an OpenSpiel game")
    pack = jax.ShapeDtypeStruct((deals.deck_size(env),), jnp.int32)
    try:
        jax.eval_shape(lambda deck: deals.init_from_deck(env, deck, 0), pack)
    except (TypeError, ValueError):  # a tracer read on the host (jax.errors.JAXTypeError)
        return None
    return jax.jit(
        lambda deck, dealer: emit(deals.init_from_deck(env, deck, dealer)), static_argnums=1
    )


@functools.cache
def programs_of(env: Env[S, R]) -> Programs:
    """The jitted calls of one table (compiled once per table, at its first use)."""
    layout = Layout.of(jax.eval_shape(lambda: env.init(jax.random.PRNGKey(0), 0)))
    emit, views, sizes = emitters(env, layout)
    resample = None
    analysis = caps.declared(env, caps.Analysis)
    if analysis is not None:

        def redraw(seed: jax.Array, flat: jax.Array, player: jax.Array) -> jax.Array:
            key = jax.random.PRNGKey(seed)
            return emit(analysis.resample_hidden(env, key, layout.unpack(flat), player))

        resample = jax.jit(redraw)

    def step_views(flat: jax.Array, a: jax.Array) -> jax.Array:
        after = transition_legal(env, layout.unpack(flat), a)
        return jnp.concatenate([emit(after), jax.lax.bitcast_convert_type(views(after), jnp.int32)])

    return Programs(
        layout,
        sizes,
        start=jax.jit(emit),
        refresh=jax.jit(lambda flat: emit(layout.unpack(flat))),
        step=jax.jit(lambda flat, a: emit(transition_legal(env, layout.unpack(flat), a))),
        views=jax.jit(lambda flat: views(layout.unpack(flat))),
        step_views=jax.jit(step_views),
        resample=resample,
        deal=jitted_deal(env, emit),
    )


# ------------------------------------------------------------------------ the nodes


class Deal:
    """A chance node: the cards dealt so far, in order.  Immutable (a clone shares it)."""

    __slots__ = ("_outcomes", "_text", "child", "dealt")

    def __init__(self, dealt: tuple[int, ...]) -> None:
        self.dealt = dealt
        self.child: tuple[int, Deal | Hand] | None = None  # the last action taken from here
        self._outcomes: list[tuple[int, float]] | None = None
        self._text: str | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Deal:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Deal, (self.dealt,))

    def outcomes(self, deck_size: int) -> list[tuple[int, float]]:
        if self._outcomes is None:
            seen = set(self.dealt)
            rest = [c for c in range(deck_size) if c not in seen]
            self._outcomes = [(c, 1.0 / len(rest)) for c in rest]
        return self._outcomes

    def text(self, cards: tuple[str, ...]) -> str:
        """``dealing: 5♣ 10♣ K♦``: the cards dealt so far (``cards``: each card's text), made
        once."""
        if self._text is None:
            self._text = "dealing: " + " ".join(cards[c] for c in self.dealt)
        return self._text


class Hand:
    """A node of the hand after the deal, host side: a step's output ``out`` (``Sizes``) read
    into the seat to act, the legal actions and the returns so far.  Immutable (a clone shares
    it); the seats' observations and information states (one call, or ``views``: the float32
    that came with the step), the texts and the unpacked env state are made when first asked
    for (the record's texts from ``prior``, the parent's, where it made them).  It pickles as
    its table, packed state and returns: unpickling computes the rest again (one call)."""

    __slots__ = (
        "_information_text",
        "_memo",
        "_prior",
        "_records",
        "_state",
        "_text",
        "_views",
        "child",
        "legal",
        "out",
        "over",
        "player",
        "returns",
        "table",
    )

    def __init__(
        self,
        table: TableLike,
        out: np.ndarray,
        returns: np.ndarray,
        views: np.ndarray | None = None,
        prior: knowledge.Records | None = None,
    ) -> None:
        out = np.array(out, np.int32)
        out.flags.writeable = False
        s, n, a = table.programs.sizes[:3]
        self.table, self.out = table, out
        self.player, self.over = int(out[s]), bool(out[s + 1])
        self.returns = np.asarray(returns, np.float64) + out[s + 2 : s + 2 + n].view(np.float32)
        self.returns.flags.writeable = False
        at = s + 2 + n
        self.legal: list[int] = [] if self.over else np.flatnonzero(out[at : at + a]).tolist()
        self.child: tuple[int, Deal | Hand] | None = None
        self._views: tuple[np.ndarray, np.ndarray] | None = None
        if views is not None:
            self._views = self._split(np.array(views, np.float32))
        self._prior: knowledge.Records | None = prior
        self._records: knowledge.Records | None = None
        self._state: Any = None
        self._text: str | None = None
        self._information_text: dict[int, str] = {}
        self._memo: dict[Hashable, Any] = {}

    @classmethod
    def packed(cls, table: TableLike, flat: np.ndarray, before: np.ndarray) -> Hand:
        """The node of packed state ``flat`` with returns ``before`` its rewards."""
        return cls(table, np.asarray(table.programs.refresh(np.asarray(flat, np.int32))), before)

    def __deepcopy__(self, memo: dict[int, Any]) -> Hand:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        s, n = self.table.programs.sizes[:2]
        before = self.returns - self.out[s + 2 : s + 2 + n].view(np.float32)
        return (Hand.packed, (self.table, self.flat, before))

    @property
    def flat(self) -> np.ndarray:
        """int32[S]: the packed env state."""
        return self.out[: self.table.programs.sizes.state]

    @property
    def env_state(self) -> Any:
        """The env state (numpy arrays), unpacked once."""
        if self._state is None:
            self._state = self.table.programs.layout.unpack(self.flat)
        return self._state

    def views(self) -> tuple[np.ndarray, np.ndarray]:
        """(float32[N, D] every seat's observation, float32[N, I] its information state), made
        by one call when first asked for (read-only)."""
        if self._views is None:
            # (a zero-copy view of the device buffer on CPU, read-only either way)
            self._views = self._split(np.asarray(self.table.programs.views(self.flat), np.float32))
        return self._views

    def _split(self, both: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _, n, _, d, i = self.table.programs.sizes
        if both.flags.writeable:
            both.flags.writeable = False
        return both[: n * d].reshape(n, d), both[n * d :].reshape(n, i)

    def stepped(self, action: int) -> Hand:
        """The node after the legal ``action``: with its views in the same call where this
        node's were read (OpenSpiel's own checks read every node's; a search that never reads
        them never pays for them), and its record texts extended from this node's where made."""
        p, a = self.table.programs, np.int32(action)
        if self._views is None:
            return Hand(self.table, np.asarray(p.step(self.flat, a)), self.returns)
        both = np.asarray(p.step_views(self.flat, a))
        views = both[p.sizes.step :].view(np.float32)
        return Hand(self.table, both[: p.sizes.step], self.returns, views, self._records)

    def records(self) -> tuple[str, ...]:
        """Every seat's record text and the public one (``knowledge.record_texts``)."""
        if self._records is None:
            moves = self.env_state.moves
            self._records = knowledge.record_texts(self.table.env, moves, self._prior)
            self._prior = None
        return self._records[1]

    @property
    def text(self) -> str:
        """The game's text of the table, made once."""
        if self._text is None:
            self._text = table_text(self.table.env, self.env_state, None)
        return self._text

    def memo(self, key: Hashable, make: Callable[[Any], Any]) -> Any:
        """``make(env_state)``, made once for this node under ``key``."""
        if key not in self._memo:
            self._memo[key] = make(self.env_state)
        return self._memo[key]

    def information_text(self, player: int) -> str | None:
        """The env's ``information_state_string`` for ``player`` (made once), or None where
        the env has none."""
        if not knows(self.table.env):
            return None
        text = self._information_text.get(player)
        if text is None:  # (read back from the seat's tensor: no JAX call)
            tensor = self.views()[1][player]
            record_text = self.records()[player]
            text = knowledge.information_text(self.table.env, tensor, record_text, player)
            self._information_text[player] = text
        return text


def table_text(env: Env[S, R], state: S, player: int | None) -> str:
    """The game's text of the table (for ``player``: its own cards shown)."""
    pictures = caps.declared(env, caps.Rendering)
    if pictures is not None:
        return pictures.render_text(env, state, player=player)
    info = caps.declared(env, caps.AgentInfo)
    return info.state_text(env, state) if info is not None else repr(state)
