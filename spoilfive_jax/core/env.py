"""``Env``: the core every game implements, and the parts of it written once.

A game (``games/<name>/env.py``, or a package of its own registered with
``spoilfive_jax.register``) subclasses ``Env`` and fills in its abstract members; everything
built on top (rollouts, the scorer, tournaments, the CLI, the RL wrappers, ``testing.api_test``)
talks to ``Env`` and to the game's declared capabilities (``core.capabilities``) only, and never
names a game.

The core, 29 members: the class facts ``rules_type``, ``default_num_players``, ``phase_names`` and
``capabilities``; the table ``num_players``, ``rules`` and ``num_actions`` (a class value that a
game whose action count depends on its rules sets per table); what a game must write, five
hooks: ``id``, ``init``, ``_apply``, ``max_decisions``, ``observe``; what it may write, with
defaults: ``_end_illegal`` (the offender scores -1, as in pgx, or minus the rules'
``illegal_penalty``), ``observation_shape``,
``full_observation_shape``, ``observe_full``, ``action_str`` (the id), ``policy_names`` and
``builtin_policy`` (``"random"``: a uniform legal action); and what is written once, here: ``step``
(pgx semantics: a terminated state comes back unchanged with zero rewards; an illegal action
ends the hand through the game's ``_end_illegal``, since nothing can raise under jit; a legal
one goes through ``_apply``), ``_settle`` (optional), ``legal_actions``, ``checked_step``,
``capability`` and what a seat knows (below).  Equality, hashing and ``repr`` come from the
table and the rules.

What a seat knows (``core.record``, ``core.knowledge``): a game declares the ``Knowledge``
capability (the public facts of the deal, each seat's private cards, its private actions, the
hand's first state) and every state's ``moves`` field, the public record, which the shared step
writes; the core writes from them ``information_state`` (perfect recall) with its string and
shape, ``observe_public`` and ``observe_private``.
"""

from __future__ import annotations

import abc
import functools
import typing
from collections.abc import Callable, Hashable, Mapping
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core import generic, knowledge, plain
from spoilfive_jax.core.bits import Bits

# (``is_legal``, ``transition`` and ``transition_legal`` live in ``core.transition``; their
# names here, where they were defined before, are kept for plugins that import them from here)
from spoilfive_jax.core.transition import is_legal as is_legal
from spoilfive_jax.core.transition import jit_step
from spoilfive_jax.core.transition import transition as transition
from spoilfive_jax.core.transition import transition_legal as transition_legal
from spoilfive_jax.core.validate import check_int, check_num_players, concrete

PolicyFn = Callable[[jax.Array, Any, jax.Array], jax.Array]
"""A policy: ``policy(key, state, player) -> action`` (int32[]), jittable, for one hand."""

POLICY_CONTRACT = (
    "a policy is a jittable policy(key, state, player) -> one integer action id (int32[], "
    "shape ()) for ONE hand; the tools vmap it over hands"
)
_NOT_JITTABLE = (
    jax.errors.ConcretizationTypeError,  # a Python ``if``/``bool`` on a traced value, too
    jax.errors.TracerIntegerConversionError,
    jax.errors.TracerArrayConversionError,
)


def call_policy(policy: PolicyFn, key: jax.Array, state: HandState, player: jax.Array) -> jax.Array:
    """``policy(key, state, player)`` as every loop that plays hands calls it, checked when
    traced (so at no cost in the compiled program): a policy that turns a traced value into a
    Python bool, int or numpy array (``if state.phase == 0:``), or that returns anything but
    one integer action id, is one ``ValueError`` saying what a policy must be, instead of
    JAX's ``TracerBoolConversionError`` or ``cond branches must have equal output types``."""
    name = getattr(policy, "__name__", type(policy).__name__)
    try:
        action = policy(key, state, player)
    except _NOT_JITTABLE:
        raise ValueError(
            f"policy {name!r} cannot be traced: it turns a traced value into a Python bool, int "
            "or numpy array (a Python `if`, `and`/`or`, int() or np.* on the state or the "
            "player); use jnp.where(cond, a, b) or jax.lax.cond instead; " + POLICY_CONTRACT
        ) from None
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return jnp.asarray(action, jnp.int32)  # a constant policy
    dtype, shape = getattr(action, "dtype", None), getattr(action, "shape", None)
    if dtype is None or not jnp.issubdtype(dtype, jnp.integer) or shape != ():
        got = f"an array {dtype}{list(shape or ())}" if dtype is not None else repr(action)
        raise ValueError(f"policy {name!r} returned {got[:60]}: {POLICY_CONTRACT}")
    return cast(jax.Array, action)


class HandState(Protocol):
    """What every game's ``State`` has (one hand; batched states gain leading axes): fields or
    read-only attributes (a game may pack them, as Spoil Five does)."""

    @property
    def current_player(self) -> jax.Array: ...  # int32[]: seat to act; -1 once terminated
    @property
    def terminated(self) -> jax.Array: ...  # bool[]
    @property
    def truncated(self) -> jax.Array: ...  # bool[]: always False (a hand ends by itself)
    @property
    def rewards(self) -> jax.Array: ...  # float32[N]: on the step that ends the hand, else 0
    @property
    def tricks_won(self) -> jax.Array: ...  # int32[N]
    @property
    def legal_set(self) -> Bits: ...  # uint32[] x 2: legal actions (all once terminated)
    @property
    def phase(self) -> jax.Array: ...  # int32[]: the game's phase index (``Env.phase_names``)
    @property
    def illegal(self) -> jax.Array: ...  # bool[]: the hand ended on an illegal action
    @property
    def _step_count(self) -> jax.Array: ...  # int32[]: decisions taken

    @property
    def legal_action_mask(self) -> jax.Array: ...

    def replace(self, **changes: Any) -> Any: ...


class RecordedState(HandState, Protocol):
    """A ``HandState`` with the public record (``core.record``): what ``core.knowledge`` reads
    (every built-in game's state, and a game of your own that keeps ``moves``)."""

    @property
    def moves(self) -> jax.Array: ...  # int32[M]: every decision in order, as seen publicly


S = TypeVar("S", bound=HandState)


def _with_record(state: HandState) -> RecordedState:
    """``state`` as the ``RecordedState`` the knowledge views read (a game that declares
    ``Knowledge`` keeps the public record; the capability's functions read it)."""
    return cast(RecordedState, state)


R = TypeVar("R", bound=Hashable)
C = TypeVar("C")


class Env(abc.ABC, Generic[S, R]):
    """One hand of a game for ``num_players`` seats under hashable ``rules``.

    ``init``/``step``/``observe`` are pure and jit/vmap-able; an ``Env`` is hashable and can be
    a static argument of ``jax.jit``.  Seats are 0..N-1 clockwise.
    """

    num_actions: int
    """Action ids are ``0..num_actions-1``: a class value, or set in ``__init__`` when the rules
    decide it (Oh Hell's bids)."""
    rules_type: ClassVar[type]
    default_num_players: ClassVar[int] = 4
    phase_names: ClassVar[tuple[str, ...]]
    """The names of ``state.phase``'s values, the hand's end last (``"done"``)."""
    capabilities: ClassVar[Mapping[type, object]] = {
        caps.Rollouts: generic,
        caps.AgentInfo: generic,
        caps.Teams: generic,
        caps.Presentation: plain,
    }
    """What the game can do beyond the core: capability kind -> its implementation (a module
    or an object; ``core.capabilities``).  A game extends the base's:
    ``capabilities = {**Env.capabilities, caps.HandScoring: provider, ...}``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for kind, impl in cls.capabilities.items():
            caps.check_implementation(cls.__name__, kind, impl)
        for name in ("observe", "observe_full"):  # the game's own: checked as step is
            fn = cls.__dict__.get(name)
            if fn is not None and not getattr(fn, "checks_state", False):
                setattr(cls, name, _checking_state(fn))

    def __init__(self, num_players: int | None = None, rules: R | None = None) -> None:
        n = self.default_num_players if num_players is None else num_players
        self.num_players: int = check_num_players(n)
        if rules is None:
            rules = cast(R, self.rules_type())
        if not isinstance(rules, self.rules_type):
            raise ValueError(
                f"rules must be a spoilfive_jax.{self.rules_type.__name__}, "
                f"got {type(rules).__name__}"
            )
        self.rules: R = rules

    # ------------------------------------------------------------------ identity

    @property
    @abc.abstractmethod
    def id(self) -> str:
        """The registry id of this game (``spoilfive_jax.available_games()``)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_players={self.num_players}, rules={self.rules!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and (self.num_players, self.rules) == (
            other.num_players,  # type: ignore[attr-defined]
            other.rules,  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        return hash((type(self), self.num_players, self.rules))

    # ------------------------------------------------------------------ game hooks

    @abc.abstractmethod
    def init(self, key: jax.Array, dealer: Any = 0) -> S:
        """A uniformly random deal with seat ``dealer`` dealing (jittable).  Games add keyword
        arguments for what carries between hands (Spoil Five's pot, the family's scores).

        ``key``: a PRNG key or an int seed (``core.validate.as_key``).  ``dealer``: a host value
        outside 0..N-1 is a ``ValueError``; a traced one (under jit/vmap, where nothing can
        raise) gives a hand that has ended at once with ``illegal`` set (``checked_deal``)."""

    @abc.abstractmethod
    def _apply(self, state: S, action: jax.Array) -> S:
        """The state after a LEGAL ``action`` by ``current_player`` in a live hand."""

    def _end_illegal(self, state: S) -> S:
        """The hand ended at once because ``current_player`` took an illegal action.  Default
        (pgx's): it scores -1, or minus ``rules.illegal_penalty`` where the rules have one,
        the others 0 (``generic.end_illegal``); a game overrides it for a state with more to
        settle."""
        return generic.end_illegal(self, state)

    @property
    @abc.abstractmethod
    def max_decisions(self) -> int:
        """The most decisions one hand can take (a static bound for scans)."""

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of ``observe`` / ``State.observation``.  Default: read off ``observe`` of a
        deal by ``jax.eval_shape`` (traced once per table, nothing computed)."""
        return _shape_of(self, "observe")

    @property
    def full_observation_shape(self) -> tuple[int, ...]:
        """Shape of ``observe_full``.  Default: read off it as ``observation_shape`` is."""
        return _shape_of(self, "observe_full")

    @abc.abstractmethod
    def observe(self, state: S, player: Any) -> jax.Array:
        """float32[D]: what seat ``player`` knows of one hand (imperfect information).  A host
        ``player`` outside 0..N-1 is a ``ValueError``; a traced one (under jit/vmap) outside it
        sees all zeros (every game's ``observe`` is wrapped to check: ``_checking_state``)."""

    def observe_full(self, state: S) -> jax.Array:
        """float32[D_full]: the perfect-information view (for critics and search).  Default:
        every seat's ``observe`` side by side, seat 0 first (float32[N * D]: each shows its
        own cards, so together they show every hand); a game may give a more compact one."""
        return jnp.concatenate([self.observe(state, p) for p in range(self.num_players)])

    def action_str(self, action: Any) -> str:
        """Text of an action id for people (cards as ``10♦``).  The library calls it with ids
        0..num_actions-1 only (``checked_step`` names an id outside that range itself).
        Default: the id (``"17"``)."""
        return str(int(action))

    def builtin_policy(self, name: str) -> PolicyFn:
        """The game's built-in policy ``name`` (``policy_names``), a jittable function.
        Default: ``"random"``, a uniform legal action (``generic.random_policy``)."""
        return generic.builtin_policy(self, name)

    @property
    def policy_names(self) -> tuple[str, ...]:
        """Names ``builtin_policy`` accepts (``"random"`` first).  Default: ``("random",)``."""
        return ("random",)

    # ------------------------------------------------------------------ written once

    def step(self, state: S, action: Any, key: jax.Array | None = None) -> S:
        """Pure: the state after ``current_player`` takes ``action`` (jit/vmap-able).

        A terminated state comes back unchanged with zero rewards; an illegal action (not in
        ``state.legal_action_mask``, or outside ``0..num_actions-1``) ends the hand with the
        game's penalty and sets ``state.illegal``.  ``key`` is accepted for pgx compatibility
        and ignored: a hand has no chance events after the deal.

        ``action`` must be one integer (a Python or numpy int, or an integer array of shape
        ``()``, traced or not) and ``state`` one hand: text, ``None``, floats (``1.7`` is not
        rounded to 1), bools, other shapes and batched states are a ``ValueError``, checked
        in Python when ``step`` is called or traced, so the compiled step does no extra work.

        Under ``jax.vmap`` the batch's step is compiled apart from the code around it (a
        ``lax.cond`` of its own: ``core.transition.isolated_step``), which makes a loop that
        chooses its actions from the state faster on CPU; the values are those of the plain
        step.  It has no reverse-mode derivative (``jax.grad`` through it is an error).
        """
        del key
        check_state(self, state, "step")
        check_one_hand(state, "step", "use jax.vmap(env.step) for a batch")
        return jit_step(self, state, action_id(self, action))

    def _settle(self, state: S) -> S:
        """The state ``step`` returns, given the chosen outcome (legal, illegal or finished):
        a game fills in here what it derives from the stored fields (Spoil Five: the legal
        set).  Computed after the choice, from values the step stores, it reads them back
        instead of recomputing the transition inside each output (XLA:CPU has no multi-output
        loop fusion).  Default: the state unchanged."""
        return state

    def legal_actions(self, state: S) -> list[int]:
        """Host helper: the legal action ids of one live hand's ``current_player``; ``[]`` once
        the hand is over (nobody to act).  A state that ``auto_reset`` has just re-dealt keeps
        the finished step's ``terminated`` flag, as in pgx, but lists the new hand's actions."""
        check_state(self, state, "legal_actions")
        check_one_hand(state, "legal_actions", "index the batch first")
        if bool(state.terminated) and int(state.current_player) < 0:
            return []
        return np.flatnonzero(np.asarray(state.legal_action_mask)).tolist()

    def checked_step(self, state: S, action: Any) -> S:
        """Host-side ``step`` for one hand that raises ``ValueError`` for an illegal action or
        a finished hand, naming the legal actions."""
        check_state(self, state, "checked_step")
        check_one_hand(state, "checked_step", "index the batch first")
        if bool(state.terminated):
            raise ValueError("the hand is over (state.terminated); deal a new one with init")
        a = concrete(action)
        ok = a is not None and a.shape == () and np.issubdtype(a.dtype, np.integer)
        legal = self.legal_actions(state)
        if a is None or not ok or int(a) not in legal:
            player = int(state.current_player)
            phase = self.phase_names[int(state.phase)]
            names = ", ".join(self.action_str(x) for x in legal)
            named = ok and a is not None and 0 <= int(a) < self.num_actions
            what = self.action_str(a) if named else f"not an action id 0..{self.num_actions - 1}"
            raise ValueError(
                f"illegal action {action!r} ({what}) for player {player} in the {phase} "
                f"phase; legal actions: {legal} ({names})"
            )
        return self.step(state, jnp.int32(int(a)))

    # ------------------------------------------------------------------ what a seat knows
    # (``core.record``, ``core.knowledge``): written once, from the game's ``Knowledge``
    # capability (what its seats know); ``MissingCapability`` without it.  They read the
    # state's public record (a ``RecordedState``: a game that declares ``Knowledge`` keeps one).

    def information_state(self, state: S, player: Any) -> jax.Array:
        """float32[I]: seat ``player``'s perfect-recall information state (layout:
        ``core.knowledge``); checked as ``observe`` is."""
        check_state(self, state, "information_state")
        return seat_view(
            self, player, lambda p: knowledge.information_state(self, _with_record(state), p)
        )

    def observe_public(self, state: S) -> jax.Array:
        """float32[P]: what every seat knows: the public facts of the deal and the public
        record (``core.knowledge``; P = ``knowledge.shapes(env)["public"]``)."""
        check_state(self, state, "observe_public")
        return knowledge.observe_public(self, _with_record(state))

    def observe_private(self, state: S, player: Any) -> jax.Array:
        """float32[64 C]: what seat ``player`` alone knows: its private card sets as masks."""
        check_state(self, state, "observe_private")
        return seat_view(
            self, player, lambda p: knowledge.observe_private(self, _with_record(state), p)
        )

    @property
    def information_state_shape(self) -> tuple[int, ...]:
        """Shape of ``information_state``; ``core.knowledge.shapes`` gives every kind's."""
        return knowledge.shapes(self)["information_state"]

    def information_state_string(self, state: S, player: int) -> str:
        """Host: ``information_state`` in words, for one hand (``core.knowledge``)."""
        check_state(self, state, "information_state_string")
        check_one_hand(state, "information_state_string", "index the batch first")
        check_int("player", player, 0, self.num_players - 1)
        return knowledge.information_state_string(self, _with_record(state), int(player))

    def capability(self, kind: type[C], needed_by: str = "") -> C:
        """The game's implementation of capability ``kind`` (``core.capabilities``), or one
        ``MissingCapability`` (a ``ValueError``) naming the game, the capability and, given
        ``needed_by``, the tool that needs it."""
        return caps.resolve(self.id, type(self).capabilities, kind, needed_by)


def check_state(env: Env[S, R], state: HandState, what: str) -> None:
    """``ValueError`` unless ``state`` is a state of ``env``'s game and table size.

    ``step``, ``observe``, ``observe_full``, ``legal_actions``, ``checked_step`` and the tools
    call it.  It reads only the state's class and its static shapes (``tricks_won`` is
    int32[..., N]), so it runs in Python when the function is called or traced and costs
    nothing under jit.  The family's three games share one ``State`` class, so a Forty-Five
    state given to Twenty-Five passes it (the table size is still checked)."""
    expected = _state_class(type(env))
    if expected is not None and not isinstance(state, expected):
        theirs = state_owner(state)
        raise ValueError(
            f"{what}: a state of {theirs} ({type(state).__module__}.{type(state).__name__}) "
            f"given to {type(env).__name__} ({env.id}); use the env that made it"
        )
    shape = np.shape(getattr(state, "tricks_won", ()))
    if shape and shape[-1] != env.num_players:
        raise ValueError(
            f"{what}: a {shape[-1]}-player state given to a {env.num_players}-player "
            f"{env.id} table; use the env that made it"
        )


def check_one_hand(state: HandState, what: str, hint: str) -> None:
    """``ValueError`` unless ``state`` is one hand (``rewards`` float32[N]); read from a static
    shape, so it costs nothing under jit (under ``vmap`` each hand is one hand)."""
    shape = np.shape(state.rewards)
    if len(shape) != 1:
        raise ValueError(f"{what} takes one hand, not a batch of shape {shape[:-1]}; {hint}")


def action_id(env: Env[S, R], action: Any) -> jax.Array:
    """``action`` as the int32 ``step`` plays, or a one-line ``ValueError``: it must be one
    integer (Python, numpy or an integer array of shape ``()``, traced or not).  A tracer is
    judged by its dtype and shape at trace time; a value outside ``0..num_actions-1`` is an
    illegal action (the step ends the hand), not an error."""
    wanted = f"action must be one integer action id 0..{env.num_actions - 1}"
    if isinstance(action, (bool, np.bool_)):
        raise ValueError(f"{wanted}, got the bool {action!r}")
    if isinstance(action, (int, np.integer)):
        if not np.iinfo(np.int32).min <= int(action) <= np.iinfo(np.int32).max:
            raise ValueError(f"{wanted}, got {int(action)} (outside int32)")
        return jnp.asarray(action, jnp.int32)
    if isinstance(action, (jax.Array, np.ndarray)):
        if not jnp.issubdtype(action.dtype, jnp.integer) or action.shape != ():
            raise ValueError(
                f"{wanted} (shape ()), got an array {action.dtype}{list(action.shape)}"
                + ("; one hand takes one action" if action.shape != () else "")
            )
        return jnp.asarray(action, jnp.int32)
    shown = repr(action) if len(repr(action)) <= 40 else type(action).__name__
    hint = " (a float is not rounded)" if isinstance(action, float) else ""
    raise ValueError(f"{wanted}, got {shown}{hint}")


_ENDED_FIELDS = ("current_player", "terminated", "phase", "illegal", "legal_set")
"""What ``checked_deal`` takes from the game's ``_end_illegal`` for a hand that cannot start."""


def checked_deal(env: Env[S, R], dealer: Any, deal: Callable[[Any], S]) -> S:
    """``deal(dealer)``: the new hand a game's ``init``/``init_from_*`` deals, ``dealer`` checked.

    A host ``dealer`` must be an integer 0..N-1 (``ValueError``; ``deal`` gets it as given).
    Under jit/vmap nothing can raise: a traced ``dealer`` must have an integer dtype (checked
    at trace time), and one outside 0..N-1 deals as seat 0 and the hand has ended at once, as
    on an illegal action: ``terminated`` and ``illegal`` set, nobody to act, the ``done``
    phase and legal set (the fields of the game's ``_end_illegal``), but nothing scored
    (``rewards`` stay zero) and no decision counted.  A valid traced dealer deals exactly as
    a host one (the selects pick the dealt state)."""
    check_int("dealer", dealer, 0, env.num_players - 1)
    if concrete(dealer) is not None:
        return deal(dealer)
    if not jnp.issubdtype(dealer.dtype, jnp.integer):
        raise ValueError(f"dealer must be an integer, got a traced {dealer.dtype} value")
    d = jnp.asarray(dealer, jnp.int32)
    bad = (d < 0) | (d >= env.num_players)
    state = deal(jnp.where(bad, 0, d))
    ended = env._settle(env._end_illegal(state))

    def pick(e: jax.Array, x: jax.Array) -> jax.Array:
        return jnp.where(bad, e, x)

    fields = {f: jax.tree.map(pick, getattr(ended, f), getattr(state, f)) for f in _ENDED_FIELDS}
    return cast(S, state.replace(**fields))


@functools.cache
def _state_class(cls: type) -> type | None:
    """The ``S`` of the first ``Env[S, R]`` among ``cls``'s bases (None: not declared)."""
    for klass in cls.__mro__:
        for base in klass.__dict__.get("__orig_bases__", ()):
            if typing.get_origin(base) is Env:
                arg = typing.get_args(base)[0]
                return arg if isinstance(arg, type) else None
    return None


def state_owner(state: HandState) -> str:
    """The env classes whose states ``state`` is ("FortyFive/TwentyFive/..."), for messages."""
    return _games_of(type(state)) or type(state).__qualname__


def _games_of(state_cls: type) -> str:
    """The env classes whose states are ``state_cls`` ("FortyFive/TwentyFive/...")."""
    found: list[str] = []
    todo = list(Env.__subclasses__())
    while todo:
        cls = todo.pop(0)
        todo.extend(cls.__subclasses__())
        if _state_class(cls) is state_cls and cls.__name__ not in found:
            found.append(cls.__name__)
    return "/".join(found)


def seat_view(env: Env[S, R], player: Any, view: Callable[[Any], jax.Array]) -> jax.Array:
    """``view(player)`` with the seat checked: a host ``player`` must be an integer 0..N-1
    (``ValueError``); a traced one outside that range (nothing can raise under jit) sees an
    all-zero view."""
    check_int("player", player, 0, env.num_players - 1)
    if concrete(player) is not None:
        return view(player)
    seat = jnp.asarray(player)
    if not jnp.issubdtype(seat.dtype, jnp.integer):
        raise ValueError(f"player must be an integer, got a traced {seat.dtype} value")
    seen = (seat >= 0) & (seat < env.num_players)
    out = view(jnp.where(seen, seat, 0))
    return jnp.where(seen, out, jnp.zeros_like(out))


def _checking_state(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A game's ``observe``/``observe_full`` that first checks its state (``check_state``), and
    ``observe``'s seat: a host ``player`` must be an integer 0..N-1 (``ValueError``); a traced
    one outside that range (nothing can raise under jit) sees an all-zero view."""

    @functools.wraps(fn)
    def checked(self: Env[S, R], state: S, *args: Any, **kwargs: Any) -> Any:
        check_state(self, state, fn.__name__)
        if fn.__name__ != "observe" or len(args) + len(kwargs) != 1:
            return fn(self, state, *args, **kwargs)
        (player,) = args or tuple(kwargs.values())
        return seat_view(self, player, lambda p: fn(self, state, p))

    checked.checks_state = True  # type: ignore[attr-defined]
    return checked


@functools.cache
def _shape_of(env: Env[S, R], method: str) -> tuple[int, ...]:
    """The shape of ``env.observe`` (seat 0's) or ``env.observe_full`` of a deal, traced once
    (the env is hashable: one entry per game, table and rules)."""
    deal = jax.eval_shape(lambda: env.init(jax.random.PRNGKey(0)))
    if method == "observe":
        out = jax.eval_shape(lambda s: env.observe(s, 0), deal)
    else:
        out = jax.eval_shape(env.observe_full, deal)
    return tuple(int(d) for d in out.shape)
