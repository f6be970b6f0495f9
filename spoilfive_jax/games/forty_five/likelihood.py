"""How likely a world makes the other seats' plays: inference for the family's search bots.

``play_log_likelihood(env, worlds, player, model)`` is the ``Inference`` capability.  A world
is a state the analysis's resampler drew (``infer.resample_hidden_many``): the true public
record (``trick_plays``: who played which card to which trick) with one consistent deal of
the unseen cards.  Each world is wound back to the first lead of the hand (``play_start``:
every seat's hand is its cards now plus the cards it has played) and the recorded plays are
replayed through ``game.apply_action``.  At each play by a seat other than ``player`` (its
partner included: a partner's hand is hidden too) the world is charged the log of
``model(state, seat)[card]``: the probability that the modelled player, holding that world's
cards, plays the card it played (``tools.analysis.play_model`` builds the models: a softened
built-in policy or a trained agent's distribution).

``trained_model(env)`` is the capability's other member: the agent the package ships for the
table (``agent.shipped_agent``), which ``sf.best_policy`` weighs its worlds by.

The decisions before the play (robbing, the joker, bids, trump, the Auction exchange, a jink)
are not weighed: only the card play is.  A world in which a recorded play is illegal (which an
exact resampler never draws) scores ``IMPOSSIBLE``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax.games.forty_five.agent as family_agent
import spoilfive_jax.games.forty_five.game as game
from spoilfive_jax.core import bits, tricks
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.games.forty_five.rules import FortyFiveRules
from spoilfive_jax.games.forty_five.state import NUM_TRICKS, State

IMPOSSIBLE = -1e9  # the log-likelihood of a world that makes a recorded play illegal (or one
#   the model never makes)

Model = Callable[[State, jax.Array], jax.Array]
"""``model(state, seat) -> float32[NUM_ACTIONS]``: the chance of each action (jittable)."""


def plays_made(state: State) -> jax.Array:
    """int32[]: cards played to tricks so far (the entries of ``trick_plays``)."""
    return (state.trick_plays >= 0).sum().astype(jnp.int32)


def play_start(state: State, rules: FortyFiveRules) -> State:
    """``state`` (a hand in its play, hidden cards and all) wound back to the first lead: each
    seat holds its cards now plus those it has played, and the play's record is empty.  The
    rest of the state (trump, the rob, bids, discards, the scores) is as it was then."""
    n = state.tricks_won.shape[0]
    i32 = jnp.int32
    by_seat = jax.vmap(bits.from_positions)(state.trick_plays.astype(i32).T)  # [N]
    if rules.auction:
        first = tricks.next_seat(state.bidder, n)
    else:
        first = tricks.next_seat(state.dealer, n)
    start = state.replace(
        **game.before_the_play(n),
        current_player=first.astype(i32),
        hands=Bits(state.hands.lo | by_seat.lo, state.hands.hi | by_seat.hi),
        leader=first.astype(i32),
        _step_count=state._step_count - plays_made(state),
    )
    return start.replace(legal_set=game.legal_set(start, rules))


def replay_log_likelihood(
    world: State, player: jax.Array, model: Model, rules: FortyFiveRules
) -> jax.Array:
    """float32[]: the log-likelihood under ``model`` of the plays of the seats other than
    ``player`` recorded in ONE ``world`` (module docstring); 0 before the first lead."""
    record = world.trick_plays.astype(jnp.int32)

    def one_play(_: jax.Array, carry: tuple[State, jax.Array]) -> tuple[State, jax.Array]:
        s, total = carry
        cur = s.current_player
        card = record[jnp.minimum(s.trick_num, NUM_TRICKS - 1), cur]
        at = jnp.clip(card, 0, s.legal_action_mask.shape[0] - 1)
        p = model(s, cur)[at]
        logp = jnp.where(s.legal_action_mask[at] & (p > 0), jnp.log(p), IMPOSSIBLE)
        total = total + jnp.where(cur == player, 0.0, logp)
        return game.with_legal(game.apply_action(s, card, rules), rules), total

    start = play_start(world, rules)
    return jax.lax.fori_loop(0, plays_made(world), one_play, (start, jnp.float32(0.0)))[1]


def play_log_likelihood(env: Any, worlds: State, player: Any, model: Model) -> jax.Array:
    """float32[count]: ``replay_log_likelihood`` of each of ``worlds`` [count] (jittable)."""
    player = jnp.asarray(player, jnp.int32)
    return jax.vmap(lambda w: replay_log_likelihood(w, player, model, env.rules))(worlds)


def trained_model(env: Any) -> Any:
    """The agent the package ships for ``env``'s table (``agent.shipped_agent``), or None."""
    return family_agent.shipped_agent(env)


__all__ = [
    "IMPOSSIBLE",
    "Model",
    "play_log_likelihood",
    "play_start",
    "plays_made",
    "replay_log_likelihood",
    "trained_model",
]
