"""A registered game as an OpenSpiel Python game: ``pyspiel.Game`` and ``pyspiel.State`` over the
project's env, one hand a game.

- **Chance.**  The deal is the first ``deal_length`` chance nodes (``DeckDeals``): each turns
  up the next card of the pack, uniformly among those not yet dealt (the card's id is the
  outcome); the order of the cards past them never matters, so they are not asked for.  Then
  the hand starts from that order (``DeckDeals.init_from_deck``) and every later node is a
  decision of the env's seat to act, its legal actions the env's.
- **Observations.**  The observation tensor, for any player, is the env's
  ``observe(state, player)``; its string is the seat and a digest of the tensor (searches key
  their nodes on it: it must be cheap).  The information state is the same tensor and string
  (so two move orders that leave the same view share it: not perfect-recall) unless
  ``PERFECT_RECALL`` wires it to the env's perfect-recall ``information_state`` and
  ``information_state_string`` (``information_states``), which every node holds beside the
  observations either way (``OpenSpielState.information_state_array``/``_text``).
  ``str(state)`` is the game's text of the table (``Rendering``, else the ``AgentInfo`` state
  text).
- **Resampling.**  ``resample_from_infostate(player, sampler)`` redraws the cards the player
  cannot see with the game's exact resampler (``Analysis.resample_hidden``), seeded from
  ``sampler``: the world keeps the player's view and legal actions.  The world's history keeps
  the original deal's chance outcomes (only the hidden cards differ).  It is a Python method:
  OpenSpiel's Python algorithms (``open_spiel.python.algorithms.ismcts``) call it.  Never give
  these games to OpenSpiel's C++ bots (``pyspiel.ISMCTSBot``, ``pyspiel.MCTSBot``, ...): with
  a Python game they crash the interpreter (a segmentation fault) instead of raising.
- **Returns** are the env's rewards summed over the hand (chips or points), in
  ``DeckDeals.reward_bounds``.  The utility is constant-sum, with its ``utility_sum``, at a
  table where every hand's returns sum to one value (``utility_sum``: Twenty-Five, Forty-Five
  at 8 seats or more), else general-sum (a spoilt pot carries over; the best-trump bonus may go
  unclaimed; a failed bid).
- **Pickling and serialization.**  A game pickles as its name and parameters (loading it again
  registers it); a state's Python side is its table (pickled as the game's name and parameters)
  and its node (the dealt cards, or the packed env state with what the queries read), so
  ``pickle``, ``state.serialize()`` / ``game.deserialize_state`` and
  ``pyspiel.serialize_game_and_state`` round-trip.

**Speed.**  Every node of a hand lives on the host: the env state packed into one int32 vector
(``_Layout``) with, beside it, the seat to act, the rewards, the legal actions and every
seat's observation (and information state), all written by ONE jitted call per decision and
read back in one transfer.  Queries read that copy; a node is immutable and shared, so a clone
copies two references (``__deepcopy__`` returns the object itself), and a node remembers its
last child, so a clone that takes the same action as its original (OpenSpiel's checks do) gets
the child without another call.  The texts are made once a node, when first asked for.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pyspiel

from spoilfive_jax import registry
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, transition_legal
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams

# ------------------------------------------------------------------------ packing


@dataclasses.dataclass(frozen=True)
class _Leaf:
    """One array of the env state in the packed vector: ``flat[offset : offset + size]``."""

    offset: int
    size: int
    shape: tuple[int, ...]
    dtype: np.dtype[Any]

    @property
    def kind(self) -> str:
        """How it packs: "bits" (32-bit, bit for bit), "float" (as float32), "int" (widened)."""
        if self.dtype.itemsize == 4 and self.dtype != np.int32:
            return "float" if jnp.issubdtype(self.dtype, jnp.floating) else "bits"
        return "float" if jnp.issubdtype(self.dtype, jnp.floating) else "int"


@dataclasses.dataclass(frozen=True)
class _Layout:
    """How one table's env state packs into one int32 vector: 32-bit arrays bit for bit,
    booleans and smaller integers widened, smaller floats as float32.  ``unpack`` gives the
    state back from a packed vector, host (numpy) or traced."""

    treedef: Any
    leaves: tuple[_Leaf, ...]
    size: int

    @classmethod
    def of(cls, state: Any) -> _Layout:
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
            size = int(np.prod(shape, dtype=np.int64))
            out.append(_Leaf(offset, size, shape, dtype))
            offset += size
        return cls(treedef, tuple(out), offset)

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
        host = isinstance(flat, np.ndarray)
        out = []
        for leaf in self.leaves:
            x = flat[leaf.offset : leaf.offset + leaf.size]
            if leaf.kind != "int":
                wide = np.dtype(np.float32) if leaf.kind == "float" else leaf.dtype
                x = x.view(wide) if host else jax.lax.bitcast_convert_type(x, wide)
            if x.dtype != leaf.dtype:
                x = x != 0 if leaf.dtype == np.bool_ else x.astype(leaf.dtype)
            out.append(x.reshape(leaf.shape))
        return jax.tree.unflatten(self.treedef, out)


class _Sizes(NamedTuple):
    """A step's output, in order: the packed state, the seat to act, the terminated flag, the
    rewards [N] and the legal mask [A].  The views (``_Programs.views``): every seat's
    observation [N, D] and information state [N, I] (I = 0: the env has none, the observation
    stands in)."""

    state: int
    players: int
    actions: int
    observation: int
    information: int


class InformationStates(NamedTuple):
    """An env's perfect-recall information states: the tensor (jittable, one seat), its shape
    and its text (host)."""

    tensor: Callable[[Any, Any], jax.Array]
    shape: tuple[int, ...]
    text: Callable[[Any, int], str]


PERFECT_RECALL = False
"""HOOK (issue 41): True wires OpenSpiel's information state (``make_py_observer`` asked for
perfect recall: ``information_state_tensor``/``_string``) to the env's perfect-recall
``information_state`` and ``information_state_string`` (``InformationStateObserver``, read
from each node's cache); False, as before, serves the observation and its digest for it (not
perfect-recall; ``tests/openspiel/test_games.py`` checks that).  Read when a game's observer is
made: set it before loading the game."""


def information_states(env: Env[Any, Any]) -> InformationStates | None:
    """The env's perfect-recall information states: ``information_state(state, player)``
    (float32, ``information_state_shape``) and ``information_state_string(state, player)``
    (host text), where the env has them and they work for its game (one that does not say what
    its seats know raises ``MissingCapability`` from ``information_state_shape``); else None.
    Each node computes them with the observations (``_Programs.views``)."""
    tensor = getattr(env, "information_state", None)
    text = getattr(env, "information_state_string", None)
    if tensor is None or text is None:
        return None
    try:
        shape = tuple(int(d) for d in env.information_state_shape)  # type: ignore[attr-defined]
    except (AttributeError, caps.MissingCapability, NotImplementedError):
        return None
    return InformationStates(tensor, shape, text)


@dataclasses.dataclass(frozen=True)
class _Programs:
    """The jitted calls of one table.  ``start`` (a dealt env state), ``refresh`` (a packed
    state), ``step`` (packed state, action), ``resample`` (seed, packed state, seat; None
    without the ``Analysis`` capability) and ``deal`` (the pack, the dealer: None where
    ``DeckDeals.init_from_deck`` cannot be traced) each return one int32 vector, a step's
    output (``_Sizes``); ``views`` (a packed state) returns every seat's observation and
    information state, float32."""

    layout: _Layout
    sizes: _Sizes
    start: Callable[[Any], jax.Array]
    refresh: Callable[[np.ndarray], jax.Array]
    step: Callable[[np.ndarray, np.int32], jax.Array]
    views: Callable[[np.ndarray], jax.Array]
    resample: Callable[[np.int32, np.ndarray, np.int32], jax.Array] | None
    deal: Callable[[np.ndarray, int], jax.Array] | None


def _emitters(
    env: Env[Any, Any], layout: _Layout
) -> tuple[Callable[[Any], jax.Array], Callable[[Any], jax.Array], _Sizes]:
    """(what a step writes of a state: one int32 vector; what the views write: float32; the
    ``_Sizes``)."""
    seats = jnp.arange(env.num_players, dtype=jnp.int32)
    infos = information_states(env)

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
        if infos is not None:
            parts.append(jax.vmap(lambda p: infos.tensor(state, p))(seats).reshape(-1))
        return jnp.concatenate(parts).astype(jnp.float32)

    observation = int(np.prod(env.observation_shape))
    information = 0 if infos is None else int(np.prod(infos.shape))
    sizes = _Sizes(layout.size, env.num_players, env.num_actions, observation, information)
    return emit, views, sizes


def _dealer(env: Env[Any, Any], emit: Callable[[Any], jax.Array]) -> Any:
    """The jitted deal (pack, dealer) -> a step's output, where the game's
    ``DeckDeals.init_from_deck`` can be traced with the pack as an array (a game that reads the
    pack on the host cannot: then None, and each hand is dealt on the host)."""
    deals = env.capability(caps.DeckDeals, "an OpenSpiel game")
    pack = jax.ShapeDtypeStruct((deals.deck_size(env),), jnp.int32)
    try:
        jax.eval_shape(lambda deck: deals.init_from_deck(env, deck, 0), pack)
    except jax.errors.JAXTypeError:
        return None
    return jax.jit(
        lambda deck, dealer: emit(deals.init_from_deck(env, deck, dealer)), static_argnums=1
    )


@functools.cache
def _programs(env: Env[Any, Any]) -> _Programs:
    """The jitted calls of one table (compiled once per table, at its first use)."""
    layout = _Layout.of(jax.eval_shape(lambda: env.init(jax.random.PRNGKey(0), 0)))
    emit, views, sizes = _emitters(env, layout)
    resample = None
    analysis = caps.declared(env, caps.Analysis)
    if analysis is not None:

        def redraw(seed: jax.Array, flat: jax.Array, player: jax.Array) -> jax.Array:
            key = jax.random.PRNGKey(seed)
            return emit(analysis.resample_hidden(env, key, layout.unpack(flat), player))

        resample = jax.jit(redraw)
    return _Programs(
        layout,
        sizes,
        start=jax.jit(emit),
        refresh=jax.jit(lambda flat: emit(layout.unpack(flat))),
        step=jax.jit(lambda flat, a: emit(transition_legal(env, layout.unpack(flat), a))),
        views=jax.jit(lambda flat: views(layout.unpack(flat))),
        resample=resample,
        deal=_dealer(env, emit),
    )


# ------------------------------------------------------------------------ the nodes


class _Deal:
    """A chance node: the cards dealt so far, in order.  Immutable (a clone shares it)."""

    __slots__ = ("_outcomes", "child", "dealt")

    def __init__(self, dealt: tuple[int, ...]) -> None:
        self.dealt = dealt
        self.child: tuple[int, _Deal | _Hand] | None = None  # the last action taken from here
        self._outcomes: list[tuple[int, float]] | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Deal:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Deal, (self.dealt,))

    def outcomes(self, deck_size: int) -> list[tuple[int, float]]:
        if self._outcomes is None:
            seen = set(self.dealt)
            rest = [c for c in range(deck_size) if c not in seen]
            self._outcomes = [(c, 1.0 / len(rest)) for c in rest]
        return self._outcomes


class _Hand:
    """A node of the hand after the deal, host side: a step's output ``out`` (``_Sizes``) read
    into the seat to act, the legal actions and the returns so far.  Immutable (a clone shares
    it); the seats' observations and information states (one call), the texts and the unpacked
    env state are made when first asked for.  It pickles as its table, packed state
    and returns: unpickling computes the rest again (one call)."""

    __slots__ = (
        "_information_text",
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

    def __init__(self, table: Table, out: np.ndarray, returns: np.ndarray) -> None:
        out = np.array(out, np.int32)
        out.flags.writeable = False
        s, n, a = table.programs.sizes[:3]
        self.table, self.out = table, out
        self.player, self.over = int(out[s]), bool(out[s + 1])
        self.returns = np.asarray(returns, np.float64) + out[s + 2 : s + 2 + n].view(np.float32)
        self.returns.flags.writeable = False
        at = s + 2 + n
        self.legal: list[int] = [] if self.over else np.flatnonzero(out[at : at + a]).tolist()
        self.child: tuple[int, _Deal | _Hand] | None = None
        self._views: tuple[np.ndarray, np.ndarray] | None = None
        self._state: Any = None
        self._text: str | None = None
        self._information_text: dict[int, str] = {}

    @classmethod
    def packed(cls, table: Table, flat: np.ndarray, before: np.ndarray) -> _Hand:
        """The node of packed state ``flat`` with returns ``before`` its rewards."""
        return cls(table, np.asarray(table.programs.refresh(np.asarray(flat, np.int32))), before)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Hand:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        s, n = self.table.programs.sizes[:2]
        before = self.returns - self.out[s + 2 : s + 2 + n].view(np.float32)
        return (_Hand.packed, (self.table, self.flat, before))

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
            _, n, _, d, i = self.table.programs.sizes
            both = np.array(self.table.programs.views(self.flat), np.float32)
            both.flags.writeable = False
            self._views = both[: n * d].reshape(n, d), both[n * d :].reshape(n, i)
        return self._views

    @property
    def text(self) -> str:
        """The game's text of the table, made once."""
        if self._text is None:
            self._text = table_text(self.table.env, self.env_state, None)
        return self._text

    def information_text(self, player: int) -> str | None:
        """The env's ``information_state_string`` for ``player`` (made once), or None where
        the env has none."""
        infos = information_states(self.table.env)
        if infos is None:
            return None
        text = self._information_text.get(player)
        if text is None:
            text = self._information_text[player] = infos.text(self.env_state, player)
        return text


# ------------------------------------------------------------------------ the tables


@functools.cache
def _rule_parameters(game_id: str) -> tuple[tuple[str, Any], ...]:
    env = registry.make(game_id)
    params: dict[str, Any] = {"players": env.num_players, "dealer": 0}
    shown = caps.declared(env, caps.Presentation)
    if shown is None:
        return tuple(params.items())
    in_force = shown.rules_in_force(env)
    for option in shown.rule_options():
        if option.name == "preset":
            params["preset"] = option.choices[0]
        elif option.name in in_force:
            value = in_force[option.name]
            params[option.name] = "_".join(map(str, value)) if option.kind == "packets" else value
    return tuple(params.items())


def rule_parameters(game_id: str) -> dict[str, Any]:
    """The OpenSpiel parameters of ``game_id`` and their defaults: ``players``, ``dealer`` and
    every rule option (a choice as its name, a flag as a bool, a number as an int, deal packets
    as ``"2_3"``: OpenSpiel reads a value of digits and signs as a number)."""
    return dict(_rule_parameters(game_id))


def table(game_id: str, params: dict[str, Any]) -> tuple[Env[Any, Any], int]:
    """(the env, the dealer) that OpenSpiel ``params`` name; ``ValueError`` for a bad value."""
    defaults = rule_parameters(game_id)
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ValueError(
            f"python_{game_id}: unknown parameters {', '.join(unknown)}; "
            f"parameters: {', '.join(defaults)}"
        )
    given = {**defaults, **params}
    # only the options that differ from the defaults: a default that follows another option
    # (the jink bonus is the ante unless given) keeps following it
    table_keys = ("players", "dealer")
    changed = {k: v for k, v in given.items() if k not in table_keys and v != defaults[k]}
    rules = None
    if changed:
        env0 = registry.make(game_id)
        shown = env0.capability(caps.Presentation, "rule parameters")
        kinds = {o.name: o.kind for o in shown.rule_options()}
        for name, value in changed.items():
            if kinds.get(name) == "packets":
                changed[name] = tuple(int(x) for x in str(value).split("_"))
        rules = shown.rules_from_options(game_id, changed)
    env = registry.make(game_id, int(given["players"]), rules)
    dealer = int(given["dealer"])
    if not 0 <= dealer < env.num_players:
        raise ValueError(f"python_{game_id}: dealer must be 0..{env.num_players - 1}, got {dealer}")
    return env, dealer


PLAIN_CARDS = 39
"""Cards of the three plain suits: a Forty-Five hand dealt more than these to the seats holds a
trump, which is played (every card of a hand is)."""


def utility_sum(env: Env[Any, Any]) -> float | None:
    """The one value every hand's returns sum to at this table and rules, or None when they
    may sum to different values (a general-sum game).

    A game's ``DeckDeals`` may say (an optional ``utility_sum(env)``); else the Forty-Five
    family's rules decide.  Its teams score 5 a trick, 25 together, and the best-trump bonus
    (5 to the team that played the highest trump) is claimed in every hand where a trump is
    played: in every hand once the seats hold more cards than the plain suits have (8 seats
    or more), while with fewer the hands may hold none.  So the seats' returns sum to 25 (no
    bonus: Twenty-Five) or 30 (the bonus, 8 seats or more) times a team's size.  Every other
    game and rule set is general-sum: Spoil Five (a spoilt pot carries over), Forty-Five at up
    to 7 seats (the bonus unclaimed), a doubled announced jink, ``hoyle`` scoring, Auction (a
    failed bid), Oh Hell (the bid bonus)."""
    deals = env.capability(caps.DeckDeals, "an OpenSpiel game")
    declared = getattr(deals, "utility_sum", None)
    if callable(declared):
        value = declared(env)
        return None if value is None else float(value)
    rules, n = env.rules, env.num_players
    if not isinstance(rules, FortyFiveRules):
        return None
    if rules.auction or rules.scoring != "best_trump" or rules.jink == "announced":
        return None
    if rules.bonus and 5 * n <= PLAIN_CARDS:
        return None
    return (30.0 if rules.bonus else 25.0) * n / num_teams(n)


@dataclasses.dataclass(frozen=True, eq=False)
class Table:
    """What the states of one game share: the env, the dealer, how the pack is dealt, the
    jitted calls and the texts of the actions.  Immutable, so a cloned state shares it
    (``__deepcopy__``); it pickles as the game's name and parameters."""

    game_id: str
    params: tuple[tuple[str, Any], ...]
    env: Env[Any, Any]
    dealer: int
    deals: Any  # the game's DeckDeals implementation
    deck_size: int
    deal_length: int
    programs: _Programs
    root: _Deal
    action_text: tuple[str, ...]
    chance_text: tuple[str, ...]

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_table, (self.game_id, self.params))

    def start(self, dealt: tuple[int, ...]) -> _Hand:
        """The first node of the hand dealt so (the rest of the pack in card order)."""
        seen = set(dealt)
        deck = np.array([*dealt, *(c for c in range(self.deck_size) if c not in seen)], np.int32)
        p, none = self.programs, np.zeros(self.env.num_players)
        if p.deal is not None:  # one compiled call
            return _Hand(self, np.asarray(p.deal(deck, self.dealer)), none)
        state = self.deals.init_from_deck(self.env, deck, self.dealer)
        if jax.tree.structure(state) != p.layout.treedef:
            raise ValueError(
                f"{self.env.id}: DeckDeals.init_from_deck gave a state shaped unlike env.init's"
            )
        return _Hand(self, np.asarray(p.start(state)), none)

    def child(self, node: _Deal | _Hand, action: int) -> _Deal | _Hand:
        """The node after ``action`` (the last one taken from ``node`` is remembered);
        ``ValueError`` for a card already dealt or an action that is not legal."""
        last = node.child
        if last is not None and last[0] == action:
            return last[1]
        new: _Deal | _Hand
        if isinstance(node, _Deal):
            if not 0 <= action < self.deck_size or action in node.dealt:
                raise ValueError(f"chance outcome {action} is not a card left in the pack")
            dealt = (*node.dealt, action)
            new = self.start(dealt) if len(dealt) == self.deal_length else _Deal(dealt)
        else:
            if action not in node.legal:
                raise ValueError(f"action {action} is not legal for seat {node.player}")
            out = self.programs.step(node.flat, np.int32(action))
            new = _Hand(self, np.asarray(out), node.returns)
        node.child = (action, new)
        return new

    @functools.cached_property
    def game_type(self) -> pyspiel.GameType:
        return game_type(self.game_id, self.env)

    @functools.cached_property
    def game_info(self) -> pyspiel.GameInfo:
        low, high = self.deals.reward_bounds(self.env)
        return pyspiel.GameInfo(
            num_distinct_actions=self.env.num_actions,
            max_chance_outcomes=self.deck_size,
            num_players=self.env.num_players,
            min_utility=float(low),
            max_utility=float(high),
            utility_sum=utility_sum(self.env),
            max_game_length=self.env.max_decisions,
        )


@functools.cache
def _table(game_id: str, params: tuple[tuple[str, Any], ...]) -> Table:
    env, dealer = table(game_id, dict(params))
    deals = env.capability(caps.DeckDeals, "an OpenSpiel game")
    size = deals.deck_size(env)
    cards = tuple(env.action_str(c) for c in range(size))
    return Table(
        game_id,
        params,
        env,
        dealer,
        deals,
        size,
        deals.deal_length(env),
        _programs(env),
        _Deal(()),
        tuple(env.action_str(a) for a in range(env.num_actions)),
        tuple(f"deal {c}" for c in cards),
    )


def _params_key(params: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(params.items()))


def load(game_id: str, params: dict[str, Any]) -> pyspiel.Game:
    """``python_<game_id>`` with ``params``, registered first if need be (what an unpickled
    game calls, in a process that may not have imported this package)."""
    from spoilfive_jax.openspiel import register

    return pyspiel.load_game(register(game_id), params)


# ------------------------------------------------------------------------ the game


class OpenSpielGame(pyspiel.Game):  # type: ignore[misc]
    """One of the project's games at one table; made by ``pyspiel.load_game("python_<id>",
    params)`` once ``spoilfive_jax.openspiel`` is imported.  ``env`` is its env."""

    game_id = ""  # set by each registered subclass

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        t = _table(self.game_id, _params_key(given))
        super().__init__(t.game_type, t.game_info, {**rule_parameters(self.game_id), **given})
        self._table = t

    def __reduce__(self) -> tuple[Any, ...]:
        return (load, (self.game_id, dict(self.get_parameters())))

    @property
    def table(self) -> Table:
        """(Read again from the game's parameters if OpenSpiel hands back a bare copy.)"""
        t = self.__dict__.get("_table")
        if t is None:
            t = _table(self.game_id, _params_key(self.get_parameters()))
        return t  # type: ignore[no-any-return]

    @property
    def env(self) -> Env[Any, Any]:
        return self.table.env

    def max_chance_nodes_in_history(self) -> int:
        """The deal's chance nodes: the cards dealt one by one."""
        return self.table.deal_length

    def new_initial_state(self) -> OpenSpielState:
        return OpenSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        wanted = iig_obs_type is not None and iig_obs_type.perfect_recall
        if wanted and PERFECT_RECALL and information_states(self.env) is not None:
            return InformationStateObserver(self.table)
        return Observer(self.table)


class OpenSpielState(pyspiel.State):  # type: ignore[misc]
    """A hand: the deal's chance nodes, then the env's decisions.  ``env_state`` is the env's
    ``State`` once the deal is complete (numpy arrays; None before)."""

    def __init__(self, game: OpenSpielGame) -> None:
        super().__init__(game)
        # (the table, not the game itself: OpenSpiel may hand back a bare copy of the game)
        self._table = game.table
        self._node: _Deal | _Hand = self._table.root

    @property
    def env_state(self) -> Any:
        node = self._node
        return node.env_state if isinstance(node, _Hand) else None

    # ---------------------------------------------------------------- the OpenSpiel surface

    def current_player(self) -> int:
        node = self._node
        if isinstance(node, _Deal):
            return int(pyspiel.PlayerId.CHANCE)
        return int(pyspiel.PlayerId.TERMINAL) if node.over else node.player

    def _legal_actions(self, player: int) -> list[int]:
        node = self._node
        if isinstance(node, _Deal) or player != node.player:
            return []
        return list(node.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        node = self._node
        return node.outcomes(self._table.deck_size) if isinstance(node, _Deal) else []

    def _apply_action(self, action: int) -> None:
        """A chance card, or the seat's decision; ``ValueError`` for a card already dealt or
        an action that is not legal (OpenSpiel does not check, and the env would end the hand
        with its illegal-action penalty)."""
        self._node = self._table.child(self._node, int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        t = self._table
        texts = t.chance_text if player == pyspiel.PlayerId.CHANCE else t.action_text
        if not 0 <= action < len(texts):
            raise ValueError(f"action {action} is not an action id 0..{len(texts) - 1}")
        return texts[action]

    def is_terminal(self) -> bool:
        node = self._node
        return isinstance(node, _Hand) and node.over

    def returns(self) -> list[float]:
        node = self._node
        if isinstance(node, _Deal):
            return [0.0] * self._table.env.num_players
        return node.returns.tolist()  # type: ignore[no-any-return]

    def __str__(self) -> str:
        node, t = self._node, self._table
        if isinstance(node, _Deal):
            return "dealing: " + " ".join(t.chance_text[c][5:] for c in node.dealt)
        return node.text

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> OpenSpielState:
        """A copy whose hidden cards (those ``player_id`` cannot see) are redrawn uniformly
        among the deals consistent with its view, seeded by ``probability_sampler()``."""
        t, node = self._table, self._node
        resample = t.programs.resample
        if resample is None:
            raise ValueError(f"{t.env.id} has no resampler (the Analysis capability)")
        if isinstance(node, _Deal):
            raise ValueError("resample_from_infostate during the deal: nothing is hidden yet")
        self._check_player(player_id)
        seed = int(float(probability_sampler()) * 2**31)
        out = resample(np.int32(seed), node.flat, np.int32(player_id))
        copy = self.clone()
        # the seat to act is public, its legal actions are not (unless it is ``player_id``):
        # the world's are its own
        copy._node = _Hand(t, np.asarray(out), node.returns)
        return copy

    # ---------------------------------------------------------------- the host cache

    def observation_array(self, player: int) -> np.ndarray | None:
        """float32[D]: the env's ``observe(env_state, player)``, read from the node (a
        read-only view); None during the deal."""
        self._check_player(player)
        node = self._node
        return None if isinstance(node, _Deal) else node.views()[0][player]

    def information_state_array(self, player: int) -> np.ndarray | None:
        """float32[I]: the env's perfect-recall ``information_state(env_state, player)``, read
        from the node (a read-only view); None during the deal or where the env has none
        (``information_states``)."""
        self._check_player(player)
        node = self._node
        if isinstance(node, _Deal):
            return None
        information = node.views()[1]
        return information[player] if information.size else None

    def information_state_text(self, player: int) -> str | None:
        """The env's ``information_state_string`` (made once a node); None during the deal or
        where the env has none."""
        self._check_player(player)
        node = self._node
        return None if isinstance(node, _Deal) else node.information_text(player)

    def _check_player(self, player: int) -> None:
        n = self._table.env.num_players
        if not 0 <= int(player) < n:
            raise ValueError(f"player must be a seat 0..{n - 1}, got {player}")


class Observer:
    """OpenSpiel's Python observer: ``tensor`` (and ``dict['observation']``) is the env's
    ``observe(state, player)``; before the deal is complete it is all zeros."""

    def __init__(self, game: Table) -> None:
        self._table = game
        size = int(np.prod(game.env.observation_shape))
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def _array(self, state: OpenSpielState, player: int) -> np.ndarray | None:
        return state.observation_array(player)

    def set_from(self, state: OpenSpielState, player: int) -> None:
        row = self._array(state, player)
        if row is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = row

    def string_from(self, state: OpenSpielState, player: int) -> str:
        """``seat P: view DIGEST``, a digest of the tensor (searches key their nodes on it, so
        it must be cheap; ``str(state)`` is the table for people)."""
        row = self._array(state, player)
        if row is None:
            return f"seat {player}: the deal, {len(state.history())} cards out"
        return f"seat {player}: view {hashlib.sha1(row.tobytes()).hexdigest()[:20]}"


class InformationStateObserver(Observer):
    """The observer of a perfect-recall request where ``PERFECT_RECALL`` wires it: the env's
    ``information_state`` and ``information_state_string`` (``information_states``; the game
    must have them); before the deal is complete, zeros and the deal's text."""

    def __init__(self, game: Table) -> None:
        infos = information_states(game.env)
        if infos is None:
            raise ValueError(f"{game.env.id} has no perfect-recall information states")
        self._table = game
        self.tensor = np.zeros(int(np.prod(infos.shape)), np.float32)
        self.dict = {"info_state": self.tensor}

    def _array(self, state: OpenSpielState, player: int) -> np.ndarray | None:
        return state.information_state_array(player)

    def string_from(self, state: OpenSpielState, player: int) -> str:
        text = state.information_state_text(player)
        if text is None:
            return f"seat {player}: the deal, {len(state.history())} cards out"
        return text


def table_text(env: Env[Any, Any], state: Any, player: int | None) -> str:
    """The game's text of the table (for ``player``: its own cards shown)."""
    pictures = caps.declared(env, caps.Rendering)
    if pictures is not None:
        return pictures.render_text(env, state, player=player)
    info = caps.declared(env, caps.AgentInfo)
    return info.state_text(env, state) if info is not None else repr(state)


def _table_sizes(game_id: str) -> list[int]:
    """The table sizes the game takes (2..10 at most; a plugin may take fewer)."""
    sizes = []
    for n in range(2, 11):
        try:
            registry.make(game_id, n)
        except ValueError:
            continue
        sizes.append(n)
    return sizes


@functools.cache
def game_type(game_id: str, env: Env[Any, Any] | None = None) -> pyspiel.GameType:
    """OpenSpiel's description of ``python_<game_id>`` (at the table of ``env``: constant-sum
    where ``utility_sum`` says so; the default table without it)."""
    env = registry.make(game_id) if env is None else env
    sizes = _table_sizes(game_id)
    constant = utility_sum(env) is not None
    return pyspiel.GameType(
        short_name=f"python_{game_id}",
        long_name=f"Python {env.id.replace('_', ' ').title()} (spoilfive_jax)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.CONSTANT_SUM
            if constant
            else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(sizes),
        min_num_players=min(sizes),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=rule_parameters(game_id),
    )
