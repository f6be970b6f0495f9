"""Capabilities: what a game can do beyond the core ``Env``, declared as typed objects.

The core ``Env`` (``core.env``) is what every game must be: an id, seats, actions, ``init``, the
step, observations, action text and built-in policies.  Everything else a tool needs is a
*capability*: a ``typing.Protocol`` below, implemented by any object whose attributes match it
(a module of functions, or an instance of a class), and declared by the game in its class's
``capabilities`` mapping (``{**Env.capabilities, HandScoring: provider, ...}``).

Every capability function takes the env first (``cap.outcome(env, state, rewards)``), so one
module of plain functions serves every table and rules of its game.  A tool asks for what it
needs with ``env.capability(HandScoring, "score_hands")``; a game that does not declare it gets
one ``MissingCapability`` naming the game and the capability.  Nothing falls back: a declared
implementation that lacks a member (a misspelt function) is refused when the game's class is
defined (``check_implementation``); ``testing.api_test`` checks what every capability does.
Every game has ``Rollouts``, ``AgentInfo``, ``Teams`` (``core.generic``) and ``Presentation``
(``core.plain``) from the base class; a game replaces them by declaring its own.  The three
capabilities a game shows people with (``Presentation``, ``TerminalPlay``, ``Rendering``) are
written in ``core.presentation_capabilities`` and listed here with the rest.

Batched arguments carry a leading batch axis B; ``ids`` uint32[B] are the hands' indices in the
run; a hand depends only on the run's key material and its index (not on batches or devices).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast, runtime_checkable

import jax
import numpy as np

from spoilfive_jax.core.knowledge import Knowledge
from spoilfive_jax.core.presentation_capabilities import Presentation, Rendering, TerminalPlay

if TYPE_CHECKING:  # the types only: core.env imports this module, never the reverse at run time
    from spoilfive_jax.core.env import Env, HandState
    from spoilfive_jax.core.stats import RunStats, Values

__all__ = [
    "CAPABILITIES",
    "AgentInfo",
    "Analysis",
    "DeckDeals",
    "EndgameSolve",
    "HandScoring",
    "Inference",
    "MissingCapability",
    "Positions",
    "Presentation",
    "Rendering",
    "RolloutKernel",
    "Rollouts",
    "RunKeys",
    "Sessions",
    "Teams",
    "TerminalPlay",
    "check_implementation",
    "declared",
    "override",
]

S = TypeVar("S", bound="HandState")
"""The state of the env a capability function is given (``core.env.Env``'s ``S``), per call."""
R = TypeVar("R", bound=Hashable)
"""That env's rules."""

Kernel = Callable[..., dict[str, jax.Array]]  # ``kernel(deal, keys, ids, seat_policy)``
RunKeys = jax.Array | tuple[jax.Array, ...]
"""A run's key material (``Rollouts.rollout_keys``): a key or seed array, or a tuple of them."""


class MissingCapability(ValueError, NotImplementedError):
    """A tool needs a capability the game does not declare (a ``ValueError``)."""


@runtime_checkable
class Rollouts(Protocol):
    """How ``rollout``, ``evaluate`` and the scorer deal and record the hands of a run."""

    def score_unit(self, env: Env[S, R]) -> str:
        """What ``rewards`` count, for people: ``"chips"``, ``"points"``."""
        ...

    def rollout_keys(self, env: Env[S, R], key: jax.Array) -> RunKeys:
        """The key material of a run with PRNG ``key`` (a pytree, passed on as ``keys``)."""
        ...

    def deal_options(self, env: Env[S, R], dealer: Any = 0, **options: Any) -> dict[str, int]:
        """Validate the keyword options of ``rollout`` that shape every hand (``dealer``, and
        a game's own) as host ints; ``ValueError`` for an unknown or bad one."""
        ...

    def rollout_deal(
        self, env: Env[S, R], keys: RunKeys, ids: jax.Array, options: dict[str, jax.Array]
    ) -> Any:
        """Jittable: the deals of hands ``ids`` (a pytree with batch axis B)."""
        ...

    def deal_states(self, env: Env[S, R], deal: Any) -> S:
        """Jittable: the batch of first states of ``deal``."""
        ...

    def hand_keys(self, env: Env[S, R], keys: RunKeys, ids: jax.Array) -> jax.Array:
        """Jittable: one PRNG key per hand for its decisions (decision t: ``fold_in(key, t)``)."""
        ...

    def outcome(self, env: Env[S, R], state: S, rewards: jax.Array) -> dict[str, jax.Array]:
        """Jittable, ONE finished hand: the record a rollout keeps (``RolloutResult``'s fields).
        ``rewards`` float32[N] summed over the hand; the record holds ``rewards`` float32[N]
        and ``decisions`` int32[] at least."""
        ...

    def hand_values(self, env: Env[S, R], record: dict[str, Any]) -> Values:
        """Host or jittable: what the summary is built from, per hand, from a batch of
        ``outcome`` records (arrays with hands first: host numpy, or jax arrays inside ``jit``;
        ``core.stats.array_module`` gives the module of either).  (averaged, counted): values
        whose mean and standard error the summary reports ([H, ...], any dtype: they are
        reduced in float64 on the host, float32 on the device), and values only totalled
        (counts, histograms, integer sums).  Both ``summary()`` paths reduce these alike
        (``core.stats``): all hands at once, or batch by batch for ``per_hand=False``."""
        ...

    def summary_from_stats(self, env: Env[S, R], stats: RunStats, seconds: float) -> dict[str, Any]:
        """Host: the summary of a run from its statistics (``core.stats.RunStats`` of
        ``hand_values``: ``stats.hands``, ``stats.mean(name)``, ``stats.se(name)``,
        ``stats.totals[name]``) and its wall time (``RolloutResult.summary()``)."""
        ...

    def hands_won(self, env: Env[S, R], result: Any) -> Any:
        """Host or jittable: bool[H, N], the hands each seat won (tournaments' win rate);
        ``result`` has the record's fields as attributes (a ``RolloutResult``, or inside
        ``jit`` a batch of ``outcome`` records)."""
        ...


@runtime_checkable
class RolloutKernel(Protocol):
    """A faster way to play a lineup's hands (its built-in policies, or any policies)."""

    def rollout_kernel(
        self, env: Env[S, R], names: tuple[str | None, ...], policies: tuple[Any, ...] = ()
    ) -> Kernel | None:
        """Jittable ``kernel(deal, keys, ids, seat_policy) -> outcome`` of the lineup ``policies``
        (``names``: their built-in names, None for other callables; ``seat_policy`` int32[N]
        indexes them; ``deal``: ``rollout_deal``/``known_deal``): the hands of ``env.step``, the
        batched ``outcome`` (with ``illegal`` bool[B] if any); None: no kernel for the lineup."""
        ...


@runtime_checkable
class HandScoring(Protocol):
    """``score_hands``: what a hand is worth to a seat that knows only its own cards."""

    def score_threshold(self, env: Env[S, R]) -> int | None:
        """The default threshold of a score's ``p_above`` (None: the game takes none)."""
        ...

    def check_turnup(self, env: Env[S, R], hands: np.ndarray, turnup: Any) -> np.ndarray:
        """Host: check query ``hands`` int[Q, K] and the ``turnup`` the seat sees (one, or one
        per query) and return the turn-ups int32[Q] (-1: none); ``ValueError`` naming a problem."""
        ...

    def known_deal(
        self,
        env: Env[S, R],
        keys: RunKeys,
        ids: jax.Array,
        hands: jax.Array,
        turnup: jax.Array,
        seat: jax.Array,
    ) -> Any:
        """Jittable: deals (as ``rollout_deal``) in which seat ``seat`` int32[B] holds ``hands``
        int32[B, K] and sees ``turnup`` int32[B]; every unseen card dealt uniformly."""
        ...

    def query_samples(
        self, env: Env[S, R], outcome: dict[str, jax.Array], seat: jax.Array
    ) -> tuple[jax.Array, ...]:
        """Jittable: the per-rollout samples of the query seat from a batched ``outcome``."""
        ...

    def query_values(self, env: Env[S, R], samples: Any, **options: Any) -> tuple[Any, ...]:
        """Jittable: the per-rollout values whose per-query means and standard errors the
        scores are, from ``query_samples``' samples (``options``: ``score_hands``' keywords,
        e.g. ``threshold``, a traced int32)."""
        ...

    def scores_from_moments(
        self,
        env: Env[S, R],
        means: list[np.ndarray],
        ses: list[np.ndarray],
        num_rollouts: int,
        **options: Any,
    ) -> Any:
        """Host: the score record of the queries from each of ``query_values``' per-query mean
        and standard error (float32[Q] each)."""
        ...

    def has_turnup(self, env: Env[S, R]) -> bool:
        """Whether a hand has a turn-up card (a score query then names one)."""
        ...

    def score_records(self, env: Env[S, R], queries: Any, scores: Any) -> list[dict[str, Any]]:
        """JSON/CSV records of ``score_hands`` results."""
        ...

    def score_report(
        self, env: Env[S, R], queries: Any, scores: Any, heading: str, threshold: Any
    ) -> Any:
        """The ``Report`` of ``score_hands`` results under ``heading``."""
        ...


@runtime_checkable
class Sessions(Protocol):
    """``play_sessions``: hands in sequence at one table (chip sessions, whole games)."""

    def play_sessions(
        self,
        env: Env[S, R],
        key: jax.Array,
        lineup: Any,
        seat_policy: np.ndarray,
        num: int,
        *,
        per_hand: bool = True,
        **options: Any,
    ) -> Any:
        """``num`` sessions; ``lineup`` from ``tools.policies.lineup``; ``ValueError`` for an
        unknown option, naming it.  ``per_hand=False``: chunk by chunk, keeping only the
        summary's totals (a result whose ``summary()`` is the per-session one's, and whose
        per-session fields raise ``core.stats.NoPerHand``)."""
        ...


@runtime_checkable
class Analysis(Protocol):
    """``analyze`` and ``pimc``: worlds consistent with what a seat knows, and playouts."""

    def analysis_fields(self, env: Env[S, R]) -> tuple[str, ...]:
        """The per-rollout values of ``playout``, the first what ``best`` maximises (tables
        show ``..._prob`` in %, and leave out a field NaN for every action of a position)."""
        ...

    def analysis_labels(self, env: Env[S, R]) -> dict[str, str]:
        """Each field's words for people (table headings)."""
        ...

    def max_legal_actions(self, env: Env[S, R]) -> int:
        """The most legal actions any decision can have."""
        ...

    def resample_hidden(self, env: Env[S, R], key: jax.Array, state: S, player: Any) -> S:
        """One hand, jittable: a state drawn uniformly from the deals ``player`` deems possible."""
        ...

    def resample_hidden_many(
        self, env: Env[S, R], key: jax.Array, state: S, player: Any, count: int
    ) -> S:
        """One hand, jittable: ``count`` independent worlds (leading axis [count])."""
        ...

    def playout(
        self,
        env: Env[S, R],
        keys: jax.Array,
        states: S,
        actions: jax.Array,
        player: jax.Array,
        policy: Any,
    ) -> dict[str, jax.Array]:
        """Batch: apply each of ``actions`` int32[B, L] to ``states`` [B] and play the hand out
        with ``policy`` at every seat; float32[B, L] per field for ``player`` int32[B].  The
        actions are legal in their live states (the analysis passes each position's legal
        actions): an implementation may apply them unchecked, so an illegal one's values are
        unspecified.  Slot l's values may not depend on L or the other slots (api_test)."""
        ...


@runtime_checkable
class EndgameSolve(Protocol):
    """``pimc(..., solve_tricks=k)``: ``Analysis`` playouts whose last tricks are solved exactly
    in each world (every hand in view) instead of played by the policy."""

    def max_solve_tricks(self, env: Env[S, R]) -> int:
        """The most tricks ``solved_playout`` solves at ``env``'s table."""
        ...

    def solved_playout(
        self,
        env: Env[S, R],
        keys: jax.Array,
        states: S,
        actions: jax.Array,
        player: jax.Array,
        policy: Any,
        tricks: int | str,
    ) -> dict[str, jax.Array]:
        """``Analysis.playout`` with the last ``tricks`` tricks solved (``"all"``: the whole
        play): ``policy`` plays until then, then minimax for ``player``'s team (the others
        minimise its points; where each seat plays for itself every other seat plays against
        ``player``: a paranoid solve); ``ValueError`` outside 1 .. ``max_solve_tricks``."""
        ...


@runtime_checkable
class Inference(Protocol):
    """``pimc(..., infer_worlds=k)``: how likely each world makes the other seats' plays."""

    def play_log_likelihood(
        self, env: Env[S, R], worlds: Any, player: Any, model: Any
    ) -> jax.Array:
        """float32[count], jittable: for each of ``worlds`` [count] (states drawn by
        ``Analysis.resample_hidden_many`` for ``player``), the log-probability of the plays
        recorded so far by the seats other than ``player`` under ``model(state, seat) ->
        float32[num_actions]`` (``tools.analysis.play_model``), each play's state as it was in
        that world; 0 where nothing has been played; each play adds ``log model(...)[card]``."""
        ...

    def trained_model(self, env: Env[S, R]) -> Any:
        """The policy (with ``action_probs``) shipped for ``env``'s table, or None."""
        ...


@runtime_checkable
class Positions(Protocol):
    """Positions as text (``spoilfive analyze "players=5; ...; history=..."``)."""

    def position_from_history(self, env: Env[S, R], text: str | None = None, **fields: Any) -> S:
        """Host: the state of a position given as text or fields; a one-line ``ValueError``
        naming the problem for an impossible or inconsistent history."""
        ...

    def position_env(self, env: Env[S, R], text: str | None = None, **fields: Any) -> Env[S, R]:
        """Host: the table the position names (its ``players=`` and ``rules=``)."""
        ...


@runtime_checkable
class AgentInfo(Protocol):
    """What RL wrappers (``rl.pettingzoo``) report besides observations."""

    def observation_low(self, env: Env[S, R]) -> float:
        """The least value an observation entry can take (a bound for observation spaces)."""
        ...

    def final_info(self, env: Env[S, R], state: S) -> dict[str, Any]:
        """Host: what a finished hand reports (PettingZoo's ``info``)."""
        ...

    def state_text(self, env: Env[S, R], state: S) -> str:
        """Host: a few lines on one hand for logs (PettingZoo's ``render``)."""
        ...


@runtime_checkable
class Teams(Protocol):
    """Who plays with whom: what a learner that holds a whole partnership needs (``rl.ppo``)."""

    def team_of(self, env: Env[S, R]) -> np.ndarray:
        """Host: int32[N], the team of each seat, teams numbered from 0 (every seat its own team
        where each plays for itself).  Partners' rewards are equal in every hand."""
        ...


@runtime_checkable
class DeckDeals(Protocol):
    """Hands dealt from a chosen order of the pack (the OpenSpiel games' chance nodes)."""

    def deck_size(self, env: Env[S, R]) -> int:
        """Cards in the pack: card ids ``0 .. deck_size - 1``."""
        ...

    def deal_length(self, env: Env[S, R]) -> int:
        """How many leading cards of an order the hand can ever show (the hands, the turn-up,
        the stock drawn from): the order of the rest never matters."""
        ...

    def init_from_deck(self, env: Env[S, R], deck: np.ndarray, dealer: int) -> S:
        """The first state of the hand dealt from ``deck`` (int[deck_size], a permutation of
        the card ids, ``deck[0]`` first) by ``dealer``."""
        ...

    def reward_bounds(self, env: Env[S, R]) -> tuple[float, float]:
        """The least and the most one seat's rewards can sum to over a hand dealt so, every
        action legal (an outside framework's game information)."""
        ...

    def deck_of(self, env: Env[S, R], state: S) -> np.ndarray:
        """Host: a pack order (int[deck_size]) dealing ``state``'s hand (with ``state.moves``)."""
        ...


CAPABILITIES: tuple[type, ...] = (
    Rollouts,
    RolloutKernel,
    HandScoring,
    Sessions,
    Analysis,
    EndgameSolve,
    Inference,
    Positions,
    Presentation,
    TerminalPlay,
    Rendering,
    AgentInfo,
    Teams,
    DeckDeals,
    Knowledge,
)
"""Every capability kind, in the order ``api_test`` checks them."""

C = TypeVar("C")


def members(kind: type) -> tuple[str, ...]:
    """The names a ``kind`` asks for (its public functions)."""
    return tuple(n for n, v in vars(kind).items() if not n.startswith("_") and callable(v))


class _Override:
    """What ``override`` returns: one attribute a member of the capability, and nothing of
    its class's own (``check_implementation`` finds no stray public function on it); any other
    attribute is the base's (an optional member a tool reads with ``getattr``, such as a
    ``DeckDeals``' ``utility_sum``)."""

    def __init__(self, label: str, base: object, chosen: dict[str, Callable[..., Any]]) -> None:
        self.__name__ = label
        self._base = base
        self.__dict__.update(chosen)

    def __getattr__(self, name: str) -> Any:  # (only for names not set above)
        if name.startswith("__") or name == "_base":
            raise AttributeError(name)
        return getattr(self._base, name)

    def __repr__(self) -> str:
        return f"<{self.__name__}>"


def override(kind: type[C], base: object, **replaced: Callable[..., Any]) -> C:
    """An implementation of capability ``kind``: ``base``'s (a module or object, such as the
    defaults ``core.generic`` and ``core.plain``, or a game's own) with the members named here
    replaced, so that a game changing one member of a default names that member alone::

        capabilities = {
            **Env.capabilities,
            caps.Presentation: caps.override(caps.Presentation, plain, title=lambda env: "Whist"),
        }

    Any other attribute of ``base`` (an optional member that a tool reads if it is there, such
    as ``DeckDeals.utility_sum``, which the OpenSpiel games read) is ``base``'s too.
    ``ValueError`` for a name that is not a member of ``kind`` (a misspelt override would leave
    the base's in force), a replacement that is not callable, or a member that ``base`` lacks
    and is not given here."""
    if kind not in CAPABILITIES:
        raise ValueError(f"override: {kind!r} is not a capability (spoilfive_jax.capabilities)")
    names = members(kind)
    unknown = sorted(set(replaced) - set(names))
    if unknown:
        raise ValueError(
            f"override: {kind.__name__} has no member {', '.join(map(repr, unknown))}; "
            f"its members: {', '.join(names)}"
        )
    for name, fn in replaced.items():
        if not callable(fn):
            raise ValueError(f"override: {kind.__name__}.{name} must be callable, got {fn!r}")
    missing = [n for n in names if n not in replaced and not callable(getattr(base, n, None))]
    if missing:
        raise ValueError(
            f"override: {_name(base)} lacks {kind.__name__}'s {', '.join(missing)}; "
            "give them here or start from a base that has them"
        )
    chosen = {n: replaced[n] if n in replaced else getattr(base, n) for n in names}
    mine = ", ".join(sorted(replaced)) or "nothing"
    label = f"{kind.__name__} of {_name(base)}, with its own {mine}"
    return cast(C, _Override(label, base, chosen))


def check_implementation(game: str, kind: type, impl: object) -> None:
    """``TypeError`` unless ``impl`` has every member of capability ``kind``, each callable and
    taking at least the protocol's parameters.  For an instance of a class, its class may not
    define public functions the capability does not have (a misspelt override would otherwise
    leave the inherited one in force)."""
    if kind not in CAPABILITIES:
        raise TypeError(f"{game}: {kind!r} is not a capability (spoilfive_jax.capabilities)")
    for name in members(kind):
        fn = getattr(impl, name, None)
        if not callable(fn):
            raise TypeError(f"{game} declares {kind.__name__} by {_name(impl)}, which lacks {name}")
        if not _callable_as(fn, getattr(kind, name)):
            raise TypeError(
                f"{game}: {_name(impl)}.{name}{_signature(fn)} cannot be called as "
                f"{kind.__name__}.{name}{_signature(getattr(kind, name))} is"
            )
    if not inspect.ismodule(impl):
        known = _all_members(impl)
        own = [
            (n, v)
            for klass in type(impl).__mro__
            if klass.__module__ != "builtins"
            for n, v in list(vars(klass).items())
        ]
        extra = sorted({n for n, v in own if not n.startswith("_") and callable(v)} - known)
        if extra:
            raise TypeError(
                f"{game}: {type(impl).__name__} has {', '.join(extra)}, which no capability it "
                f"is declared for has (misspelt?)"
            )


def _all_members(impl: object) -> set[str]:
    return {n for kind in CAPABILITIES if isinstance(impl, kind) for n in members(kind)}


def _name(impl: object) -> str:
    """A module's name, an ``override``'s label, or the class of any other object."""
    own = impl.__name__ if isinstance(impl, _Override) or inspect.ismodule(impl) else None
    return own or type(impl).__name__


def _signature(fn: Any) -> str:
    try:
        return str(inspect.signature(fn))
    except (TypeError, ValueError):
        return "(...)"


def _callable_as(fn: Any, spec: Any) -> bool:
    """Whether ``fn`` accepts the call a tool makes of the protocol member ``spec``: its
    positional parameters (``self`` aside) by position, its keyword-only ones by name."""
    try:
        sig, want = inspect.signature(fn), inspect.signature(spec)
    except (TypeError, ValueError):  # a builtin without a signature: trust it
        return True
    params = list(want.parameters.values())[1:]
    args = [None for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    kwargs = {p.name: None for p in params if p.kind is p.KEYWORD_ONLY}
    try:
        sig.bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def declared(env: Env[S, R], kind: type[C]) -> C | None:
    """The game's implementation of ``kind``, or None: for the optional fast paths alone
    (``RolloutKernel``); a tool that needs a capability asks ``env.capability``."""
    return type(env).capabilities.get(kind)  # type: ignore[return-value]


def resolve(game: str, capabilities: Mapping[type, object], kind: type[C], needed_by: str) -> C:
    """The implementation of ``kind`` in ``capabilities``, or ``MissingCapability``."""
    impl = capabilities.get(kind)
    if impl is None:
        have = ", ".join(k.__name__ for k in capabilities) or "none"
        why = f" ({needed_by} needs it)" if needed_by else ""
        raise MissingCapability(
            f"{game} does not declare the {kind.__name__} capability{why}; it declares: {have}"
        )
    return impl  # type: ignore[return-value]
