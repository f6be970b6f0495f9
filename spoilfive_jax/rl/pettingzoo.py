"""A PettingZoo AEC environment for one hand of Spoil Five (extra ``pettingzoo``).

For users outside JAX: agents ``player_0`` .. ``player_{N-1}`` (the seats), one episode = one
hand.  ``observe(agent)`` returns ``{"observation": float32[D], "action_mask": int8[55]}``:
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

The Forty-Five family works the same way: ``env(game="forty_five", num_players=4)`` (also
``"twenty_five"`` and ``"auction_forty_fives"``; ``rules=`` a ``FortyFiveRules``) or
``env(table=sf.FortyFive(4, rules))``.  One episode is one hand (dealt with zero game scores):
64 actions (``spoilfive_jax.games.forty_five.env.FortyFive``), the family observation (layout in
``games.forty_five.observe``; its SCORES block can be negative), and rewards the hand's
points for each seat's team on the step that ends it (``info``: ``hand_points`` per team,
``illegal``).
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from pettingzoo import AECEnv

from spoilfive_jax.games.forty_five import env as _family
from spoilfive_jax.games.forty_five import game as _family_game
from spoilfive_jax.games.forty_five.rules import FortyFiveRules
from spoilfive_jax.games.spoil_five.env import SpoilFive, action_str
from spoilfive_jax.games.spoil_five.game import PHASE_NAMES
from spoilfive_jax.games.spoil_five.rules import Rules

Table = SpoilFive | _family.FortyFive
GAMES = ("spoil_five", "forty_five", "twenty_five", "auction_forty_fives")

__all__ = ["SpoilFiveAEC", "env", "raw_env"]


def make_table(
    game: str = "spoil_five",
    num_players: int = 5,
    rules: Rules | FortyFiveRules | None = None,
) -> Table:
    """The engine behind ``env(game=..., num_players=..., rules=...)``."""
    if game not in GAMES:
        raise ValueError(f"game must be one of {GAMES}, got {game!r}")
    if game == "spoil_five" and not isinstance(rules, FortyFiveRules):
        return SpoilFive(num_players, rules)
    if rules is not None:
        if not isinstance(rules, FortyFiveRules):
            raise ValueError(f"rules for {game} must be a FortyFiveRules, got {type(rules)}")
        return _family.FortyFive(num_players, rules)
    if game == "twenty_five":
        return _family.TwentyFive(num_players)
    if game == "auction_forty_fives":
        return _family.AuctionFortyFives(num_players)
    return _family.FortyFive(num_players)


@functools.cache
def _compiled(table: Table) -> tuple[Any, Any, Any]:
    def views(state: Any) -> tuple[jax.Array, jax.Array]:
        seats = jnp.arange(table.num_players)
        return jax.vmap(table.observe, in_axes=(None, 0))(state, seats), state.legal_action_mask

    return jax.jit(table.init), jax.jit(table.step), jax.jit(views)


class SpoilFiveAEC(AECEnv):
    """One hand of Spoil Five as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "spoilfive_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        num_players: int = 5,
        rules: Rules | FortyFiveRules | None = None,
        render_mode: str | None = None,
        game: str = "spoil_five",
        table: Table | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if table is None:
            table = make_table(game, num_players, rules)
        elif not isinstance(table, (SpoilFive, _family.FortyFive)):
            raise ValueError(f"table must be a SpoilFive or a FortyFive, got {type(table)}")
        self.table = table
        self._family = isinstance(table, _family.FortyFive)
        if self._family:
            # this instance's name, e.g. "forty_five_v0" (the class keeps Spoil Five's)
            self.__dict__["metadata"] = {**type(self).metadata, "name": f"{table.id}_v0"}
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(table.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        d = self.table.observation_shape
        num_actions = self._num_actions = int(self.table.num_actions)
        low = -np.inf if self._family else 0.0  # family scores can be negative
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
        self.state: Any = None  # a Spoil Five or a family ``State``
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
        s = self.state
        if self._family:
            return {
                "illegal": bool(s.illegal),
                "hand_points": np.asarray(s.hand_points).tolist(),
                "tricks_won": np.asarray(s.tricks_won).tolist(),
            }
        return {
            "winner": int(s.winner),
            "illegal": bool(s.illegal),
            "carried_out": int(s.carried_out),
        }

    def _text(self) -> str:
        s = self.state
        if s is None:
            return "(no hand dealt: call reset)"
        if self._family:
            return self._family_text()
        lines = [
            f"phase {PHASE_NAMES[int(s.phase)]}, trump turn-up {action_str(int(s.turnup))}, "
            f"pot {int(s.pot)}, tricks {np.asarray(s.tricks_won).tolist()}",
        ]
        trick = [action_str(int(c)) if c >= 0 else "--" for c in np.asarray(s.trick_cards)]
        lines.append("trick: " + " ".join(trick))
        if bool(s.terminated):
            lines.append(f"hand over: rewards {np.asarray(s.rewards).tolist()}")
        else:
            lines.append(f"to act: player_{int(s.current_player)}")
        return "\n".join(lines)

    def _family_text(self) -> str:
        s = self.state
        up = int(s.turnup)
        lines = [
            f"{self.table.id}: phase {_family_game.PHASE_NAMES[int(s.phase)]}, "
            + (f"turn-up {_family.card_text(up)}, " if up >= 0 else "")
            + f"trump {'CDHS'[int(s.trump)] if int(s.trump) >= 0 else '-'}, "
            f"tricks {np.asarray(s.tricks_won).tolist()}",
        ]
        trick = [_family.card_text(int(c)) if c >= 0 else "--" for c in np.asarray(s.trick_cards)]
        lines.append("trick: " + " ".join(trick))
        if bool(s.terminated):
            lines.append(f"hand over: rewards {np.asarray(s.rewards).tolist()}")
        else:
            lines.append(f"to act: player_{int(s.current_player)}")
        return "\n".join(lines)


def raw_env(
    num_players: int = 5, rules: Rules | FortyFiveRules | None = None, **kwargs: Any
) -> SpoilFiveAEC:
    """The environment without PettingZoo's wrappers (``game=``/``table=``: see the module)."""
    return SpoilFiveAEC(num_players, rules, **kwargs)


def env(num_players: int = 5, rules: Rules | FortyFiveRules | None = None, **kwargs: Any) -> AECEnv:
    """The environment wrapped in PettingZoo's ``OrderEnforcingWrapper`` (the usual entry)."""
    from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(raw_env(num_players, rules, **kwargs))
