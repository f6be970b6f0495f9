"""One process of a multi-process run (``test_distributed.py`` starts N of them on 127.0.0.1).

``python distributed_worker.py PROCESS_ID NUM_PROCESSES PORT DEVICES OUT [rollouts]``: joins the
run (``sf.distributed.initialize``) with ``DEVICES`` CPU devices of its own, runs every tool (or
the rollouts only) on both games (``results``), and saves what it got to
``OUT.<PROCESS_ID>.npz``: every process must get the same, and the same as one process alone
(the test computes that in its own process).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

N_HANDS = 200  # hands a tool plays: 4 batches of 64, the last one partial
BATCH = 64
SCORED = np.array([[0, 1, 2, 3, 4], [10, 11, 25, 40, 51]], np.int32)
GAMES = {"spoil_five": 3, "forty_five": 2}


def _flat(prefix: str, tree: Any, out: dict[str, np.ndarray]) -> None:
    """``tree``'s numbers as arrays named by their path (timings left out)."""
    if isinstance(tree, dict):
        for k, v in tree.items():
            if not (str(k).endswith("_per_s") or k == "seconds"):
                _flat(f"{prefix}/{k}", v, out)
    elif isinstance(tree, (list, tuple)) and tree and isinstance(tree[0], (dict, list, tuple)):
        for i, v in enumerate(tree):
            _flat(f"{prefix}/{i}", v, out)
    elif not isinstance(tree, str) and tree is not None:
        out[prefix] = np.asarray(tree)


def results(every_tool: bool = True) -> dict[str, np.ndarray]:
    """The run tools on both games, small: per-hand results (which must match exactly) and a
    streamed rollout's summary (its standard errors to float32 rounding).  ``every_tool``
    False: the rollouts only."""
    import spoilfive_jax as sf

    out: dict[str, np.ndarray] = {}
    for game, n in GAMES.items():
        env = sf.make(game, num_players=n)
        hands = sf.rollout(1, env, "random", N_HANDS, BATCH)
        _flat(f"{game}/rollout", hands.fields, out)
        streamed = sf.rollout(1, env, "random", N_HANDS, BATCH, per_hand=False)
        _flat(f"{game}/streamed", streamed.summary(), out)
        if not every_tool:
            continue
        duel = sf.evaluate(2, env, {"a": "random", "b": "random"}, N_HANDS // 2, BATCH)
        _flat(f"{game}/evaluate", {"mean": duel.mean_reward, "won": duel.win_rate}, out)
        turnup = 20
        scores = sf.score_hands(3, SCORED, turnup, [1, 0], env=env, num_rollouts=50)
        _flat(f"{game}/score", vars(scores), out)
        sessions = sf.play_sessions(4, env, "random", 24, max_hands=5, batch_size=8)
        _flat(f"{game}/sessions", sessions.summary(), out)
    if not every_tool:
        return out
    env = sf.make("spoil_five", num_players=3)
    state = sf.position_from_history(
        env, "players=3; dealer=0; turnup=7D; player=1; hand=5D JH AH KC 4S; history="
    )
    analysis = sf.analyze(5, env, state, num_samples=64, policy="random", batch_size=128)
    _flat("analysis", {**analysis.values, "best": analysis.best}, out)
    return out


def main(argv: list[str]) -> None:
    process_id, num_processes, port, devices = (int(x) for x in argv[:4])
    import jax

    jax.config.update("jax_num_cpu_devices", devices)
    import spoilfive_jax as sf

    sf.distributed.initialize(f"127.0.0.1:{port}", num_processes, process_id)
    got = results(every_tool=argv[5:] != ["rollouts"])
    got["devices"] = np.array([jax.device_count(), jax.local_device_count()])
    np.savez(f"{argv[4]}.{process_id}.npz", **got)


if __name__ == "__main__":
    main(sys.argv[1:])
