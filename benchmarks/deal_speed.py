"""What a random deal costs: ``jit(vmap(env.init))`` alone and in a pgx-style auto-reset loop.

``sf.auto_reset(env.step, env.init)`` deals a fresh hand at every step for every hand (under
``vmap`` both sides of the select are computed), so ``env.init``'s cost is part of every step
of such a training loop.  The built-in games and the Oh Hell example deal the top cards of a
uniform shuffle, one 24-bit draw a card (``core.deal.shuffled_deck``), hashing each draw from
the key's words (``core.deal.deck_draws``).  Until 2026-12-07 they took the draws from
``jax.random.bits(key, (K,))``: for the threefry keys users hold, a threefry block (20 rounds)
every two cards (a counter key's bits were a hash already).  This script
times both, side by side in one process: the old draws are put back by replacing
``shuffled_deck`` in the game modules that call it (and clearing JAX's caches), so the rest of
each ``init`` is the same code.

Rows: each game at its default table (Oh Hell at 5 players and 5 tricks), ``init`` (hands
dealt a second, ``--batch`` threefry keys split from one) and ``auto-reset loop`` (steps a
second of 64 steps of ``vmap(auto_reset(env.step, env.init))`` from ``--batch`` hands, the
first legal action, a threefry key a hand and step as a user's loop splits them).  Each figure
is the best of ``--reps`` calls after a compile call.  Nothing is asserted.

``--agree N``: the change of 2026-12-07 deals other hands for a key; this plays ``N`` hands of
each game from ``vmap(env.init)`` both ways (each seat picking the first legal action, so the
outcome is the deal's) and prints each seat's mean reward both ways with the z-score of their
difference (independent samples: |z| > 3 would say the deals differ in distribution); then
the same for ``sf.rollout`` with random play (the Oh Hell plugin deals its rollouts through
``init``; the built-in games' kernels deal the same hands either way).  First it checks the
deals themselves against the exact frequencies (``deal_frequencies``).

    python benchmarks/deal_speed.py
    python benchmarks/deal_speed.py --json benchmarks/results/deal_speed.json
    python benchmarks/deal_speed.py --games spoil_five forty_five --reps 3
    python benchmarks/deal_speed.py --agree 10000000 [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance

import spoilfive_jax as sf
from spoilfive_jax.core import deal

GAMES = ("spoil_five", "forty_five", "twenty_five", "auction_forty_fives", "oh_hell")
TABLES: dict[str, dict[str, Any]] = {"oh_hell": {"num_players": 5, "num_tricks": 5}}
STEPS = 64


def threefry_deck(key: jax.Array, count: int, deck_size: int = 52) -> jax.Array:
    """The deal's draws as ``env.init`` took them before: ``jax.random.bits`` of the key."""
    return deal.draw_deck(jax.random.bits(key, (count,), jnp.uint32) >> 8, deck_size)


@contextmanager
def threefry_draws() -> Iterator[int]:
    """Every game module that deals with ``shuffled_deck`` deals with ``threefry_deck`` inside;
    yields how many modules were patched."""
    mods = [
        m
        for name, m in list(sys.modules.items())
        if name.startswith(("spoilfive_jax.", "spoilfive_oh_hell"))
        and getattr(m, "shuffled_deck", None) is deal.shuffled_deck
        and m is not deal
    ]
    for m in mods:
        m.shuffled_deck = threefry_deck  # type: ignore[attr-defined]
    jax.clear_caches()
    try:
        yield len(mods)
    finally:
        for m in mods:
            m.shuffled_deck = deal.shuffled_deck  # type: ignore[attr-defined]
        jax.clear_caches()


def best_of(run: Callable[[jax.Array], Any], reps: int) -> float:
    jax.block_until_ready(run(jax.random.PRNGKey(0)))
    best = float("inf")
    for i in range(reps):
        t0 = time.perf_counter()
        jax.block_until_ready(run(jax.random.PRNGKey(i + 1)))
        best = min(best, time.perf_counter() - t0)
    return best


def init_rate(env: Any, batch: int, reps: int) -> float:
    deal_batch = jax.jit(lambda key: jax.vmap(env.init)(jax.random.split(key, batch)))
    return batch / best_of(deal_batch, reps)


def auto_reset_rate(env: Any, batch: int, reps: int) -> float:
    step = jax.vmap(sf.auto_reset(env.step, env.init))

    def run(key: jax.Array) -> jax.Array:
        k_deal, k_play = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(k_deal, batch))

        def body(state: Any, t: jax.Array) -> tuple[Any, jax.Array]:
            keys = jax.random.split(jax.random.fold_in(k_play, t), batch)
            state = step(state, sf.first_legal(state).astype(jnp.int32), keys)
            return state, state.terminated.sum()

        return jax.lax.scan(body, state, jnp.arange(STEPS))[1].sum()

    return batch * STEPS / best_of(jax.jit(run), reps)


def reward_moments(env: Any, hands: int, batch: int, seed: int = 0) -> tuple[Any, Any]:
    """Each seat's (mean, standard error of the mean) reward over ``hands`` hands dealt by
    ``vmap(env.init)`` from split keys, every seat playing the first legal action."""
    init, step = jax.vmap(env.init), jax.vmap(env.step)

    @jax.jit
    def chunk(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        state = init(jax.random.split(key, batch))

        def body(carry: tuple[Any, jax.Array], _: jax.Array) -> tuple[Any, None]:
            state, total = carry
            state = step(state, sf.first_legal(state).astype(jnp.int32))
            return (state, total + state.rewards), None

        zero = jnp.zeros(state.rewards.shape, jnp.float32)
        (_, total), _ = jax.lax.scan(body, (state, zero), None, length=env.max_decisions)
        return total.sum(0), (total * total).sum(0)

    chunks = -(-hands // batch)
    s1 = s2 = 0.0
    for i in range(chunks):
        a, b = chunk(jax.random.fold_in(jax.random.PRNGKey(seed), i))
        s1, s2 = s1 + np.asarray(a, np.float64), s2 + np.asarray(b, np.float64)
    n = chunks * batch
    mean = s1 / n
    return mean, np.sqrt(np.maximum(s2 / n - mean * mean, 0.0) / n)


def deal_frequencies(draw: Callable[..., jax.Array], hands: int, keys: str) -> tuple[Any, Any]:
    """z-scores of a deal's frequencies against the exact ones over ``hands`` deals of the top
    26 cards (``keys``: ``"split"`` threefry keys, or ``"counter"`` keys of consecutive hands,
    as the rollouts of a game without a kernel deal): that two deck positions hold cards of
    one suit (12/51, each of the 325 pairs of positions) and that a position holds one of the
    four highest ranks (16/52, each of the 26 positions)."""
    from spoilfive_jax.core.keys import deal_keys

    batch, count = min(1 << 17, hands), 26

    @jax.jit
    def chunk(i: jax.Array) -> tuple[jax.Array, jax.Array]:
        if keys == "split":
            ks = jax.random.split(jax.random.fold_in(jax.random.PRNGKey(9), i), batch)
        else:
            ks = deal_keys(jnp.uint32(9), (i * batch + jnp.arange(batch)).astype(jnp.uint32))
        decks = jax.vmap(lambda k: draw(k, count, 52))(ks)
        suit, high = decks // 13, decks % 13 >= 9
        return (suit[:, :, None] == suit[:, None, :]).sum(0), high.sum(0)

    chunks = -(-hands // batch)
    same, high = np.zeros((count, count)), np.zeros(count)
    for i in range(chunks):
        a, b = chunk(jnp.int32(i))
        same, high = same + np.asarray(a, np.float64), high + np.asarray(b, np.float64)
    n, p, q = chunks * batch, 12 / 51, 16 / 52
    pairs = same[np.triu_indices(count, 1)] / n
    return (pairs - p) / np.sqrt(p * (1 - p) / n), (high / n - q) / np.sqrt(q * (1 - q) / n)


def check_deals(hands: int) -> None:
    for keys in ("split", "counter"):
        for name, draw in (("threefry draws", threefry_deck), ("key hash", deal.shuffled_deck)):
            pairs, high = deal_frequencies(draw, hands, keys)
            print(
                f"deals, {keys} keys, {name}: same suit of 325 pairs of positions max |z| "
                f"{np.abs(pairs).max():.2f} (mean z^2 {np.mean(pairs**2):.2f}); a high card at "
                f"26 positions max |z| {np.abs(high).max():.2f} (mean z^2 {np.mean(high**2):.2f})",
                flush=True,
            )


def rollout_moments(env: Any, hands: int, seed: int) -> tuple[Any, Any]:
    """Each seat's (mean, standard error) reward of ``sf.rollout`` with random play: a game
    without a rollout kernel (the Oh Hell plugin) deals its hands through ``init`` from
    counter keys, the built-in games' kernels from their own counter deal."""
    out = sf.rollout(seed, env, "random", num_hands=hands, per_hand=False).summary()
    name = next(k for k in ("mean_rewards", "mean_chips", "mean_points") if k in out)
    return np.asarray(out[name]), np.asarray(out[f"{name}_se"])


def agree(game: str, hands: int, batch: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for path in ("init, first legal", "rollout, random"):
        if path.startswith("init"):
            moments = lambda env: reward_moments(env, hands, batch, seed)  # noqa: E731
        else:
            moments = lambda env: rollout_moments(env, hands, seed)  # noqa: E731
        now = moments(sf.make(game, **TABLES.get(game, {})))
        with threefry_draws():
            before = moments(sf.make(game, **TABLES.get(game, {})))
        se = np.sqrt(now[1] ** 2 + before[1] ** 2)
        z = np.where(se > 0, (now[0] - before[0]) / np.where(se > 0, se, 1.0), 0.0)
        fmt = " ".join
        print(
            f"{game:20s} {path:18s} mean reward a seat, threefry draws "
            f"[{fmt(f'{m:.4f}' for m in before[0])}], key hash "
            f"[{fmt(f'{m:.4f}' for m in now[0])}], z [{fmt(f'{v:+.2f}' for v in z)}]"
            + ("  (the same hands)" if np.array_equal(now[0], before[0]) else ""),
            flush=True,
        )
        rows.append(
            {"game": game, "path": path, "threefry": before[0].tolist(), "hash": now[0].tolist()}
        )
    return rows


def measure(game: str, batch: int, reps: int) -> list[dict[str, Any]]:
    rows = []
    for path, rate in (("init", init_rate), ("auto-reset loop", auto_reset_rate)):
        env = sf.make(game, **TABLES.get(game, {}))
        now = rate(env, batch, reps)
        with threefry_draws() as patched:
            if not patched:
                raise RuntimeError(f"{game}: no module deals with core.deal.shuffled_deck")
            before = rate(sf.make(game, **TABLES.get(game, {})), batch, reps)
        row = {"game": game, "path": path, "threefry_per_s": before, "hash_per_s": now}
        rows.append(row)
        unit = "hands/s" if path == "init" else "steps/s"
        print(
            f"{game:20s} {path:16s} threefry draws {before / 1e6:6.2f} M {unit}   "
            f"key hash {now / 1e6:6.2f} M {unit}   x{now / before:.2f}",
            flush=True,
        )
    return rows


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=list(GAMES))
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--agree", type=float, default=0, help="hands a game (see above), not speed")
    ap.add_argument("--seed", type=int, default=0, help="--agree's keys")
    args = ap.parse_args(argv)
    if args.agree:
        hands = int(args.agree)
        batch = min(1 << 17, hands)
        check_deals(hands)
        agreed = [r for game in args.games for r in agree(game, hands, batch, args.seed)]
        return {"agree": agreed}
    rows = [row for game in args.games for row in measure(game, args.batch, args.reps)]
    argv = sys.argv[1:] if argv is None else argv
    out = {"rows": rows, "batch": args.batch, "steps": STEPS, **provenance(__file__, argv)}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return out


if __name__ == "__main__":
    main()
