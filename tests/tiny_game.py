"""High Card: the smallest game the interface takes, written on the core ``Env`` (no capability
of its own but ``Knowledge``, what its seats know), as a new user's first game would be.  For
the tests of what a game gets for free (the command line's plain presentation, ``api_test``'s
contract, the core's defaults).  ``BareHighCard`` writes only what every game must (``id``,
``init``, ``_apply``, ``max_decisions``, ``observe``; its ``_settle`` derives the legal set)
and takes every default; ``HighCard`` adds its own action text and policies.

Each of N seats is dealt two of the cards 0..2N-1; in turn from the dealer's left each plays one
of its two; the highest card played takes the one trick and scores 1 (the others 0).  Actions
are the card ids, ``num_actions`` = 2N, and ``action_str`` knows only those (it raises an
``IndexError`` for any other id, as a hurried author's would).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp

from spoilfive_jax.core import bits, record
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.env import Env, checked_deal
from spoilfive_jax.core.validate import as_key

PLAY, DONE = 0, 1


@dataclasses.dataclass(frozen=True)
class HighCardRules:
    """No options."""


@dataclasses.dataclass(frozen=True)
class State:
    hands: jax.Array  # int32[N, 2]: each seat's cards, -1 once played
    played: jax.Array  # int32[N]: the card each seat played, -1 before
    dealer: jax.Array  # int32[]
    current_player: jax.Array  # int32[]: -1 once over
    phase: jax.Array  # int32[]
    terminated: jax.Array  # bool[]
    truncated: jax.Array  # bool[]
    illegal: jax.Array  # bool[]
    rewards: jax.Array  # float32[N]
    tricks_won: jax.Array  # int32[N]
    legal_set: Bits  # the legal actions (all once over)
    _step_count: jax.Array  # int32[]
    moves: jax.Array  # int32[N]: the public record (``core.record``), written by the core step

    @property
    def legal_action_mask(self) -> jax.Array:
        return bits.to_bool(self.legal_set, 2 * self.hands.shape[-2])

    def replace(self, **changes: Any) -> State:
        return dataclasses.replace(self, **changes)


jax.tree_util.register_dataclass(
    State, data_fields=[f.name for f in dataclasses.fields(State)], meta_fields=[]
)

NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


class Knowledge:
    """What a seat knows (``core.knowledge.Knowledge``, as an object): the dealer, its two
    cards, and the record (every action public)."""

    def private_card_sets(self, env: Any) -> tuple[str, ...]:
        return ("dealt",)

    def public_start(self, env: Any, state: State) -> jax.Array:
        return state.dealer[None]

    def public_start_fields(self, env: Any) -> tuple[tuple[str, str], ...]:
        return (("dealer", "seat"),)

    def private_cards(self, env: Any, state: State, player: jax.Array) -> Bits:
        mine = jnp.concatenate([state.hands[player], state.played[player][None]])
        dealt = bits.from_positions(jnp.where(mine >= 0, mine, -1))
        return Bits(dealt.lo[None], dealt.hi[None])

    def private_action(self, env: Any, state: State, action: jax.Array) -> jax.Array:
        return jnp.bool_(False)

    def dealt_state(self, env: Any, state: State) -> State:
        n = env.num_players
        hands = jnp.sort(jnp.concatenate([state.hands, state.played[:, None]], 1), 1)[:, 1:]
        first = (state.dealer + 1) % n
        return env._settle(
            state.replace(
                hands=hands,
                played=jnp.full(n, -1, jnp.int32),
                current_player=first,
                phase=jnp.int32(PLAY),
                terminated=jnp.bool_(False),
                illegal=jnp.bool_(False),
                rewards=jnp.zeros(n, jnp.float32),
                tricks_won=jnp.zeros(n, jnp.int32),
                _step_count=jnp.int32(0),
                moves=record.empty(n),
            )
        )


class BareHighCard(Env[State, HighCardRules]):
    """Only the five hooks every game must write (and ``_settle``, where its legal set is
    derived): the illegal action's end, the action text and the built-in ``"random"`` are the
    core's defaults."""

    rules_type = HighCardRules
    default_num_players = 3
    phase_names = ("play", "done")
    capabilities: ClassVar[Mapping[type, object]] = {
        **Env.capabilities,
        caps.Knowledge: Knowledge(),
    }

    @property
    def id(self) -> str:
        return "bare_high_card"

    @property
    def num_actions(self) -> int:  # type: ignore[override]
        return 2 * self.num_players

    def init(self, key: jax.Array | int, dealer: Any = 0) -> State:
        key, n = as_key(key), self.num_players

        def deal(d: Any) -> State:
            cards = jax.random.permutation(key, 2 * n).astype(jnp.int32).reshape(n, 2)
            d = jnp.asarray(d, jnp.int32)
            first = (d + 1) % n
            return self._settle(
                State(
                    hands=cards,
                    played=jnp.full(n, -1, jnp.int32),
                    dealer=d,
                    current_player=first,
                    phase=jnp.int32(PLAY),
                    terminated=jnp.bool_(False),
                    truncated=jnp.bool_(False),
                    illegal=jnp.bool_(False),
                    rewards=jnp.zeros(n, jnp.float32),
                    tricks_won=jnp.zeros(n, jnp.int32),
                    legal_set=bits.const(()),
                    _step_count=jnp.int32(0),
                    moves=record.empty(n),
                )
            )

        return checked_deal(self, dealer, deal)

    def _apply(self, state: State, action: jax.Array) -> State:
        n, p = self.num_players, state.current_player
        hands = state.hands.at[p].set(jnp.where(state.hands[p] == action, -1, state.hands[p]))
        played = state.played.at[p].set(action)
        over = (played >= 0).all()
        best = jnp.argmax(played)
        won = jnp.where(over, (jnp.arange(n) == best).astype(jnp.int32), 0)
        return state.replace(
            hands=hands,
            played=played,
            current_player=jnp.where(over, -1, (p + 1) % n),
            phase=jnp.where(over, DONE, PLAY),
            terminated=over,
            rewards=won.astype(jnp.float32),
            tricks_won=state.tricks_won + won,
            _step_count=state._step_count + 1,
        )

    def _settle(self, state: State) -> State:
        p = jnp.maximum(state.current_player, 0)
        mine = (
            jnp.zeros(2 * self.num_players, bool)
            .at[jnp.maximum(state.hands[p], 0)]
            .max(state.hands[p] >= 0)  # (max: a played card's -1 also lands on card 0)
        )
        every = jnp.ones(2 * self.num_players, bool)
        return state.replace(legal_set=bits.from_bool(jnp.where(state.terminated, every, mine)))

    @property
    def max_decisions(self) -> int:
        return self.num_players

    def observe(self, state: State, player: Any) -> jax.Array:
        m = 2 * self.num_players
        own = (
            jnp.zeros(m)
            .at[jnp.maximum(state.hands[player], 0)]
            .max((state.hands[player] >= 0).astype(jnp.float32))
        )
        seen = (
            jnp.zeros(m)
            .at[jnp.maximum(state.played, 0)]
            .max((state.played >= 0).astype(jnp.float32))
        )
        return jnp.concatenate([own, seen]).astype(jnp.float32)


class HighCard(BareHighCard):
    """High Card with its own action text and a second built-in policy."""

    @property
    def id(self) -> str:
        return "high_card"

    def action_str(self, action: Any) -> str:
        return NAMES[: self.num_actions][int(action)]  # (an IndexError outside 0..2N-1)

    @property
    def policy_names(self) -> tuple[str, ...]:
        return ("random", "highest")

    def builtin_policy(self, name: str) -> Any:
        def random(key: jax.Array, state: State, player: jax.Array) -> jax.Array:
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            return jax.random.categorical(key, logits).astype(jnp.int32)

        def highest(key: jax.Array, state: State, player: jax.Array) -> jax.Array:
            return jnp.max(state.hands[player]).astype(jnp.int32)

        if name not in self.policy_names:
            raise ValueError(f"unknown policy {name!r} for high_card")
        return {"random": random, "highest": highest}[name]
