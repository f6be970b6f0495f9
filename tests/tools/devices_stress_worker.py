"""Run every tool that spreads its work over the host devices, ``ROUNDS`` times, on small
batches (many calls a run: the calls are where programs queue up), and print one line a tool.

Run in a fresh process (``tests/tools/test_many_devices.py``): ``python
devices_stress_worker.py DEVICES ROUNDS``.  Before the tools ran their multi-device programs one
at a time (``tools.sharding.one_at_a_time``), a tournament over 2 host devices hung for ever on
most runs of this size.
"""

from __future__ import annotations

import sys
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax as sf


def first_legal(key: jax.Array, state: Any, player: jax.Array) -> jax.Array:
    """A user's policy: its hands play on the general step, whose loop reduces over the
    whole batch at every decision (a collective in the loop)."""
    return jnp.argmax(state.legal_action_mask)


def main(devices: int, rounds: int) -> None:
    assert sf.use_all_cores(devices) == devices and jax.device_count() == devices
    spoil, family, five = sf.make("spoil_five", 4), sf.make("forty_five", 4), sf.make("spoil_five")
    lineup = {"heuristic": "heuristic", "random": "random"}
    three = {"a": "heuristic", "b": "random", "c": "heuristic"}  # 15 seatings at 5 players
    small = {"batch_size": 64}
    hand = np.array([sf.card_id(c) for c in ("AH", "5S", "JS", "KD", "2C")])
    for r in range(rounds):
        done = [
            sf.evaluate(r, five, three, 20000, batch_size=256, per_hand=False).mean_reward,
            sf.evaluate(r, five, three, 5000, batch_size=256).mean_reward,
            sf.evaluate(r, spoil, lineup, 3000, per_hand=False, **small).mean_reward,
            sf.evaluate(r, family, lineup, 2000, per_hand=True, **small).mean_reward,
            sf.rollout(r, spoil, "heuristic", 5000, per_hand=False, **small).summary()["hands"],
            sf.rollout(r, spoil, first_legal, 1000, per_hand=False, **small).summary()["hands"],
            sf.rollout(r, family, "random", 3000, **small).rewards.sum(),
            sf.score_hands(
                r, hand, sf.card_id("3S"), 1, env=spoil, num_rollouts=600, batch_size=64
            ).expected_chips,
            sf.play_sessions(
                r, spoil, "random", 64, max_hands=20, batch_size=16
            ).hands_played.sum(),
            sf.play_sessions(
                r, family, "random", 32, max_hands=10, batch_size=16
            ).hands_played.sum(),
            sf.analyze(
                r, spoil, spoil.init(jax.random.PRNGKey(r)), 256, batch_size=64
            ).expected_chips.round(4)[spoil.legal_actions(spoil.init(jax.random.PRNGKey(r)))],
        ]
        print(r, " ".join(str(np.round(np.asarray(x, np.float64), 4).tolist()) for x in done))
        sys.stdout.flush()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
