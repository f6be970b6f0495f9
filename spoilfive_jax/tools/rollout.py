"""Rollouts: millions of whole hands inside jitted loops, chunked on the host.

Randomness is counter-based: hand ``i`` of a rollout with key ``k`` is dealt and played from a
hash of (seed(k), i, decision), so results do not depend on the batch size, the chunking or the
number of devices.  Built-in policies run on the fast kernel (``fast``); any other policy runs
on the public ``State`` with ``SpoilFive.step`` (same deals for the same key).
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.spoil_five.fast as fast
import spoilfive_jax.games.spoil_five.game as game
from spoilfive_jax.games.forty_five.env import FortyFive
from spoilfive_jax.games.spoil_five.env import SpoilFive
from spoilfive_jax.games.spoil_five.fast import I32, U32, Outcome
from spoilfive_jax.games.spoil_five.policies import (
    HEURISTIC,
    BuiltinPolicy,
    PolicySpec,
    heuristic_position,
    resolve,
)
from spoilfive_jax.games.spoil_five.rules import Rules

Progress = Callable[[int, int], Any]  # progress(hands_done, hands_total)

DEFAULT_BATCH_CPU = 16384  # measured sweet spot on XLA:CPU (fits the caches)
DEFAULT_BATCH_ACCEL = 262144


def max_decisions(num_players: int) -> int:
    """The most decisions a hand can take: a rob, 5 tricks of N cards, a jink decision."""
    return 5 * num_players + 2


# ------------------------------------------------------------------------ playing a batch


def _choose_fast(
    h: fast.Hands,
    table: fast.Table,
    seed: jax.Array,
    ids: jax.Array,
    t: jax.Array,
    heuristic_seats: jax.Array,
    kinds: frozenset[str],
    rules: Rules,
) -> jax.Array:
    """Action positions of the players to act, by each seat's built-in policy."""
    cur = fast.get(h.status, fast._F_CUR)
    lo, hi = fast.hand_of(h, table, cur)
    l_lo, l_hi = fast.legal_positions(lo, hi, h.status, rules)
    out = None
    if "random" in kinds:
        out = fast.random_choice(l_lo, l_hi, fast.mix(seed, ids, t.astype(U32)))
    if "heuristic" in kinds:
        smart = heuristic_position(
            lo, hi, l_lo, l_hi, h.status, h.played_trumps, table.trump, table.turnup_pos
        )
        uses = ((heuristic_seats >> cur) & 1) == 1
        out = smart if out is None else jnp.where(uses, smart, out)
    assert out is not None
    return out


def play_fast(
    seed: jax.Array,
    ids: jax.Array,
    cards: list[jax.Array],
    dealer: jax.Array,
    carried: jax.Array,
    heuristic_seats: jax.Array,
    num_players: int,
    rules: Rules,
    kinds: frozenset[str],
    positions: list[jax.Array] | None = None,
) -> Outcome:
    """Play a batch of hands to the end on the fast kernel (built-in policies only)."""
    table, h = fast.deal_cards(cards, dealer, carried, num_players, rules, positions)

    def choose(h: fast.Hands, t: jax.Array) -> jax.Array:
        return _choose_fast(h, table, seed, ids, t, heuristic_seats, kinds, rules)

    def body(carry: tuple[fast.Hands, jax.Array], t: jax.Array) -> Any:
        h, pos = carry
        h = fast.apply(h, table, pos, num_players, rules)
        # The next choice is carried: XLA then computes it once instead of re-deriving it in
        # every per-seat update of the next decision.
        return (h, choose(h, t + 1)), None

    steps = max_decisions(num_players)
    (h, _), _ = jax.lax.scan(body, (h, choose(h, jnp.int32(0))), jnp.arange(steps, dtype=I32))
    return fast.outcome(h, table, num_players, rules)


def play_public(
    key: jax.Array,
    ids: jax.Array,
    cards: list[jax.Array],
    dealer: jax.Array,
    carried: jax.Array,
    env: SpoilFive,
    distinct: tuple[Callable[..., Any], ...],
    seat_policy: jax.Array,
) -> Outcome:
    """Play a batch of hands with arbitrary jittable policies through ``env.step``."""
    n = env.num_players
    deck = jnp.stack(cards, axis=-1)
    states = jax.vmap(lambda d, dl, c: game.deal_from_deck(d, dl, c, n, env.rules))(
        deck, dealer, carried
    )
    hand_keys = jax.vmap(lambda i: jax.random.fold_in(key, i))(ids)
    step = jax.vmap(env.step)

    def body(carry: tuple[game.State, jax.Array], t: jax.Array) -> Any:
        state, total = carry
        keys = jax.vmap(lambda k: jax.random.fold_in(k, t))(hand_keys)
        player = jnp.maximum(state.current_player, 0)
        actions = [jax.vmap(p)(keys, state, player) for p in distinct]
        which = jnp.asarray(seat_policy)[player]
        action = actions[0]
        for i in range(1, len(actions)):
            action = jnp.where(which == i, actions[i], action)
        state = step(state, action.astype(I32))
        return (state, total + state.rewards), None

    zeros = jnp.zeros((ids.shape[0], n), jnp.float32)
    (state, rewards), _ = jax.lax.scan(
        body, (states, zeros), jnp.arange(max_decisions(n), dtype=I32)
    )
    jinked = state.jinker >= 0
    return Outcome(
        rewards=rewards,
        tricks_won=state.tricks_won,
        winner=state.winner,
        decisions=state._step_count,
        jinked=jinked,
        jink_won=jinked & (state.winner == state.jinker),
        robbed=state.robbed,
        robber=state.robber,
        carried_out=state.carried_out,
        done=state.terminated,
    )


# ------------------------------------------------------------------------ plan and chunks


@dataclasses.dataclass(frozen=True)
class Plan:
    """The static part of how hands are played: table size, rules and the distinct policies.

    Which seat uses which policy is a runtime array (``seat_policy``, indices into
    ``policies``), so rotating seats in a tournament does not recompile.
    """

    num_players: int
    rules: Rules
    policies: tuple[Callable[..., Any], ...]  # distinct policies

    @classmethod
    def make(
        cls, num_players: int, rules: Rules, per_seat: tuple[Callable[..., Any], ...]
    ) -> tuple[Plan, np.ndarray]:
        # A canonical order (built-ins by name, then others by identity), so rotating the same
        # policies through the seats reuses one compiled program.
        distinct = tuple(
            sorted(
                dict.fromkeys(per_seat),
                key=lambda p: (0, p.name, 0) if isinstance(p, BuiltinPolicy) else (1, "", id(p)),
            )
        )
        seat_policy = np.array([distinct.index(p) for p in per_seat], np.int32)
        return cls(num_players, rules, distinct), seat_policy

    @property
    def builtin(self) -> bool:
        return all(isinstance(p, BuiltinPolicy) for p in self.policies)

    def play(
        self,
        key: jax.Array,
        seed: jax.Array,
        ids: jax.Array,
        cards: list[jax.Array],
        dealer: jax.Array,
        carried: jax.Array,
        seat_policy: jax.Array,
        positions: list[jax.Array] | None = None,
    ) -> Outcome:
        """Play a batch of hands to the end; ``seat_policy`` int32[N] picks each seat's policy
        (``positions``: the cards' strength positions, when the deal already computed them)."""
        if self.builtin:
            is_heuristic = jnp.array([p == HEURISTIC for p in self.policies])
            weights = jnp.left_shift(1, jnp.arange(self.num_players, dtype=I32))
            heuristic_seats = jnp.where(is_heuristic[seat_policy], weights, 0).sum()
            kinds = frozenset(p.name for p in self.policies if isinstance(p, BuiltinPolicy))
            return play_fast(
                seed,
                ids,
                cards,
                dealer,
                carried,
                heuristic_seats,
                self.num_players,
                self.rules,
                kinds,
                positions,
            )
        env = SpoilFive(self.num_players, self.rules)
        return play_public(key, ids, cards, dealer, carried, env, self.policies, seat_policy)


def _seed_of(key: jax.Array | int) -> tuple[jax.Array, jax.Array]:
    """A uint32 seed for the counter hash, and a key for policies, from a PRNG key (or an
    integer seed)."""
    if isinstance(key, (int, np.integer)):
        key = jax.random.PRNGKey(int(key))
    k1, k2 = jax.random.split(key)
    return jax.random.bits(k1, (), U32), k2


@functools.partial(jax.jit, static_argnums=(0, 1))
def _rollout_chunk(
    plan: Plan,
    shape: tuple[int, int],
    key: jax.Array,
    seed: jax.Array,
    first: jax.Array,
    count: jax.Array,
    dealer: jax.Array,
    carried: jax.Array,
    seat_policy: jax.Array,
) -> Outcome:
    """Up to ``shape[0]`` batches of ``shape[1]`` hands, ids first, first+1, ...; only the
    first ``count`` batches are played (``count`` is traced: one compile for any run size),
    the rest of the output is left zero."""
    k, b = shape
    n = plan.num_players

    def one(i: jax.Array) -> Outcome:
        ids = _shard_batch(first + (i * b + jnp.arange(b, dtype=U32)))
        cards, positions = fast.random_cards(seed, ids, 5 * n + 1)
        dl = jnp.broadcast_to(dealer, (b,))
        cr = jnp.broadcast_to(carried, (b,))
        return plan.play(key, seed, ids, cards, dl, cr, seat_policy, positions)

    def skip(i: jax.Array) -> Outcome:
        return jax.tree.map(jnp.zeros_like, jax.eval_shape(one, i))

    out = jax.lax.map(lambda i: jax.lax.cond(i < count, one, skip, i), jnp.arange(k, dtype=U32))
    return jax.tree.map(lambda x: x.reshape((k * b, *x.shape[2:])), out)


def _shard_batch(x: jax.Array) -> jax.Array:
    """Spread a batch axis over this process's devices (a no-op with one device).  All the work is
    elementwise along the batch, so XLA partitions the whole rollout without communication."""
    devices = jax.local_devices()  # this process's devices (multi-host: one run per host)
    if len(devices) == 1:
        return x
    mesh = jax.sharding.Mesh(np.array(devices), ("hands",))
    spec = jax.sharding.PartitionSpec("hands")
    return jax.lax.with_sharding_constraint(x, jax.sharding.NamedSharding(mesh, spec))


def default_batch_size() -> int:
    return DEFAULT_BATCH_CPU if jax.default_backend() == "cpu" else DEFAULT_BATCH_ACCEL


# ------------------------------------------------------------------------ public API


@dataclasses.dataclass(frozen=True)
class RolloutResult:
    """Per-hand outcomes of a rollout (host numpy arrays, H hands, N seats, T teams).

    Spoil Five fills the first block.  For the Forty-Five family (``env`` a ``FortyFive``):
    ``rewards`` holds the hand's points for each seat's team (as the family's ``State.rewards``:
    partners get the same points), ``winner`` is -1 (a family hand has no pot winner: compare
    ``team_points``), ``jinked``/``jink_won`` an announced jink (``jink="announced"``) and
    whether its team took all five tricks, ``robbed``/``robber`` the turn-up's robbing,
    ``carried_out`` 0; and the family-only fields below are set (None for Spoil Five).
    """

    rewards: np.ndarray  # float32[H, N]: net chips of each hand per seat (family: team points)
    tricks_won: np.ndarray  # int32[H, N]
    winner: np.ndarray  # int32[H]: seat that took the pot, -1 if spoiled or the jink failed
    decisions: np.ndarray  # int32[H]
    jinked: np.ndarray  # bool[H]: a jink was declared
    jink_won: np.ndarray  # bool[H]
    robbed: np.ndarray  # bool[H]: the turn-up was robbed
    robber: np.ndarray  # int32[H]: seat entitled to rob, -1 if nobody
    carried_out: np.ndarray  # int32[H]: chips carried to the next hand
    seconds: float = 0.0  # wall time of the rollout, compile included
    game: str = "spoil_five"  # ``env.id``: spoil_five, forty_five, twenty_five, auction_forty_fives
    team_points: np.ndarray | None = None  # int32[H, T] (family): the hand's points per team
    bid: np.ndarray | None = None  # int32[H] (family): the winning bid in Auction, else 0
    bidder: np.ndarray | None = None  # int32[H] (family): the bidder's seat in Auction, else -1

    @property
    def num_hands(self) -> int:
        return int(self.winner.shape[0])

    @property
    def family(self) -> bool:
        """Whether these are hands of the Forty-Five family (``team_points`` is set)."""
        return self.team_points is not None

    def summary(self) -> dict[str, Any]:
        """Spoil Five: win rate per seat, spoil and jink rates, mean chips per seat, with
        standard errors.  Family: see ``family_summary``."""
        if self.family:
            return self.family_summary()
        n = self.rewards.shape[1]
        win = np.stack([(self.winner == s) for s in range(n)], axis=1).astype(np.float64)
        spoil = (self.winner < 0) & ~self.jinked
        chips = self.rewards.astype(np.float64)

        return {
            "hands": self.num_hands,
            "decisions": int(self.decisions.sum()),
            "win_rate": win.mean(0),
            "win_rate_se": _se(win),
            "spoil_rate": float(spoil.mean()),
            "spoil_rate_se": float(_se(spoil.astype(np.float64)[:, None])[0]),
            "jink_rate": float(self.jinked.mean()),
            "jink_success_rate": float(self.jink_won.sum() / max(self.jinked.sum(), 1)),
            "rob_rate": float(self.robbed.mean()),
            "mean_chips": chips.mean(0),
            "mean_chips_se": _se(chips),
            "mean_decisions": float(self.decisions.mean()),
            "hands_per_s": self.num_hands / self.seconds if self.seconds else float("nan"),
        }

    def family_summary(self) -> dict[str, Any]:
        """Forty-Five family hands: mean points per seat and per team (with standard errors),
        the share of hands each team won (more points than every other team), the trick
        distribution (``team_tricks[t, k]``: share of hands in which team t took k of the five
        tricks), jink, rob and (Auction) bid rates."""
        if self.team_points is None:
            raise ValueError("family_summary needs a rollout of the Forty-Five family")
        pts = self.team_points.astype(np.float64)
        n, t = self.rewards.shape[1], pts.shape[1]
        team = np.arange(n) % t
        team_tricks = np.stack([self.tricks_won[:, team == i].sum(1) for i in range(t)], axis=1)
        others = np.stack([np.delete(pts, i, axis=1).max(1) for i in range(t)], axis=1)
        won = (pts > others).astype(np.float64)
        in_auction = self.bidder is not None and bool((self.bidder >= 0).any())
        if in_auction:
            assert self.bidder is not None and self.bid is not None
            on = self.bidder >= 0
            made = pts[np.arange(self.num_hands), self.bidder % t] >= 0
            bid_made = float(made[on].mean())
            mean_bid = float(self.bid[on].mean())
        else:
            bid_made = mean_bid = float("nan")
        return {
            "game": self.game,
            "hands": self.num_hands,
            "decisions": int(self.decisions.sum()),
            "mean_points": self.rewards.astype(np.float64).mean(0),
            "mean_points_se": _se(self.rewards.astype(np.float64)),
            "mean_team_points": pts.mean(0),
            "mean_team_points_se": _se(pts),
            "team_win_rate": won.mean(0),
            "team_win_rate_se": _se(won),
            "mean_team_tricks": team_tricks.mean(0),
            "team_tricks": np.stack(
                [(team_tricks == k).mean(0) for k in range(6)], axis=1
            ),  # [T, 6]
            "jink_rate": float(self.jinked.mean()),
            "jink_success_rate": float(self.jink_won.sum() / max(self.jinked.sum(), 1)),
            "rob_rate": float(self.robbed.mean()),
            "bid_made_rate": bid_made,
            "mean_bid": mean_bid,
            "mean_decisions": float(self.decisions.mean()),
            "hands_per_s": self.num_hands / self.seconds if self.seconds else float("nan"),
        }


def _se(x: np.ndarray) -> np.ndarray:
    """Standard error of the mean of each column of x float64[H, K]."""
    h = x.shape[0]
    return x.std(axis=0, ddof=1) / np.sqrt(h) if h > 1 else np.zeros(x.shape[1:])


def _copy_out(
    fields: dict[str, np.ndarray], out: Outcome, first: int, count: int, total: int
) -> None:
    """Copy a call's first ``count`` hands into the host arrays (allocated on first use)."""
    for f in Outcome._fields:
        x = np.asarray(getattr(out, f))
        if f not in fields:
            fields[f] = np.empty((total, *x.shape[1:]), x.dtype)
        fields[f][first : first + count] = x[:count]


def rollout(
    key: jax.Array | int,
    env: SpoilFive | FortyFive,
    policy: PolicySpec = "random",
    num_hands: int = 1_000_000,
    batch_size: int | None = None,
    progress: Progress | None = None,
    *,
    dealer: int = 0,
    carried: int = 0,
) -> RolloutResult:
    """Play ``num_hands`` independent hands with ``env``'s table and rules.

    policy: ``"random"``, ``"heuristic"``, a jittable ``policy(key, state, player) -> action``,
    or a list with one per seat.  ``batch_size`` hands are played at once (default: 16384 on
    CPU, 262144 on an accelerator); ``progress(done, total)`` is called between chunks.
    Every hand has the given ``dealer`` and ``carried`` pot.  Same key -> same hands, whatever
    the batch size, chunking or devices.

    ``env`` may be a ``FortyFive`` (any game of the family): independent hands, each dealt at
    a new game (team scores zero) with the given ``dealer``; ``policy`` is ``"random"``,
    ``"greedy"``, ``"heuristic"`` (the family's own players, on the family's rollout kernel) or
    a jittable policy on the family's ``State``; ``carried`` must be 0.  What the result holds
    then: ``RolloutResult``.  Same key -> same deals whatever the batch size or the policies
    (a different stream from Spoil Five's).
    """
    if isinstance(env, FortyFive):
        if carried != 0:
            raise ValueError("carried is Spoil Five's pot; the Forty-Five family has none")
        from spoilfive_jax.games.forty_five import tools

        return tools.rollout(key, env, policy, num_hands, batch_size, progress, dealer=dealer)
    if not isinstance(env, SpoilFive):
        raise ValueError(f"env must be a SpoilFive or a FortyFive, got {type(env).__name__}")
    if isinstance(num_hands, bool) or not isinstance(num_hands, (int, np.integer)) or num_hands < 1:
        raise ValueError(f"num_hands must be a positive integer, got {num_hands!r}")
    if num_hands >= 2**32:
        raise ValueError("num_hands must be below 2**32 per key; split the run over keys")
    n = env.num_players
    if not 0 <= int(dealer) < n:
        raise ValueError(f"dealer must be 0..{n - 1}, got {dealer}")
    if int(carried) < 0:
        raise ValueError(f"carried must be >= 0, got {carried}")
    b = int(batch_size or default_batch_size())
    if b < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    b = batch_for(b, int(num_hands))
    plan, seat_policy = Plan.make(n, env.rules, resolve(policy, n))
    seed, pkey = _seed_of(key)
    # Each call plays up to k batches (~256k hands: progress is reported between calls); the
    # batch count is a traced argument, so one compile serves every run size.
    k = max(1, min(16, (1 << 18) // b))
    start = time.perf_counter()
    fields: dict[str, Any] = {}
    pending: tuple[Outcome, int, int] | None = None  # a dispatched call: output, first, count
    done = 0
    while done < num_hands or pending is not None:
        call = None
        if done < num_hands:  # dispatch the next call before copying out the previous one
            count = min(k, -(-(num_hands - done) // b)) * b
            out = _rollout_chunk(
                plan,
                (k, b),
                pkey,
                seed,
                jnp.uint32(done),
                jnp.int32(count // b),
                jnp.int32(dealer),
                jnp.int32(carried),
                jnp.asarray(seat_policy),
            )
            call = (out, done, min(count, num_hands - done))
            done += count
        if pending is not None:
            _copy_out(fields, *pending, num_hands)
            if progress is not None:
                progress(pending[1] + pending[2], num_hands)
        pending = call
    fields.pop("done")
    return RolloutResult(**fields, seconds=time.perf_counter() - start)


def batch_for(requested: int, total: int) -> int:
    """The batch for ``total`` items: ``requested``, or for smaller runs the next power of two
    (so runs of different sizes share compiled code), a multiple of the local device count."""
    return _round_to_devices(min(requested, 1 << max(total - 1, 0).bit_length()))


def _round_to_devices(b: int) -> int:
    """The batch rounded up to a multiple of the device count (the batch is sharded)."""
    d = jax.local_device_count()
    return -(-b // d) * d
