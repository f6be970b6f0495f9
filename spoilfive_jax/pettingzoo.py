"""A PettingZoo AEC environment for one hand of Spoil Five (extra ``pettingzoo``).

For users outside JAX: agents ``player_0`` .. ``player_{N-1}`` (the seats), one episode = one
hand.  ``observe(agent)`` returns ``{"observation": float32[D], "action_mask": int8[55]}``:
the seat's imperfect-information view (``spoilfive_jax.observe``; layout in
``spoilfive_jax._src.observe``) and its legal actions (all zeros when it is not that agent's
turn).  Actions are the engine's: 0..51 play (or, robbing, discard) that card, 52 PASS,
53 JINK, 54 CLAIM.  Rewards are the hand's net chips, given to every seat on the step that ends
the hand.  An illegal action ends the hand as in ``SpoilFive.step`` (the offender pays
``rules.illegal_penalty``).

    from spoilfive_jax.pettingzoo import env
    e = env(num_players=4)
    e.reset(seed=0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Each hand's dealer is seat ``options["dealer"]`` if given to ``reset``, else drawn at random.
The engine runs jitted on the default JAX device, one decision per call.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from pettingzoo import AECEnv

from spoilfive_jax._src.env import SpoilFive, action_str
from spoilfive_jax._src.game import NUM_ACTIONS, PHASE_NAMES, State
from spoilfive_jax._src.rules import Rules

__all__ = ["SpoilFiveAEC", "env", "raw_env"]


@functools.cache
def _compiled(table: SpoilFive) -> tuple[Any, Any, Any]:
    def views(state: State) -> tuple[jax.Array, jax.Array]:
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
        self, num_players: int = 5, rules: Rules | None = None, render_mode: str | None = None
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.table = SpoilFive(num_players, rules)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        d = self.table.observation_shape
        # One space object per agent (PettingZoo checks identity and seeds them separately).
        self.observation_spaces = {
            a: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(0.0, np.inf, d, np.float32),
                    "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents
        }
        self._init, self._step, self._views = _compiled(self.table)
        self._rng = np.random.default_rng()
        self.state: State | None = None
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
        mask = self._mask if to_act else np.zeros(NUM_ACTIONS, np.int8)
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
                self.infos[a] = {
                    "winner": int(self.state.winner),
                    "illegal": bool(self.state.illegal),
                    "carried_out": int(self.state.carried_out),
                }
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

    def _text(self) -> str:
        s = self.state
        if s is None:
            return "(no hand dealt: call reset)"
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


def raw_env(num_players: int = 5, rules: Rules | None = None, **kwargs: Any) -> SpoilFiveAEC:
    """The environment without PettingZoo's wrappers."""
    return SpoilFiveAEC(num_players, rules, **kwargs)


def env(num_players: int = 5, rules: Rules | None = None, **kwargs: Any) -> AECEnv:
    """The environment wrapped in PettingZoo's ``OrderEnforcingWrapper`` (the usual entry)."""
    from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(raw_env(num_players, rules, **kwargs))
