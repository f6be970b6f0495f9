"""The shared tools for the Forty-Five family: what ``spoilfive_jax.rollout``, ``score_hands``
and ``evaluate`` run when they are given a ``FortyFive`` (any variant).

Hands are independent: each is dealt afresh at a new game (team scores zero) with the dealer
given, played out, and scored as the family scores it (``game.hand_points``).

Rollouts with the built-in policies only (``"random"``, ``"greedy"``, ``"heuristic"``, any mix
by seat) run on the family's rollout kernel (``fast``); any other policy runs on the public
``State`` with ``FortyFive.step``.  Both paths deal hand ``i`` of a rollout with key ``k`` from
the same counter hash (``fast.random_deck`` with the seed of ``k``), so the same key gives the
same deals whatever the batch size, the chunking or the policies (tournaments compare policies
on common deals), and the greedy and heuristic players choose alike on both paths.  On the
public path the decisions of hand ``i`` use ``fold_in(fold_in(k2, i), t)`` (``k2`` the policy
half of ``k``).

Policies: ``"random"``, ``"greedy"`` (``greedy_policy``: a simple baseline), ``"heuristic"``
(``policies.heuristic_policy``: partner-aware, bids by trump strength) or any jittable
``policy(key, state, player) -> action`` on ONE hand's ``fortyfive.State`` (a list gives one
per seat).
"""

from __future__ import annotations

import functools
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.game as game
from spoilfive_jax.core import bits
from spoilfive_jax.core.cards import ACE_OF_HEARTS
from spoilfive_jax.games.forty_five import fast
from spoilfive_jax.games.forty_five.env import FortyFive, card_text
from spoilfive_jax.games.forty_five.game import (
    BID_15,
    HOLD,
    JOKER,
    NAME_CLUBS,
    NUM_ACTIONS,
    NUM_CARD_IDS,
    NUM_TRICKS,
    PASS,
    State,
)
from spoilfive_jax.games.forty_five.games import PolicyFn, _play_hand, random_policy
from spoilfive_jax.games.forty_five.policies import heuristic_policy
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams
from spoilfive_jax.games.spoil_five import game as core
from spoilfive_jax.games.spoil_five.policies import BuiltinPolicy
from spoilfive_jax.tools.rollout import (
    Progress,
    RolloutResult,
    _seed_of,
    _shard_batch,
    batch_for,
    default_batch_size,
)
from spoilfive_jax.tools.scorer import FamilyScores, query_stats

SUPPORTED = (
    "'random', 'greedy', 'heuristic' or a jittable policy(key, state, player) -> action on "
    "spoilfive_jax.games.forty_five.State"
)
_TURNUP = -6  # deck-layout marker: the turn-up (known cards are -1..-5, unseen cards 0..)


# ------------------------------------------------------------------------ policies

_BIG = 1 << 10


@functools.cache
def greedy_policy(rules: FortyFiveRules) -> PolicyFn:
    """``"greedy"``: a simple deterministic player of the family (a baseline, not a strong one).

    Play: lead the strongest card (a trump's strength above every plain card); follow with the
    cheapest card that takes the trick unless a partner is already taking it, else throw the
    weakest legal card.  Rob (and the joker exchange): always, laying away the weakest card.
    Auction: bid the lowest legal bid (or hold) with 3 or more trumps in the best suit (its
    cards plus A♥), else pass (the dealer bids 15 when forced); name that suit; keep the hand
    (DONE).  Never announce a jink.  One closure per ``rules`` (cached: one compile).
    """
    cards = jnp.arange(NUM_CARD_IDS, dtype=jnp.int32)
    by_suit = np.zeros((4, NUM_CARD_IDS), np.bool_)  # the trumps of each suit (cards + A♥)
    for suit in range(4):
        by_suit[suit, suit * 13 : suit * 13 + 13] = True
        by_suit[suit, ACE_OF_HEARTS] = True
    by_suit[:, JOKER] = rules.joker

    def greedy(key: jax.Array, state: State, player: jax.Array) -> jax.Array:
        del key, player
        n = state.tricks_won.shape[0]
        cur = jnp.maximum(state.current_player, 0)
        legal = bits.to_bool(state.legal_set, NUM_ACTIONS)
        playable = legal[:NUM_CARD_IDS]
        trump = jnp.maximum(state.trump, 0)
        ts = game.trump_strength(cards, trump, rules)
        plain = core.plain_strength(jnp.minimum(cards, JOKER - 1))
        value = jnp.where(ts >= 0, 16 + ts, plain)
        power = jnp.where(ts >= 0, 16 + ts, jnp.where(cards // 13 == state.led_class, plain, -1))
        leading = cur == state.leader
        partner = ~leading & (state.best_seat % num_teams(n) == cur % num_teams(n))
        wins = playable & (power > state.best_power) & ~leading & ~partner
        cheapest_win = jnp.argmin(jnp.where(wins, value, _BIG))
        weakest = jnp.argmin(jnp.where(playable, value, _BIG))
        strongest = jnp.argmax(jnp.where(playable, value, -1))
        play = jnp.where(leading, strongest, jnp.where(wins.any(), cheapest_win, weakest))

        hand = bits.to_bool(core.seat_bits(state.hands, cur), NUM_ACTIONS)[:NUM_CARD_IDS]
        per_suit = (jnp.asarray(by_suit) & hand[None, :]).sum(1)
        best_suit = jnp.argmax(per_suit)
        bids = legal[BID_15 : HOLD + 1]
        lowest_bid = BID_15 + jnp.argmax(bids)
        strong = per_suit.max() >= 3
        bid = jnp.where((strong & bids.any()) | ~legal[PASS], lowest_bid, PASS)
        return jnp.select(
            [
                state.phase == game.PHASE_PLAY,
                (state.phase == game.PHASE_ROB) | (state.phase == game.PHASE_JOKER),
                state.phase == game.PHASE_BID,
                state.phase == game.PHASE_TRUMP,
            ],
            [play, weakest, bid, NAME_CLUBS + best_suit],
            PASS,  # discard: DONE; announcements: no jink
        ).astype(jnp.int32)

    return greedy


def _one(policy: Any, rules: FortyFiveRules) -> PolicyFn:
    name = policy.name if isinstance(policy, BuiltinPolicy) else policy
    if isinstance(name, str):
        if name == "random":
            return random_policy
        if name == "greedy":
            return greedy_policy(rules)
        if name == "heuristic":
            return heuristic_policy(rules)
        raise ValueError(f"unknown policy {policy!r}; the Forty-Five family takes {SUPPORTED}")
    if not callable(policy):
        raise ValueError(f"a policy must be {SUPPORTED}, got {policy!r}")
    return policy  # type: ignore[no-any-return]


def resolve(
    policy: Any, num_players: int, rules: FortyFiveRules
) -> tuple[tuple[PolicyFn, ...], np.ndarray]:
    """(distinct policies, int32[N] index of each seat's policy) from a policy or one per seat.

    The distinct policies are ordered by identity, not by seat, so that rotating seats (as
    ``evaluate`` does) reuses one compile; the order does not change any result."""
    if isinstance(policy, (list, tuple)):
        if len(policy) != num_players:
            raise ValueError(
                f"a list of policies needs one per seat ({num_players}), got {len(policy)}"
            )
        per_seat = [_one(p, rules) for p in policy]
    else:
        per_seat = [_one(policy, rules)] * num_players
    distinct = tuple(sorted(dict.fromkeys(per_seat), key=id))
    return distinct, np.array([distinct.index(p) for p in per_seat], np.int32)


# ------------------------------------------------------------------------ rollouts


def _hand_keys(key: jax.Array, ids: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(deal keys, decision keys) of hands ``ids`` uint32[B]."""
    keys = jax.vmap(lambda i: jax.random.fold_in(key, i))(ids)
    deal = jax.vmap(lambda k: jax.random.fold_in(k, 0))(keys)
    play = jax.vmap(lambda k: jax.random.fold_in(k, 1))(keys)
    return deal, play


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _rollout_chunk(
    env: FortyFive,
    policies: tuple[PolicyFn, ...],
    size: int,
    key: jax.Array,
    seed: jax.Array,
    first: jax.Array,
    dealer: jax.Array,
    seat_policy: jax.Array,
) -> dict[str, jax.Array]:
    """Hands ``first .. first + size - 1`` on the public path, dealt as the kernel deals them
    (``fast.random_deck``) and played to the end: their outcome fields [size, ...]."""
    n, rules = env.num_players, env.rules
    ids = _shard_batch(first + jnp.arange(size, dtype=jnp.uint32))
    decks = fast.random_deck(seed, ids, game.deck_prefix(n, rules), rules.deck_size).T
    play_keys = jax.vmap(lambda i: jax.random.fold_in(key, i))(ids)
    scores = jnp.zeros(num_teams(n), jnp.int32)

    def one(deck: jax.Array, play_key: jax.Array) -> dict[str, jax.Array]:
        state = game.deal_from_deck(deck, dealer, scores, n, rules)
        state = _play_hand(env, policies, seat_policy, play_key, state)
        return _outcome(state, n)

    return jax.vmap(one)(decks, play_keys)


def builtin_kinds(rules: FortyFiveRules) -> dict[PolicyFn, int]:
    """The built-in policies that run on the kernel: each one's ``fast.KINDS`` index."""
    return {
        random_policy: fast.RANDOM,
        greedy_policy(rules): fast.GREEDY,
        heuristic_policy(rules): fast.HEURISTIC,
    }


def _kernel_fields(out: fast.Outcome, num_players: int) -> dict[str, np.ndarray]:
    """A kernel outcome as the rollout's host fields."""
    f = {name: np.asarray(getattr(out, name)) for name in fast.Outcome._fields}
    f["rewards"] = f["team_points"][:, game.team_of(num_players)].astype(np.float32)
    return f


def _kernel_rollout(
    seed: jax.Array,
    env: FortyFive,
    per_seat: list[int],
    num_hands: int,
    batch: int,
    dealer: int,
    progress: Progress | None,
) -> dict[str, np.ndarray]:
    """``num_hands`` hands on the kernel, ``per_seat`` the ``fast.KINDS`` index of each seat.

    Each call plays up to k batches (~256k hands: progress is reported between calls) and the
    next call is dispatched before the last is copied out."""
    n = env.num_players
    k = max(1, min(16, (1 << 18) // batch))
    kinds = frozenset(per_seat)
    seat_kinds = jnp.int32(fast.pack_kinds(per_seat))
    fields: dict[str, np.ndarray] = {}
    pending: tuple[fast.Outcome, int, int] | None = None
    done = 0
    while done < num_hands or pending is not None:
        call = None
        if done < num_hands:
            count = min(k, -(-(num_hands - done) // batch)) * batch
            out = fast.rollout_chunk(
                n,
                env.rules,
                kinds,
                (k, batch),
                seed,
                jnp.uint32(done),
                jnp.int32(count // batch),
                jnp.int32(dealer),
                seat_kinds,
            )
            call = (out, done, min(count, num_hands - done))
            done += count
        if pending is not None:
            out_p, first, size = pending
            for name, x in _kernel_fields(out_p, n).items():
                if name not in fields:
                    fields[name] = np.empty((num_hands, *x.shape[1:]), x.dtype)
                fields[name][first : first + size] = x[:size]
            if progress is not None:
                progress(first + size, num_hands)
        pending = call
    return fields


def _outcome(state: State, num_players: int) -> dict[str, jax.Array]:
    """What a rollout keeps of one finished hand."""
    team = game.team_of(num_players)
    t = num_teams(num_players)
    team_tricks = game.team_totals(state.tricks_won, num_players)
    jinked = state.jinker >= 0
    return {
        "rewards": state.hand_points[team].astype(jnp.float32),  # (``rewards`` is zeroed by
        "team_points": state.hand_points,  # steps after the hand's end; ``hand_points`` stays)
        "tricks_won": state.tricks_won,
        "decisions": state._step_count,
        "jinked": jinked,
        "jink_won": jinked & (team_tricks[jnp.maximum(state.jinker, 0) % t] == NUM_TRICKS),
        "robbed": state.robbed,
        "robber": state.robber,
        "bid": state.bid,
        "bidder": state.bidder,
    }


def rollout(
    key: jax.Array | int,
    env: FortyFive,
    policy: Any = "random",
    num_hands: int = 100_000,
    batch_size: int | None = None,
    progress: Progress | None = None,
    *,
    dealer: int = 0,
) -> RolloutResult:
    """``spoilfive_jax.rollout`` for the Forty-Five family (see the module docstring)."""
    if isinstance(num_hands, bool) or not isinstance(num_hands, (int, np.integer)) or num_hands < 1:
        raise ValueError(f"num_hands must be a positive integer, got {num_hands!r}")
    if num_hands >= 2**32:
        raise ValueError("num_hands must be below 2**32 per key; split the run over keys")
    n = env.num_players
    if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n:
        raise ValueError(f"dealer must be 0..{n - 1}, got {dealer!r}")
    b = int(batch_size or default_batch_size())
    if b < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    b = batch_for(b, int(num_hands))
    policies, seat_policy = resolve(policy, n, env.rules)
    seed, pkey = _seed_of(key)
    start = time.perf_counter()
    kinds = builtin_kinds(env.rules)
    if all(p in kinds for p in policies):
        per_seat = [kinds[policies[i]] for i in seat_policy]
        f = _kernel_rollout(seed, env, per_seat, num_hands, b, int(dealer), progress)
    else:
        parts: list[dict[str, jax.Array]] = []
        for first in range(0, num_hands, b):
            out = _rollout_chunk(
                env,
                policies,
                b,
                pkey,
                seed,
                jnp.uint32(first),
                jnp.int32(dealer),
                jnp.asarray(seat_policy),
            )
            parts.append(out)
            if progress is not None:
                jax.block_until_ready(out["decisions"])
                progress(min(first + b, num_hands), num_hands)
        f = {k: np.concatenate([np.asarray(p[k]) for p in parts])[:num_hands] for k in parts[0]}
    return RolloutResult(
        rewards=f["rewards"],
        tricks_won=f["tricks_won"],
        winner=np.full(num_hands, -1, np.int32),
        decisions=f["decisions"],
        jinked=f["jinked"],
        jink_won=f["jink_won"],
        robbed=f["robbed"],
        robber=f["robber"],
        carried_out=np.zeros(num_hands, np.int32),
        seconds=time.perf_counter() - start,
        game=env.id,
        team_points=f["team_points"],
        bid=f["bid"],
        bidder=f["bidder"],
    )


def hands_won(result: RolloutResult) -> np.ndarray:
    """bool[H, N]: the seat's team scored more points in the hand than every other team."""
    assert result.team_points is not None
    pts = result.team_points
    t = pts.shape[1]
    team = np.arange(result.rewards.shape[1]) % t
    others = np.stack([np.delete(pts, i, axis=1).max(1) for i in range(t)], axis=1)  # [H, T]
    return (pts > others)[:, team]


# ------------------------------------------------------------------------ scoring hands


def _deck_layout(num_players: int, rules: Any) -> np.ndarray:
    """int32[N, K]: for the query seat at offset o from the eldest hand (row o), what goes to
    each of the K deck positions a deal reads: known card i (-1 - i), the turn-up (``_TURNUP``)
    or the next unseen card (0, 1, ...)."""
    n = num_players
    size = game.deck_prefix(n, rules)
    positions = core.deal_positions(n, game._core_rules(rules))
    out = np.zeros((n, size), np.int32)
    for o in range(n):
        row = np.full(size, -100, np.int32)
        for i, p in enumerate(positions[o]):
            row[p] = -1 - i
        if not rules.auction:
            row[5 * n] = _TURNUP
        free = row == -100
        row[free] = np.arange(int(free.sum()))
        out[o] = row
    return out


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _score_chunk(
    env: FortyFive,
    policies: tuple[PolicyFn, ...],
    size: int,
    key: jax.Array,
    first: jax.Array,
    hands: jax.Array,
    turnup: jax.Array,
    seat: jax.Array,
    num_rollouts: jax.Array,
    seat_policy: jax.Array,
) -> tuple[jax.Array, jax.Array]:
    """Rollouts ``first .. first + size - 1`` (query = id // num_rollouts): per rollout the
    points and the tricks of the query seat's team."""
    n, rules = env.num_players, env.rules
    t = num_teams(n)
    deck_size = rules.deck_size
    layout = jnp.asarray(_deck_layout(n, rules))
    ids = _shard_batch(first + jnp.arange(size, dtype=jnp.uint32))
    q = jnp.minimum(ids // num_rollouts.astype(jnp.uint32), hands.shape[0] - 1).astype(jnp.int32)
    deal_keys, play_keys = _hand_keys(key, ids)

    def one(q: jax.Array, deal_key: jax.Array, play_key: jax.Array) -> tuple[jax.Array, jax.Array]:
        me, known, up = seat[q], hands[q], turnup[q]
        seen = jnp.zeros(deck_size, jnp.bool_).at[known].set(True)
        if not rules.auction:
            seen = seen.at[up].set(True)
        perm = jax.random.permutation(deal_key, deck_size)
        unseen = perm[jnp.argsort(seen[perm], stable=True)]  # the unseen cards, shuffled, first
        idx = layout[(me - 1) % n]  # the dealer is seat 0: seat s is offset s - 1
        deck = jnp.where(
            idx >= 0,
            unseen[jnp.maximum(idx, 0)],
            jnp.where(idx == _TURNUP, up, known[jnp.clip(-1 - idx, 0, 4)]),
        )
        state = game.deal_from_deck(deck, jnp.int32(0), jnp.zeros(t, jnp.int32), n, rules)
        state = _play_hand(env, policies, seat_policy, play_key, state)
        team = me % t
        return state.hand_points[team], game.team_totals(state.tricks_won, n)[team]

    return jax.vmap(one)(q, deal_keys, play_keys)


def _validate_queries(
    env: FortyFive, hands: Any, turnup: Any, seat: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, rules = env.num_players, env.rules
    h = np.asarray(hands)
    if h.ndim == 1:
        h = h[None]
    if h.ndim != 2 or h.shape[1] != 5 or h.shape[0] < 1:
        raise ValueError(f"hands must have shape (Q, 5), got {np.shape(hands)}")
    if not np.issubdtype(h.dtype, np.integer):
        raise ValueError(f"hands must hold integer card ids, got dtype {h.dtype}")
    q = h.shape[0]
    bad = h[(h < 0) | (h >= rules.deck_size)]
    if bad.size:
        what = "0..52 (52 = the joker)" if rules.joker else "0..51 (no joker in these rules)"
        raise ValueError(f"hands holds card ids outside {what}: {sorted(set(bad.tolist()))}")
    if rules.auction:
        if turnup is not None:
            raise ValueError("Auction Forty-Fives has no turn-up: pass turnup=None")
        t = np.zeros(q, np.int32)
    else:
        if turnup is None:
            raise ValueError("turnup is required (the card whose suit is trump)")
        t = np.broadcast_to(np.asarray(turnup), (q,))
        if not np.issubdtype(t.dtype, np.integer):
            raise ValueError("turnup must be integer card ids")
        bad = t[(t < 0) | (t >= JOKER)]
        if bad.size:
            raise ValueError(
                f"turnup must be a card id 0..51 (a turned-up joker goes to the dealer and the "
                f"next card is turned up), got {sorted(set(bad.tolist()))}"
            )
    s = np.broadcast_to(np.asarray(seat), (q,))
    if not np.issubdtype(s.dtype, np.integer):
        raise ValueError("seat must be integers")
    for i in range(q):
        row = h[i].tolist()
        if len(set(row)) != 5:
            raise ValueError(f"query {i}: duplicate cards in the hand {row}")
        if not rules.auction and int(t[i]) in row:
            raise ValueError(f"query {i}: the turn-up {card_text(int(t[i]))} is also in the hand")
    if ((s < 0) | (s >= n)).any():
        raise ValueError(f"seat must be 0..{n - 1} (dealer = seat 0), got {s.tolist()}")
    return h.astype(np.int32), t.astype(np.int32), s.astype(np.int32)


def score_hands(
    key: jax.Array | int,
    env: FortyFive,
    hands: Any,
    turnup: Any,
    seat: Any,
    policy: Any = "random",
    num_rollouts: int = 1000,
    batch_size: int | None = None,
    threshold: int = 15,
) -> FamilyScores:
    """``spoilfive_jax.score_hands`` for the Forty-Five family (see ``FamilyScores``)."""
    if isinstance(num_rollouts, bool) or int(num_rollouts) < 2:
        raise ValueError(f"num_rollouts must be an integer >= 2, got {num_rollouts!r}")
    r = int(num_rollouts)
    h, t, s = _validate_queries(env, hands, turnup, seat)
    policies, seat_policy = resolve(policy, env.num_players, env.rules)
    key = jax.random.PRNGKey(int(key)) if isinstance(key, (int, np.integer)) else key
    total = h.shape[0] * r
    size = batch_for(int(batch_size or default_batch_size()), total)
    points, tricks = [], []
    for first in range(0, total, size):
        p, k = _score_chunk(
            env,
            policies,
            size,
            key,
            jnp.uint32(first),
            jnp.asarray(h),
            jnp.asarray(t),
            jnp.asarray(s),
            jnp.int32(r),
            jnp.asarray(seat_policy),
        )
        points.append(np.asarray(p))
        tricks.append(np.asarray(k))
    pts, trk = (np.concatenate(x)[:total].reshape(-1, r) for x in (points, tricks))
    means, ses = query_stats([pts, pts >= threshold, trk])
    return FamilyScores(
        expected_points=means[0],
        reach_prob=means[1],
        expected_tricks=means[2],
        expected_points_se=ses[0],
        reach_prob_se=ses[1],
        expected_tricks_se=ses[2],
        num_rollouts=r,
        threshold=int(threshold),
        game=env.id,
    )


__all__ = [
    "SUPPORTED",
    "builtin_kinds",
    "greedy_policy",
    "hands_won",
    "heuristic_policy",
    "resolve",
    "rollout",
    "score_hands",
]
