"""A PettingZoo AEC environment for one hand of any registered game (extra ``pettingzoo``).

For users outside JAX: agents ``player_0`` .. ``player_{N-1}`` (the seats), one episode = one
hand.  ``observe(agent)`` returns ``{"observation": float32[D], "action_mask": int8[A]}``
(A = ``num_actions``: 55 for Spoil Five, 64 for the Forty-Five family):
the seat's imperfect-information view (``spoilfive_jax.observe``; layout in
``games.spoil_five.observe``) and its legal actions (all zeros when it is not that agent's
turn).  Actions are the engine's: 0..51 play (or, robbing, discard) that card, 52 PASS,
53 JINK, 54 CLAIM.  Rewards are the hand's net chips, given to every seat on the step that ends
the hand.  An illegal action ends the hand as in ``SpoilFive.step`` (the offender pays
``rules.illegal_penalty``).

    from spoilfive_jax.rl.pettingzoo import env
    e = env(num_players=4)
    e.reset(seed=0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Each hand's dealer is seat ``options["dealer"]`` if given to ``reset``, else drawn at random.
The engine runs jitted on the default JAX device, one decision per call.

Every game of ``sf.available_games()`` works the same way through the game interface
(``core.env.Env``): ``env(game="forty_five", num_players=4)`` (also ``"twenty_five"`` and
``"auction_forty_fives"``; ``rules=`` a ``FortyFiveRules``) or ``env(table=sf.make(...))``; the
environment's ``metadata["name"]`` is ``f"{game_id}_v0"``, ``info`` at the end of a hand is the
game's ``AgentInfo.final_info`` and the text view its ``AgentInfo.state_text``.  For the family one
episode is one hand (dealt with zero game scores): 64 actions (``FortyFive``), the family
observation (layout in ``games.forty_five.observe``; its SCORES block can be negative), and
rewards the hand's points for each seat's team on the step that ends it (``info``:
``hand_points`` per team, ``illegal``).
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from pettingzoo import AECEnv

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, R, S
from spoilfive_jax.registry import available_games, env_class, make

GAMES = available_games()

__all__ = ["CardGameAEC", "SpoilFiveAEC", "env", "raw_env"]


def make_table(
    game: str = "spoil_five",
    num_players: int | None = None,
    rules: Any = None,
) -> Env[Any, Any]:
    """The engine behind ``env(game=..., num_players=..., rules=...)``: ``sf.make(game,
    num_players)``, or with ``rules`` (a rules object) the game those rules belong to;
    ``num_players`` None: the game's own table (``sf.make``'s: 5 for Spoil Five, 4 for the
    family)."""
    if game not in GAMES:
        raise ValueError(f"game must be one of {GAMES}, got {game!r}")
    if rules is None:
        return make(game, num_players)
    if isinstance(rules, env_class(game).rules_type):
        return env_class(game)(num_players, rules)
    for other in GAMES:
        if isinstance(rules, env_class(other).rules_type):
            return env_class(other)(num_players, rules)
    raise ValueError(f"rules for {game} must be its rules object, got {type(rules).__name__}")


@functools.cache
def _compiled(table: Env[S, R]) -> tuple[Any, Any, Any]:
    def views(state: Any) -> tuple[jax.Array, jax.Array]:
        seats = jnp.arange(table.num_players)
        return jax.vmap(table.observe, in_axes=(None, 0))(state, seats), state.legal_action_mask

    return jax.jit(table.init), jax.jit(table.step), jax.jit(views)


class CardGameAEC(AECEnv):
    """One hand of any registered game as a PettingZoo AEC environment (see the module
    docstring); ``SpoilFiveAEC`` is the same class under its first name."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "spoil_five_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        num_players: int | None = None,
        rules: Any = None,
        render_mode: str | None = None,
        game: str = "spoil_five",
        table: Env[Any, Any] | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if table is None:
            table = make_table(game, num_players, rules)
        elif not isinstance(table, Env):
            raise ValueError(f"table must be a game environment (spoilfive_jax.Env), got {table!r}")
        self.table = table
        # this instance's name, from the game's id: "spoil_five_v0", "forty_five_v0", ...
        self.__dict__["metadata"] = {**type(self).metadata, "name": f"{table.id}_v0"}
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(table.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        d = self.table.observation_shape
        num_actions = self._num_actions = int(self.table.num_actions)
        low = self.table.capability(caps.AgentInfo).observation_low(self.table)
        # One space object per agent (PettingZoo checks identity and seeds them separately).
        self.observation_spaces = {
            a: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(low, np.inf, d, np.float32),
                    "action_mask": gymnasium.spaces.Box(0, 1, (num_actions,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(num_actions) for a in self.possible_agents
        }
        self._init, self._step, self._views = _compiled(self.table)
        self._rng = np.random.default_rng()
        self.state: Any = None  # the game's ``State``
        self._obs: np.ndarray | None = None
        self._mask: np.ndarray | None = None

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        n = self.table.num_players
        dealer = (options or {}).get("dealer")
        dealer = int(self._rng.integers(n)) if dealer is None else int(dealer)
        key = jax.random.PRNGKey(int(self._rng.integers(2**31)))
        self.state = self._init(key, dealer)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._refresh()
        self.agent_selection = self.possible_agents[int(self.state.current_player)]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self._obs is not None and self._mask is not None and self.state is not None
        seat = self._seat[agent]
        to_act = int(self.state.current_player) == seat
        mask = self._mask if to_act else np.zeros(self._num_actions, np.int8)
        return {"observation": self._obs[seat].copy(), "action_mask": mask.copy()}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.state is not None
        self._cumulative_rewards[agent] = 0.0
        self.state = self._step(self.state, jnp.int32(int(action)))
        self._refresh()
        self._clear_rewards()
        if bool(self.state.terminated):
            rewards = np.asarray(self.state.rewards)
            for a in self.agents:
                self.rewards[a] = float(rewards[self._seat[a]])
                self.terminations[a] = True
                self.infos[a] = self._final_info()
            # every agent now leaves in seat order, starting after the one that just acted
            self.agent_selection = self.agents[(self.agents.index(agent) + 1) % len(self.agents)]
        else:
            self.agent_selection = self.possible_agents[int(self.state.current_player)]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ helpers

    def _refresh(self) -> None:
        assert self.state is not None
        obs, mask = self._views(self.state)
        self._obs = np.asarray(obs)
        self._mask = np.asarray(mask).astype(np.int8)

    def _final_info(self) -> dict[str, Any]:
        return self.table.capability(caps.AgentInfo).final_info(self.table, self.state)

    def _text(self) -> str:
        if self.state is None:
            return "(no hand dealt: call reset)"
        return self.table.capability(caps.AgentInfo).state_text(self.table, self.state)


SpoilFiveAEC = CardGameAEC  # the first name of the class, kept


def raw_env(num_players: int | None = None, rules: Any = None, **kwargs: Any) -> CardGameAEC:
    """The environment without PettingZoo's wrappers (``game=``/``table=``: see the module);
    ``num_players`` None: the game's own table, as ``sf.make`` and the command line."""
    return CardGameAEC(num_players, rules, **kwargs)


def env(num_players: int | None = None, rules: Any = None, **kwargs: Any) -> AECEnv:
    """The environment wrapped in PettingZoo's ``OrderEnforcingWrapper`` (the usual entry)."""
    from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(raw_env(num_players, rules, **kwargs))
