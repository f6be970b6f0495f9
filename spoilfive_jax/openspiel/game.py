"""A registered game as an OpenSpiel Python game: ``pyspiel.Game`` and ``pyspiel.State`` over the
project's env, one hand a game.

- **Chance.**  The deal is the first ``deal_length`` chance nodes (``DeckDeals``): each turns
  up the next card of the pack, uniformly among those not yet dealt (the card's id is the
  outcome); the order of the cards past them never matters, so they are not asked for.  Then
  the hand starts from that order (``DeckDeals.init_from_deck``) and every later node is a
  decision of the env's seat to act, its legal actions the env's.
- **Observations.**  Every kind OpenSpiel asks for (``make_observation`` with an
  ``IIGObservationType``, ``game.make_py_observer``; ``observer.kind_of``): the information
  state is the env's perfect-recall ``information_state`` and its readable string; the
  default observation the env's ``observe(state, player)`` (the seat's view now), its string
  the seat and a digest of the tensor; public-only, private-only, and every seat's
  information, from ``observe_public``, ``observe_private`` and ``observe_full``.  Every node
  holds what they read (``OpenSpielState.observation_array``, ``information_state_array``,
  ``information_state_text``, ``cached``).  ``str(state)`` is the game's text of the table
  (``Rendering``, else the ``AgentInfo`` state text).
- **Resampling.**  ``resample_from_infostate(player, sampler)`` redraws the cards the player
  cannot see with the game's exact resampler (``Analysis.resample_hidden``), seeded from
  ``sampler``: a world consistent with every public event, each equally likely, that keeps the
  player's information state.  It comes back as a state whose ``history()`` is the world's: its
  deal (``DeckDeals.deck_of``) as the chance outcomes, then its decisions (its own private
  ones), so replaying the history gives the world again.  It is a Python method:
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

**Speed.**  Every node of a hand lives on the host (``host``): the packed env state with the
seat to act, the rewards and the legal actions, written by ONE jitted call a decision; every
seat's observation and information state by one more call when first asked, or in that same
call where the parent's were asked (``host.Programs.step_views``); texts once a node.
A state is its table and its node, both shared by its clones, so a clone copies two references.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import jax
import numpy as np
import pyspiel

from spoilfive_jax import registry
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core import record
from spoilfive_jax.core.env import Env, R, S
from spoilfive_jax.openspiel.host import (
    Deal,
    Hand,
    Programs,
    knows,
    programs_of,
)
from spoilfive_jax.openspiel.observer import Observer

T = TypeVar("T")

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


def utility_sum(env: Env[S, R]) -> float | None:
    """The one value every hand's returns sum to at this table and rules, or None when they
    may sum to different values (a general-sum game): what the game's ``DeckDeals`` says (an
    optional ``utility_sum(env)``: the Forty-Five family's), else None.  General-sum: Spoil
    Five (a spoilt pot carries over), Auction (a failed bid), Oh Hell (the bid bonus)."""
    deals = env.capability(caps.DeckDeals, "an OpenSpiel game")
    declared = getattr(deals, "utility_sum", None)
    if callable(declared):
        value = declared(env)
        return None if value is None else float(value)
    return None


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
    programs: Programs
    root: Deal
    action_text: tuple[str, ...]
    chance_text: tuple[str, ...]
    card_text: tuple[str, ...]

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_table, (self.game_id, self.params))

    def start(self, dealt: tuple[int, ...]) -> Hand:
        """The first node of the hand dealt so (the rest of the pack in card order)."""
        seen = set(dealt)
        deck = np.array([*dealt, *(c for c in range(self.deck_size) if c not in seen)], np.int32)
        p, none = self.programs, np.zeros(self.env.num_players)
        if p.deal is not None:  # one compiled call
            return Hand(self, np.asarray(p.deal(deck, self.dealer)), none)
        state = self.deals.init_from_deck(self.env, deck, self.dealer)
        if jax.tree.structure(state) != p.layout.treedef:
            raise ValueError(
                f"{self.env.id}: DeckDeals.init_from_deck gave a state shaped unlike env.init's"
            )
        return Hand(self, np.asarray(p.start(state)), none)

    def child(self, node: Deal | Hand, action: int) -> Deal | Hand:
        """The node after ``action`` (the last one taken from ``node`` is remembered);
        ``ValueError`` for a card already dealt or an action that is not legal."""
        last = node.child
        if last is not None and last[0] == action:
            return last[1]
        new: Deal | Hand
        if isinstance(node, Deal):
            if not 0 <= action < self.deck_size or action in node.dealt:
                raise ValueError(f"chance outcome {action} is not a card left in the pack")
            dealt = (*node.dealt, action)
            new = self.start(dealt) if len(dealt) == self.deal_length else Deal(dealt)
        else:
            if action not in node.legal:
                raise ValueError(f"action {action} is not legal for seat {node.player}")
            new = node.stepped(action)
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
        programs_of(env),
        Deal(()),
        tuple(env.action_str(a) for a in range(env.num_actions)),
        tuple(f"deal {c}" for c in cards),
        cards,
    )


def _params_key(params: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(params.items()))


def register(game_id: str) -> str:
    """Register ``python_<game_id>`` with OpenSpiel (again: a no-op) and return its name."""
    name = f"python_{game_id}"
    if name in pyspiel.registered_names():
        return name
    env_class = registry.env_class(game_id)
    if caps.DeckDeals not in env_class.capabilities:
        raise ValueError(
            f"{game_id} does not declare the DeckDeals capability: OpenSpiel's chance nodes "
            "deal the pack card by card from it"
        )
    cls = type(f"{env_class.__name__}OpenSpielGame", (OpenSpielGame,), {"game_id": game_id})
    pyspiel.register_game(game_type(game_id), cls)
    return name


def load(game_id: str, params: dict[str, Any]) -> pyspiel.Game:
    """``python_<game_id>`` with ``params``, registered first if need be (what an unpickled
    game calls, in a process that may not have imported this package)."""
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
        """The observer of the kind ``iig_obs_type`` asks for (``observer.kind_of``)."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        return Observer(self.env, iig_obs_type)


class OpenSpielState(pyspiel.State):  # type: ignore[misc]
    """A hand: the deal's chance nodes, then the env's decisions.  ``env_state`` is the env's
    ``State`` once the deal is complete (numpy arrays; None before)."""

    def __init__(self, game: OpenSpielGame) -> None:
        super().__init__(game)
        # (the table, not the game itself: OpenSpiel may hand back a bare copy of the game)
        self._table = game.table
        self._node: Deal | Hand = self._table.root

    @property
    def env_state(self) -> Any:
        node = self._node
        return node.env_state if isinstance(node, Hand) else None

    # ---------------------------------------------------------------- the OpenSpiel surface

    def current_player(self) -> int:
        node = self._node
        if isinstance(node, Deal):
            return int(pyspiel.PlayerId.CHANCE)
        return int(pyspiel.PlayerId.TERMINAL) if node.over else node.player

    def _legal_actions(self, player: int) -> list[int]:
        node = self._node
        if isinstance(node, Deal) or player != node.player:
            return []
        return list(node.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        node = self._node
        return node.outcomes(self._table.deck_size) if isinstance(node, Deal) else []

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
        return isinstance(node, Hand) and node.over

    def returns(self) -> list[float]:
        node = self._node
        if isinstance(node, Deal):
            return [0.0] * self._table.env.num_players
        return node.returns.tolist()  # type: ignore[no-any-return]

    def __str__(self) -> str:
        node, t = self._node, self._table
        if isinstance(node, Deal):
            return node.text(t.card_text)
        return node.text

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> OpenSpielState:
        """A copy whose hidden cards (those ``player_id`` cannot see) are redrawn uniformly
        among the deals consistent with its view, seeded by ``probability_sampler()``."""
        t, node = self._table, self._node
        resample = t.programs.resample
        if resample is None:
            raise ValueError(f"{t.env.id} has no resampler (the Analysis capability)")
        if isinstance(node, Deal):
            raise ValueError("resample_from_infostate during the deal: nothing is hidden yet")
        self._check_player(player_id)
        seed = int(float(probability_sampler()) * 2**31)
        out = resample(np.int32(seed), node.flat, np.int32(player_id))
        world = Hand(t, np.asarray(out), node.returns).env_state
        return self._replayed(world)

    def _replayed(self, world: Any) -> OpenSpielState:
        """A new state whose history is ``world``'s: its deal (``DeckDeals.deck_of``) as the
        chance outcomes, then every decision of its record (the world's own private ones)."""
        t = self._table
        copy = OpenSpielState(self.get_game())
        deck = t.deals.deck_of(t.env, world)
        for card in deck[: t.deal_length]:
            copy.apply_action(int(card))
        for action in record.actions(np.asarray(world.moves)).tolist():
            if action < 0:
                break
            copy.apply_action(int(action))
        return copy

    # ---------------------------------------------------------------- the host cache

    def observation_array(self, player: int) -> np.ndarray | None:
        """float32[D]: the env's ``observe(env_state, player)``, read from the node (a
        read-only view); None during the deal."""
        self._check_player(player)
        node = self._node
        return None if isinstance(node, Deal) else node.views()[0][player]

    def information_state_array(self, player: int) -> np.ndarray | None:
        """float32[I]: the env's perfect-recall ``information_state(env_state, player)``, read
        from the node (a read-only view); None during the deal or where the game does not say
        what its seats know (``host.knows``)."""
        self._check_player(player)
        node = self._node
        if isinstance(node, Deal):
            return None
        information = node.views()[1]
        return information[player] if information.size else None

    def information_state_text(self, player: int) -> str | None:
        """The env's ``information_state_string`` (made once a node); None during the deal or
        where the env has none."""
        self._check_player(player)
        node = self._node
        return None if isinstance(node, Deal) else node.information_text(player)

    def cached(self, key: Hashable, make: Callable[[Any], T]) -> T | None:
        """``make(env_state)`` made once for this node and shared by every state at it (its
        clones): an observer's query asked again at a node costs a dict lookup.  ``key`` names
        what ``make`` makes (the same key, the same thing); None during the deal."""
        node = self._node
        return None if isinstance(node, Deal) else node.memo(key, make)  # type: ignore[no-any-return]

    def _check_player(self, player: int) -> None:
        n = self._table.env.num_players
        if not 0 <= int(player) < n:
            raise ValueError(f"player must be a seat 0..{n - 1}, got {player}")


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
def game_type(game_id: str, env: Env[S, R] | None = None) -> pyspiel.GameType:
    """OpenSpiel's description of ``python_<game_id>`` (at the table of ``env``: constant-sum
    where ``utility_sum`` says so; the default table without it)."""
    env = registry.make(game_id) if env is None else env
    sizes = _table_sizes(game_id)
    constant = utility_sum(env) is not None
    has_information = knows(env)  # (its information states)
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
        provides_information_state_string=has_information,
        provides_information_state_tensor=has_information,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=rule_parameters(game_id),
    )
