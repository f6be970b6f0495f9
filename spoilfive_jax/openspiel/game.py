"""A registered game as an OpenSpiel Python game: ``pyspiel.Game`` and ``pyspiel.State`` over the
project's env, one hand a game.

- **Chance.**  The deal is the first ``deal_length`` chance nodes (``DeckDeals``): each turns
  up the next card of the pack, uniformly among those not yet dealt (the card's id is the
  outcome); the order of the cards past them never matters, so they are not asked for.  Then
  the hand starts from that order (``DeckDeals.init_from_deck``) and every later node is a
  decision of the env's seat to act, its legal actions the env's.
- **Observations.**  The observation tensor, for any player, is the env's
  ``observe(state, player)``; the information-state tensor is the same vector (the env's view
  of what the player knows: its hand and the public record the game keeps), so the
  information state is not perfect-recall: two move orders that leave the same record share
  it.  The strings are the seat and a digest of the tensor, so equal strings mean equal views
  (searches key their nodes on them: they must be cheap); ``str(state)`` is the game's text of
  the table (``Rendering``, else the ``AgentInfo`` state text).
- **Resampling.**  ``resample_from_infostate(player, sampler)`` redraws the cards the player
  cannot see with the game's exact resampler (``Analysis.resample_hidden``), seeded from
  ``sampler``: the world keeps the player's view and legal actions.  The world's history keeps
  the original deal's chance outcomes (only the hidden cards differ).  It is a Python method:
  OpenSpiel's Python algorithms (``open_spiel.python.algorithms.ismcts``) call it.  Never give
  these games to OpenSpiel's C++ bots (``pyspiel.ISMCTSBot``, ``pyspiel.MCTSBot``, ...): with
  a Python game they crash the interpreter (a segmentation fault) instead of raising.
- **Returns** are the env's rewards summed over the hand (chips or points), in
  ``DeckDeals.reward_bounds``; the utility is general-sum (a spoilt pot carries over).

Each env step is one jitted call and one read back to the host: tens of microseconds on a
CPU, as much as OpenSpiel's own Python games spend, far from the batched kernels' rates.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from typing import Any

import jax
import numpy as np
import pyspiel

from spoilfive_jax import registry
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env


@functools.cache
def _programs(env: Env[Any, Any]) -> Any:
    """The jitted calls of one table (compiled once per table and shape)."""

    def view(state: Any) -> tuple[Any, ...]:
        return state.current_player, state.terminated, state.rewards, state.legal_action_mask

    step = jax.jit(lambda s, a: (s2 := env.step(s, a), view(s2)))
    first = jax.jit(lambda s: view(s))
    observe = jax.jit(env.observe)
    resample = None
    analysis = caps.declared(env, caps.Analysis)
    if analysis is not None:
        resample = jax.jit(lambda k, s, p: analysis.resample_hidden(env, k, s, p))
    return step, first, observe, resample


def rule_parameters(game_id: str) -> dict[str, Any]:
    """The OpenSpiel parameters of ``game_id`` and their defaults: ``players``, ``dealer`` and
    every rule option (a choice as its name, a flag as a bool, a number as an int, deal packets
    as ``"2_3"``: OpenSpiel reads a value of digits and signs as a number)."""
    env = registry.make(game_id)
    params: dict[str, Any] = {"players": env.num_players, "dealer": 0}
    shown = caps.declared(env, caps.Presentation)
    if shown is None:
        return params
    in_force = shown.rules_in_force(env)
    for option in shown.rule_options():
        if option.name == "preset":
            params["preset"] = option.choices[0]
        elif option.name in in_force:
            value = in_force[option.name]
            params[option.name] = "_".join(map(str, value)) if option.kind == "packets" else value
    return params


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


@dataclasses.dataclass(frozen=True)
class Table:
    """What the states of one game share: the env, the dealer and how the pack is dealt.
    Immutable, so a cloned state shares it (``__deepcopy__``)."""

    env: Env[Any, Any]
    dealer: int
    deals: Any  # the game's DeckDeals implementation
    deck_size: int
    deal_length: int

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self


@functools.cache
def _table(game_id: str, params: tuple[tuple[str, Any], ...]) -> Table:
    env, dealer = table(game_id, dict(params))
    deals = env.capability(caps.DeckDeals, "an OpenSpiel game")
    return Table(env, dealer, deals, deals.deck_size(env), deals.deal_length(env))


class OpenSpielGame(pyspiel.Game):  # type: ignore[misc]
    """One of the project's games at one table; made by ``pyspiel.load_game("python_<id>",
    params)`` once ``spoilfive_jax.openspiel`` is imported.  ``env`` is its env."""

    game_id = ""  # set by each registered subclass

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        t = _table(self.game_id, tuple(sorted(given.items())))
        low, high = t.deals.reward_bounds(t.env)
        info = pyspiel.GameInfo(
            num_distinct_actions=t.env.num_actions,
            max_chance_outcomes=t.deck_size,
            num_players=t.env.num_players,
            min_utility=low,
            max_utility=high,
            utility_sum=None,
            max_game_length=t.deal_length + t.env.max_decisions,
        )
        super().__init__(game_type(self.game_id), info, {**rule_parameters(self.game_id), **given})

    @property
    def table(self) -> Table:
        """(Read from the game's parameters, so that a copy OpenSpiel rebuilds has it too.)"""
        return _table(self.game_id, tuple(sorted(self.get_parameters().items())))

    @property
    def env(self) -> Env[Any, Any]:
        return self.table.env

    def new_initial_state(self) -> OpenSpielState:
        return OpenSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        return Observer(self.table)


class OpenSpielState(pyspiel.State):  # type: ignore[misc]
    """A hand: the deal's chance nodes, then the env's decisions.  ``env_state`` is the env's
    ``State`` once the deal is complete (None before)."""

    def __init__(self, game: OpenSpielGame) -> None:
        super().__init__(game)
        self._table = game.table  # (not the game itself: OpenSpiel rebuilds a copy of it bare)
        self.env_state: Any = None
        self._dealt: list[int] = []
        self._player, self._over = pyspiel.PlayerId.CHANCE, False
        self._legal: list[int] = []
        self._returns = np.zeros(game.env.num_players)

    # ---------------------------------------------------------------- the OpenSpiel surface

    def current_player(self) -> int:
        if self._over:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self._player)

    def _legal_actions(self, player: int) -> list[int]:
        return list(self._legal) if player == self._player else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        rest = sorted(set(range(self._table.deck_size)) - set(self._dealt))
        return [(c, 1.0 / len(rest)) for c in rest]

    def _apply_action(self, action: int) -> None:
        """A chance card, or the seat's decision; ``ValueError`` for a card already dealt or
        an action that is not legal (OpenSpiel does not check, and the env would end the hand
        with its illegal-action penalty)."""
        if self.env_state is None:
            if not 0 <= int(action) < self._table.deck_size or int(action) in self._dealt:
                raise ValueError(f"chance outcome {action} is not a card left in the pack")
            self._dealt.append(int(action))
            if len(self._dealt) == self._table.deal_length:
                self._start()
            return
        if int(action) not in self._legal:
            raise ValueError(f"action {action} is not legal for seat {self._player}")
        step = _programs(self._table.env)[0]
        self.env_state, view = step(self.env_state, np.int32(action))
        self._read(view)

    def _action_to_string(self, player: int, action: int) -> str:
        text = self._table.env.action_str(action)
        return f"deal {text}" if player == pyspiel.PlayerId.CHANCE else text

    def is_terminal(self) -> bool:
        return self._over

    def returns(self) -> list[float]:
        return [float(r) for r in self._returns]

    def __str__(self) -> str:
        if self.env_state is None:
            return "dealing: " + " ".join(self._table.env.action_str(c) for c in self._dealt)
        return table_text(self._table.env, self.env_state, None)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> OpenSpielState:
        """A copy whose hidden cards (those ``player_id`` cannot see) are redrawn uniformly
        among the deals consistent with its view, seeded by ``probability_sampler()``."""
        resample = _programs(self._table.env)[3]
        if resample is None:
            raise ValueError(f"{self._table.env.id} has no resampler (the Analysis capability)")
        if self.env_state is None:
            raise ValueError("resample_from_infostate during the deal: nothing is hidden yet")
        seed = int(float(probability_sampler()) * 2**31)
        world = resample(jax.random.PRNGKey(seed), self.env_state, np.int32(player_id))
        copy = self.clone()
        copy.env_state = world
        # the seat to act is public, its legal actions are not (unless it is ``player_id``)
        mask = jax.device_get(_programs(self._table.env)[1](world)[3])
        copy._legal = np.flatnonzero(np.asarray(mask)).tolist()
        return copy

    # ---------------------------------------------------------------- helpers

    def _start(self) -> None:
        g = self._table
        rest = sorted(set(range(g.deck_size)) - set(self._dealt))
        deck = np.array(self._dealt + rest, np.int32)
        self.env_state = g.deals.init_from_deck(g.env, deck, g.dealer)
        self._read(_programs(g.env)[1](self.env_state))

    def _read(self, view: Any) -> None:
        player, over, rewards, mask = jax.device_get(view)
        self._returns += np.asarray(rewards, np.float64)
        self._over = bool(over)
        self._player = int(pyspiel.PlayerId.TERMINAL) if self._over else int(player)
        self._legal = np.flatnonzero(np.asarray(mask)).tolist()


class Observer:
    """OpenSpiel's Python observer: ``tensor`` (and ``dict['observation']``) is the env's
    ``observe(state, player)``; before the deal is complete it is all zeros."""

    def __init__(self, game: Table) -> None:
        self._table = game
        size = int(np.prod(game.env.observation_shape))
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: OpenSpielState, player: int) -> None:
        if state.env_state is None:
            self.tensor.fill(0.0)
            return
        observe = _programs(self._table.env)[2]
        self.tensor[:] = np.asarray(observe(state.env_state, np.int32(player))).reshape(-1)

    def string_from(self, state: OpenSpielState, player: int) -> str:
        """``seat P: view DIGEST``, a digest of the tensor (searches key their nodes on it, so
        it must be cheap; ``str(state)`` is the table for people)."""
        if state.env_state is None:
            return f"seat {player}: the deal, {len(state.history())} cards out"
        self.set_from(state, player)
        return f"seat {player}: view {hashlib.sha1(self.tensor.tobytes()).hexdigest()[:20]}"


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
def game_type(game_id: str) -> pyspiel.GameType:
    """OpenSpiel's description of ``python_<game_id>``."""
    env = registry.make(game_id)
    sizes = _table_sizes(game_id)
    return pyspiel.GameType(
        short_name=f"python_{game_id}",
        long_name=f"Python {env.id.replace('_', ' ').title()} (spoilfive_jax)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
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
