"""``Env``: the one interface every game implements, and the parts of it written once.

A game (``games/<name>/env.py``) subclasses ``Env`` and fills in small hooks; everything built on
top (rollouts, the scorer, tournaments, the CLI, the RL wrappers, ``testing.api_test``) talks
to ``Env`` only and never names a game.

Written once, here:

- the public step (pgx semantics): a terminated state comes back unchanged with zero rewards;
  an illegal action ends the hand through the game's ``_end_illegal`` (nothing can raise under
  jit); a legal one goes through the game's ``_apply``;
- ``legal_actions``, ``checked_step`` (the host-side step that raises ``ValueError`` for an
  illegal action), equality, hashing and ``repr``;
- the pgx surface: ``id``, ``num_players``, ``num_actions``, ``observation_shape``,
  ``init(key)``, ``step(state, action, key=None)``.

What a game provides (the hooks, each documented below): ``id``, ``num_actions``,
``rules_type``, ``default_num_players``, ``init`` (a uniformly random deal), ``_apply``,
``_end_illegal``, ``_finished``, ``_settle`` (optional), ``observe``, ``observe_full``,
``observation_shape``, ``full_observation_shape``, ``action_str``, ``phase_names``,
``max_decisions`` and ``builtin_policy``.  The generic tools' hooks (``spoilfive_jax.tools``:
the deals of a rollout, the outcome record kept per hand, summaries, hands won, the score unit,
the scorer's deals from known cards, an optional fast kernel, sessions; the RL wrappers' info
and text) are the block at the end of ``Env``, each with a default where one makes sense.
"""

from __future__ import annotations

import abc
import functools
import importlib
from collections.abc import Callable, Hashable
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.hooks import PresentationHooks
from spoilfive_jax.core.validate import check_int, check_num_players, concrete

PolicyFn = Callable[[jax.Array, Any, jax.Array], jax.Array]
"""A policy: ``policy(key, state, player) -> action`` (int32[]), jittable, for one hand."""


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


S = TypeVar("S", bound=HandState)
R = TypeVar("R", bound=Hashable)


def is_legal(legal_set: Bits, action: jax.Array, num_actions: int) -> jax.Array:
    """bool: ``action`` is in ``legal_set`` (False outside ``0..num_actions-1``)."""
    a = jnp.asarray(action, jnp.int32)
    inside = (a >= 0) & (a < num_actions)
    return inside & bits.has(legal_set, jnp.clip(a, 0, num_actions - 1))


class Env(PresentationHooks, abc.ABC, Generic[S, R]):
    """One hand of a game for ``num_players`` seats under hashable ``rules``.

    ``init``/``step``/``observe`` are pure and jit/vmap-able; an ``Env`` is hashable and can be
    a static argument of ``jax.jit``.  Seats are 0..N-1 clockwise.
    """

    num_actions: ClassVar[int]
    rules_type: ClassVar[type]
    default_num_players: ClassVar[int] = 4
    phase_names: ClassVar[tuple[str, ...]]

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
        arguments for what carries between hands (Spoil Five's pot, the family's scores)."""

    @abc.abstractmethod
    def _apply(self, state: S, action: jax.Array) -> S:
        """The state after a LEGAL ``action`` by ``current_player`` in a live hand."""

    @abc.abstractmethod
    def _end_illegal(self, state: S) -> S:
        """The hand ended at once because ``current_player`` took an illegal action."""

    def _finished(self, state: S) -> S:
        """What stepping a terminated state returns: itself, with zero rewards."""
        return state.replace(rewards=jnp.zeros_like(state.rewards))

    @property
    @abc.abstractmethod
    def max_decisions(self) -> int:
        """The most decisions one hand can take (a static bound for scans)."""

    @property
    @abc.abstractmethod
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of ``observe`` / ``State.observation``."""

    @property
    @abc.abstractmethod
    def full_observation_shape(self) -> tuple[int, ...]:
        """Shape of ``observe_full``."""

    @abc.abstractmethod
    def observe(self, state: S, player: Any) -> jax.Array:
        """float32[D]: what seat ``player`` knows of one hand (imperfect information)."""

    @abc.abstractmethod
    def observe_full(self, state: S) -> jax.Array:
        """float32[D_full]: the perfect-information view (for critics and search)."""

    @abc.abstractmethod
    def action_str(self, action: Any) -> str:
        """Text of an action id for people (cards as ``10♦``)."""

    @abc.abstractmethod
    def builtin_policy(self, name: str) -> PolicyFn:
        """The game's built-in policy ``name`` (``policy_names``), a jittable function."""

    @property
    @abc.abstractmethod
    def policy_names(self) -> tuple[str, ...]:
        """Names ``builtin_policy`` accepts (``"random"`` first)."""

    # ------------------------------------------------------------------ written once

    def step(self, state: S, action: Any, key: jax.Array | None = None) -> S:
        """Pure: the state after ``current_player`` takes ``action`` (jit/vmap-able).

        A terminated state comes back unchanged with zero rewards; an illegal action (not in
        ``state.legal_action_mask``, or outside ``0..num_actions-1``) ends the hand with the
        game's penalty and sets ``state.illegal``.  ``key`` is accepted for pgx compatibility
        and ignored: a hand has no chance events after the deal.
        """
        del key
        return _jit_step(self, state, jnp.asarray(action, jnp.int32))

    def _step(self, state: S, action: jax.Array) -> S:
        live = ~state.terminated
        legal = is_legal(state.legal_set, action, self.num_actions)
        played = self._apply(state, action)
        fouled = self._end_illegal(state)
        done = self._finished(state)

        def choose(p: jax.Array, f: jax.Array, d: jax.Array) -> jax.Array:
            return jnp.where(live, jnp.where(legal, p, f), d)

        return self._settle(jax.tree.map(choose, played, fouled, done))

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
        if bool(state.terminated) and int(state.current_player) < 0:
            return []
        return np.flatnonzero(np.asarray(state.legal_action_mask)).tolist()

    def checked_step(self, state: S, action: Any) -> S:
        """Host-side ``step`` for one hand that raises ``ValueError`` for an illegal action or
        a finished hand, naming the legal actions."""
        if np.asarray(state.terminated).shape != ():
            raise ValueError("checked_step takes one hand, not a batch; index the batch first")
        if bool(state.terminated):
            raise ValueError("the hand is over (state.terminated); deal a new one with init")
        a = concrete(action)
        ok = a is not None and a.shape == () and np.issubdtype(a.dtype, np.integer)
        legal = self.legal_actions(state)
        if a is None or not ok or int(a) not in legal:
            player = int(state.current_player)
            phase = self.phase_names[int(state.phase)]
            names = ", ".join(self.action_str(x) for x in legal)
            what = self.action_str(a) if ok and a is not None else "not an action id"
            raise ValueError(
                f"illegal action {action!r} ({what}) for player {player} in the {phase} "
                f"phase; legal actions: {legal} ({names})"
            )
        return self.step(state, jnp.int32(int(a)))

    # ---------------- tools hooks (tools): what the generic tools ask of a game
    #
    # ``spoilfive_jax.tools`` (rollout, scorer, tournaments, sessions) never names a game; it
    # asks these.  Batched arguments have a leading batch axis B; ``ids`` uint32[B] are the
    # hands' indices in the run, and a hand's deal and decisions must depend only on the run's
    # key material and its index (so results do not depend on batch size or devices).

    # A game that implements them names its module in ``provider_module``; each hook below then
    # calls the function of the same name there, with the env first (as ``report_module`` does
    # for the presentation hooks).  A function the module lacks keeps the default here.

    score_unit: ClassVar[str] = "points"
    """What ``rewards`` count, for people: ``"chips"`` (Spoil Five) or ``"points"``."""

    provider_module: ClassVar[str] = ""
    """Dotted name of the game's tools module (``games/<name>/provider.py``), or ""."""

    @classmethod
    def _provided(cls, name: str) -> Callable[..., Any] | None:
        if not cls.provider_module:
            return None
        return getattr(importlib.import_module(cls.provider_module), name, None)

    def rollout_keys(self, key: jax.Array) -> Any:
        """The key material of a run with PRNG ``key`` (a pytree of arrays, passed to the
        other hooks as ``keys``).  Default: the key itself."""
        if (provided := self._provided("rollout_keys")) is not None:
            return provided(self, key)  # type: ignore[no-any-return]
        return key

    def deal_options(self, dealer: Any = 0, **options: Any) -> dict[str, int]:
        """Validate the keyword options of ``rollout`` that shape every hand and return them as
        host ints (they reach ``rollout_deal`` as int32 scalars).  Default: ``dealer`` only;
        a game adds its own (Spoil Five: ``carried``) and refuses unknown ones."""
        if options:
            raise ValueError(f"{self.id} takes no rollout option {', '.join(options)}")
        if isinstance(dealer, bool):
            raise ValueError(f"dealer must be an integer, got {dealer!r}")
        check_int("dealer", dealer, 0, self.num_players - 1)
        return {"dealer": int(dealer)}

    def rollout_deal(self, keys: Any, ids: jax.Array, options: dict[str, jax.Array]) -> Any:
        """Jittable: the deals of hands ``ids`` (a game-specific pytree with batch axis B, read
        by ``deal_states`` and by the game's kernel).  Default: ``init(fold_in(fold_in(key,
        id), 0), dealer)``, the states themselves."""
        if (provided := self._provided("rollout_deal")) is not None:
            return provided(self, keys, ids, options)  # type: ignore[no-any-return]
        deal_keys = jax.vmap(lambda i: jax.random.fold_in(jax.random.fold_in(keys, i), 0))(ids)
        return jax.vmap(lambda k: self.init(k, options["dealer"]))(deal_keys)

    def deal_states(self, deal: Any) -> S:
        """Jittable: the batch of first states of ``deal`` (default: the deal is the states)."""
        if (provided := self._provided("deal_states")) is not None:
            return provided(self, deal)  # type: ignore[no-any-return]
        return deal  # type: ignore[no-any-return]

    def hand_keys(self, keys: Any, ids: jax.Array) -> jax.Array:
        """Jittable: one PRNG key per hand for its decisions (decision t of the hand uses
        ``fold_in(hand_key, t)``, see ``tools.policies.play_out``).  Default:
        ``fold_in(fold_in(key, id), 1)``."""
        if (provided := self._provided("hand_keys")) is not None:
            return provided(self, keys, ids)  # type: ignore[no-any-return]
        return jax.vmap(lambda i: jax.random.fold_in(jax.random.fold_in(keys, i), 1))(ids)

    def outcome(self, state: S, rewards: jax.Array) -> dict[str, jax.Array]:
        """Jittable, ONE finished hand: the record a rollout keeps of it (``RolloutResult``'s
        fields).  ``rewards`` float32[N]: the rewards summed over the hand's steps.  It must hold
        ``rewards`` float32[N] and ``decisions`` int32[]; default: those and ``tricks_won``."""
        if (provided := self._provided("outcome")) is not None:
            return provided(self, state, rewards)  # type: ignore[no-any-return]
        return {
            "rewards": rewards,
            "tricks_won": state.tricks_won,
            "decisions": state._step_count,
        }

    def rollout_kernel(self, names: tuple[str, ...]) -> Callable[..., Any] | None:
        """A faster way to play hands whose every seat plays a built-in policy, or None.

        ``names``: the distinct built-in policies (canonical order, as ``tools.policies.lineup``
        gives them).  The kernel is ``kernel(deal, keys, ids, seat_policy) -> outcome`` (jittable:
        ``deal`` from ``rollout_deal``/``known_deal``, ``seat_policy`` int32[N] the index in
        ``names`` of each seat's policy; returns the batched ``outcome`` record).  It must play
        the same deals; its decisions may draw their own randomness.  Default: None (hands are
        played through ``step``)."""
        if (provided := self._provided("rollout_kernel")) is not None:
            return provided(self, names)  # type: ignore[no-any-return]
        del names
        return None

    def summarize(self, result: Any) -> dict[str, Any]:
        """The summary of a ``RolloutResult`` (``result.summary()``).  Default: hands,
        decisions and mean rewards per seat with standard errors."""
        if (provided := self._provided("summarize")) is not None:
            return provided(self, result)  # type: ignore[no-any-return]
        from spoilfive_jax.core.stats import se

        r = result.rewards.astype(np.float64)
        return {
            "game": self.id,
            "hands": result.num_hands,
            "decisions": int(result.decisions.sum()),
            "mean_rewards": r.mean(0),
            "mean_rewards_se": se(r),
            "hands_per_s": result.num_hands / result.seconds if result.seconds else float("nan"),
        }

    def hands_won(self, result: Any) -> np.ndarray:
        """bool[H, N]: the hands of a ``RolloutResult`` each seat won (tournaments' win rate).
        Default: the seat's reward is the hand's best."""
        if (provided := self._provided("hands_won")) is not None:
            return provided(self, result)  # type: ignore[no-any-return]
        r = result.rewards
        return r == r.max(axis=1, keepdims=True)  # type: ignore[no-any-return]

    # The scorer (``score_hands``): what a hand is worth to a seat that knows its own cards.

    def check_turnup(self, hands: np.ndarray, turnup: Any) -> np.ndarray:
        """Host, for the scorer: check the card ids of query ``hands`` int[Q, 5] and the
        ``turnup`` the query seat sees (one or one per query; the game says whether there is
        one) and return the turn-ups as int32[Q].  ``ValueError`` naming the problem."""
        if (provided := self._provided("check_turnup")) is not None:
            return provided(self, hands, turnup)  # type: ignore[no-any-return]
        raise ValueError(f"{self.id} has no hand scorer")

    def known_deal(
        self, keys: Any, ids: jax.Array, hands: jax.Array, turnup: jax.Array, seat: jax.Array
    ) -> Any:
        """Jittable: deals (as ``rollout_deal``) in which seat ``seat`` int32[B] holds ``hands``
        int32[B, 5] and sees ``turnup`` int32[B]; every unseen card dealt uniformly."""
        if (provided := self._provided("known_deal")) is not None:
            return provided(self, keys, ids, hands, turnup, seat)  # type: ignore[no-any-return]
        raise ValueError(f"{self.id} has no hand scorer")

    def query_samples(
        self, outcome: dict[str, jax.Array], seat: jax.Array
    ) -> tuple[jax.Array, ...]:
        """Jittable: the per-rollout samples of the query seat from a batched ``outcome``."""
        if (provided := self._provided("query_samples")) is not None:
            return provided(self, outcome, seat)  # type: ignore[no-any-return]
        raise ValueError(f"{self.id} has no hand scorer")

    def hand_scores(self, samples: list[np.ndarray], num_rollouts: int, **options: Any) -> Any:
        """Host: the score record of the queries from ``samples`` (each [Q, R])."""
        if (provided := self._provided("hand_scores")) is not None:
            return provided(self, samples, num_rollouts, **options)  # type: ignore[no-any-return]
        raise ValueError(f"{self.id} has no hand scorer")

    def play_sessions(
        self, key: jax.Array, lineup: Any, seat_policy: np.ndarray, num: int, **options: Any
    ) -> Any:
        """Hands in sequence at one table (``sf.play_sessions``): the game's own notion of a
        session (Spoil Five: chip sessions; the family: whole games to the target)."""
        raise ValueError(f"{self.id} has no sessions")

    # The RL wrappers (``rl.pettingzoo``).

    observation_low: ClassVar[float] = -np.inf
    """The least value an observation entry can take (a bound for observation spaces)."""

    def final_info(self, state: S) -> dict[str, Any]:
        """Host: what a finished hand reports to RL wrappers (PettingZoo's ``info``)."""
        return {
            "illegal": bool(state.illegal),
            "tricks_won": np.asarray(state.tricks_won).tolist(),
        }

    def state_text(self, state: S) -> str:
        """Host: a few lines on one hand for logs (PettingZoo's ``render``): the phase, the
        current trick and who is to act (or the rewards once the hand is over)."""
        lines = [
            f"{self.id}: phase {self.phase_names[int(state.phase)]}, "
            f"tricks {np.asarray(state.tricks_won).tolist()}"
        ]
        return "\n".join(lines + self._text_tail(state))

    def _text_tail(self, state: S) -> list[str]:
        trick = getattr(state, "trick_cards", None)
        lines = []
        if trick is not None:
            cards = [self.action_str(int(c)) if c >= 0 else "--" for c in np.asarray(trick)]
            lines.append("trick: " + " ".join(cards))
        if bool(state.terminated):
            lines.append(f"hand over: rewards {np.asarray(state.rewards).tolist()}")
        else:
            lines.append(f"to act: player_{int(state.current_player)}")
        return lines

    # ---------------- analysis hooks (analysis, issue 10)
    # What the game-generic position analysis (``tools.analysis``: ``sf.analyze``) and the PIMC
    # bot (``tools.pimc``: ``sf.pimc``) ask of a game, and how the command line reads a position
    # (``spoilfive analyze``).  As with the report hooks, a game names two modules and each hook
    # calls the function of the same name there with the env first: ``infer_module`` (the
    # hidden-card reading: ``resample_hidden``, ``resample_hidden_many`` (optional), ``playout``,
    # ``FIELDS``, ``MAX_LEGAL``) and ``history_module`` (``position_from_history``,
    # ``position_env``).  A game without them cannot be analysed (NotImplementedError).

    infer_module: ClassVar[str] = ""
    """Dotted name of the game's inference module (worlds and playouts for the analysis)."""
    history_module: ClassVar[str] = ""
    """Dotted name of the game's position-text module (``position_from_history``)."""

    @classmethod
    def _analysis(cls, module: str, name: str) -> Any:
        if not module:
            raise NotImplementedError(f"{cls.__name__} has no position analysis ({name})")
        return getattr(importlib.import_module(module), name)

    def resample_hidden(self, key: jax.Array, state: S, player: Any) -> S:
        """One hand, jittable: a state drawn uniformly from the deals consistent with what
        ``player`` knows (its cards, its discards, the public record ``state.cannot_hold``)."""
        fn = self._analysis(self.infer_module, "resample_hidden")
        return fn(self, key, state, player)  # type: ignore[no-any-return]

    def resample_hidden_many(self, key: jax.Array, state: S, player: Any, count: int) -> S:
        """One hand, jittable: ``count`` independent worlds as ``resample_hidden`` draws them
        (leading axis [count]); a game may pool its rejection loop (``resample_hidden_many`` in
        its inference module), else ``resample_hidden`` runs on ``count`` split keys."""
        module = importlib.import_module(self.infer_module) if self.infer_module else None
        fn = getattr(module, "resample_hidden_many", None)
        if fn is not None:
            return fn(self, key, state, player, count)  # type: ignore[no-any-return]
        keys = jax.random.split(key, count)
        return jax.vmap(lambda k: self.resample_hidden(k, state, player))(keys)  # type: ignore[no-any-return]

    def analysis_playout(
        self, keys: jax.Array, states: S, actions: jax.Array, player: jax.Array, policy: Any
    ) -> dict[str, jax.Array]:
        """Batch: apply each of ``actions`` int32[B, L] to ``states`` [B] and play the hand out
        with ``policy`` at every seat (one key per state, shared by its L playouts); float32[B, L]
        per ``analysis_fields`` for ``player`` int32[B]."""
        fn = self._analysis(self.infer_module, "playout")
        return fn(self, keys, states, actions, player, policy)  # type: ignore[no-any-return]

    def analysis_fields(self) -> tuple[str, ...]:
        """The per-rollout values of ``analysis_playout``; the first is what the analysis's
        ``best`` maximises (e.g. ``expected_chips``, ``expected_points``)."""
        return tuple(self._analysis(self.infer_module, "FIELDS"))

    def max_legal_actions(self) -> int:
        """The most legal actions any decision of this game can have (e.g. a rob: five cards
        and PASS)."""
        return int(self._analysis(self.infer_module, "MAX_LEGAL"))

    def position_from_history(self, text: str | None = None, **fields: Any) -> S:
        """Host: the state of a position given as text (``players=5; dealer=0; turnup=7D;
        player=1; hand=...; history=...``) or as the same fields; a one-line ``ValueError``
        naming the problem for an impossible or inconsistent history."""
        if not self.history_module:
            raise NotImplementedError(f"{self.id} cannot read a position from a history")
        fn = self._analysis(self.history_module, "position_from_history")
        return fn(self, text, **fields)  # type: ignore[no-any-return]

    def position_env(self, text: str | None = None, **fields: Any) -> Env[S, R]:
        """Host: the table a position names (its ``players=`` and ``rules=`` fields, this env's
        where not given), whose ``position_from_history`` reads it; by default this env."""
        if not self.history_module:
            return self
        fn = self._analysis(self.history_module, "position_env")
        return fn(self, text, **fields)  # type: ignore[no-any-return]


# The methods call these jitted functions, so op-by-op dispatch never happens outside jit (a
# plain ``env.init(key)`` in a notebook is one compiled call); inside a user's jit/vmap they
# simply inline.  The env is static (hashable): one compile per table and rules.
@functools.partial(jax.jit, static_argnums=0)
def _jit_step(env: Env[Any, Any], state: Any, action: jax.Array) -> Any:
    return env._step(state, action)
