"""The Forty-Five family's answers to the generic tools (the hooks in ``FortyFive``'s tools
block): how ``sf.rollout``, ``sf.score_hands`` and ``sf.evaluate`` deal and play a hand of
Forty-Five, Twenty-Five or Auction Forty-Fives, and what they keep and report of it.

Hands are independent: each is dealt afresh at a new game (team scores zero) with the dealer
given, played out, and scored as the family scores it (``game.hand_points``).  Randomness is
counter-based: hand ``i`` of a run with key ``k`` is dealt from a hash of (seed(k), i)
(``fast.random_deck``), whatever the policies, the batch or the devices.  Built-in policies
(``"random"``, ``"greedy"``, ``"heuristic"``, any mix by seat) play on the family's rollout
kernel (``fast``; its random player hashes (seed, i, decision)); any other policy plays the
same deals on the public ``State`` through ``FortyFive.step``, decision ``t`` of hand ``i``
keyed by ``fold_in(fold_in(k2, i), t)`` (``k2`` the policy half of ``k``).  The greedy and
heuristic players choose alike on both paths.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.fast as fast
import spoilfive_jax.games.forty_five.fast_play as fp
import spoilfive_jax.games.forty_five.game as game
import spoilfive_jax.games.forty_five.presentation as presentation
import spoilfive_jax.games.forty_five.strength as sx
import spoilfive_jax.games.forty_five.view as view
from spoilfive_jax.core import generic
from spoilfive_jax.core.cards import card_symbol
from spoilfive_jax.core.deal import deal_positions
from spoilfive_jax.core.keys import hand_keys as counter_keys
from spoilfive_jax.core.packed import get
from spoilfive_jax.core.stats import RunStats, Values, array_module
from spoilfive_jax.core.validate import as_key, table_labels
from spoilfive_jax.games.forty_five.game import JOKER, NUM_TRICKS, State
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams
from spoilfive_jax.tools.policies import choose_batch, on_kernel

_TURNUP = -6  # deck-layout marker: the turn-up (known cards are -1..-5, unseen cards 0..)


# ------------------------------------------------------------------------ deals and the kernel


def score_unit(env: Any) -> str:
    """Rewards are points (the seat's team's)."""
    return "points"


def deal_options(env: Any, dealer: Any = 0, carried: Any = 0, **options: Any) -> dict[str, int]:
    """``dealer`` deals every hand (each at a new game).  ``carried`` is Spoil Five's."""
    if not isinstance(carried, (int, np.integer)) or isinstance(carried, bool) or carried:
        raise ValueError("carried is Spoil Five's pot; the Forty-Five family has none")
    return generic.deal_options(env, dealer, **options)


def score_threshold(env: Any) -> int | None:
    """A score's ``p_above``: the chance of 15 points or more."""
    return 15


class Deal(NamedTuple):
    """A batch of deals: the decks in deal order and the dealers."""

    deck: jax.Array  # int32[K, B]: card ids, deck[0] first (K = ``game.deck_prefix``)
    dealer: jax.Array  # int32[B]


def rollout_keys(env: Any, key: jax.Array) -> tuple[jax.Array]:
    """(the uint32 seed of the counter hash,) of a run: the kernel's deals and draws and the
    policies' counter keys (``hand_keys``); ``key`` anything but a PRNG key or an int seed is a
    ``ValueError`` naming it (``as_key``), for every tool."""
    k1, _ = jax.random.split(as_key(key))  # (the seed of the runs before the counter keys)
    return (jax.random.bits(k1, (), fast.U32),)


def rollout_deal(env: Any, keys: Any, ids: jax.Array, options: dict[str, jax.Array]) -> Deal:
    """Hand ``i`` dealt from ``fast.random_deck(seed, i)``: the decks the kernel deals."""
    n, rules = env.num_players, env.rules
    deck = fast.random_deck(keys[0], ids, game.deck_prefix(n, rules), rules.deck_size)
    return Deal(deck, jnp.broadcast_to(options["dealer"], ids.shape).astype(jnp.int32))


def deal_states(env: Any, deal: Deal) -> State:
    n, rules = env.num_players, env.rules
    scores = jnp.zeros(num_teams(n), jnp.int32)
    return jax.vmap(lambda d, dl: game.deal_from_deck(d, dl, scores, n, rules))(  # type: ignore[no-any-return]
        deal.deck.T, deal.dealer
    )


def hand_keys(env: Any, keys: Any, ids: jax.Array) -> jax.Array:
    """The counter keys ``core.keys.hand_keys(seed, ids)`` of the run's counter seed: decision
    ``t`` of hand ``id`` draws the kernel's own number ``mix(seed, id, t)`` first, and a
    policy's ``jax.random`` call costs a hash, not threefry."""
    return counter_keys(keys[0], ids)


def rollout_kernel(env: Any, names: tuple[str | None, ...], policies: tuple[Any, ...] = ()) -> Any:
    """The family's rollout kernel of a lineup (``RolloutKernel``): the built-in
    ``"random"``, ``"greedy"`` and ``"heuristic"`` play whole hands on ``fast.play_hands``; any
    other lineup plays its tricks on the kernel through ``view.finish`` (its policies read the
    public ``State`` built from the kernel's layout; the phases before the play on the public
    step)."""
    n, rules = env.num_players, env.rules
    if not set(names) <= set(fast.KINDS):
        return _view_kernel(env, names, policies) if policies else None
    kind_of = np.array([fast.KINDS.index(name) for name in names], np.int32)
    kinds = frozenset(kind_of.tolist())
    team = game.team_of(n)

    def kernel(
        deal: Deal, keys: Any, ids: jax.Array, seat_policy: jax.Array
    ) -> dict[str, jax.Array]:
        seat_kinds = _seat_kinds(kind_of, seat_policy)
        # A per-hand dealer XLA cannot fold back to a scalar: with a broadcast scalar dealer,
        # the seat arithmetic of the Auction loops compiles to code several times slower.
        dealer = jax.lax.optimization_barrier(deal.dealer)
        out = fast.play_hands(keys[0], ids, dealer, seat_kinds, n, rules, kinds, deck=deal.deck)
        assert isinstance(out, fast.Outcome)
        return {
            "rewards": out.team_points[:, team].astype(jnp.float32),
            "team_points": out.team_points,
            "tricks_won": out.tricks_won,
            "decisions": out.decisions,
            "jinked": out.jinked,
            "jink_won": out.jink_won,
            "robbed": out.robbed,
            "robber": out.robber,
            "bid": out.bid,
            "bidder": out.bidder,
        }

    return kernel


def _seat_kinds(kind_of: np.ndarray, seat_policy: jax.Array) -> jax.Array:
    """int32[]: ``fast.KIND_BITS`` a seat, its policy's ``fast.KINDS`` index (``kind_of``
    int32[P] by policy, ``seat_policy`` int32[N] each seat's policy)."""
    shifts = fast.KIND_BITS * jnp.arange(seat_policy.shape[0], dtype=jnp.int32)
    return jnp.left_shift(jnp.asarray(kind_of)[seat_policy], shifts).sum()


def _view_kernel(env: Any, names: tuple[str | None, ...], policies: tuple[Any, ...]) -> Any:
    """``view.finish`` of ``policies`` as a ``RolloutKernel`` kernel: the records of
    ``outcome``, hand by hand those of the public step.  In the tricks, the seats of the
    lineup's built-in policies choose on the kernel itself (``fast_play.choose_play``, whose
    choices are the public policies', tested: the random's from the hand's counter key, the
    kernel's own draw), not through their callables on the public view, which rebuild the
    kernel's view from it."""
    n, rules = env.num_players, env.rules
    choose = functools.partial(choose_batch, policies)
    step_one = view.step_before_play(env)
    native = np.array([name in fast.KINDS for name in names])
    kind_of = np.array([fast.KINDS.index(x) if x in fast.KINDS else 0 for x in names], np.int32)
    kinds = frozenset(int(k) for k, b in zip(kind_of, native, strict=True) if b)
    users = tuple(on_kernel if b else p for b, p in zip(native, policies, strict=True))

    def kernel(
        deal: Deal, keys: Any, ids: jax.Array, seat_policy: jax.Array
    ) -> dict[str, jax.Array]:
        states = deal_states(env, deal)
        hand = hand_keys(env, keys, ids)
        in_play = None
        if kinds:
            seat_kinds = _seat_kinds(kind_of, seat_policy)
            # (the random draws the hand keys' numbers: ``mix(seed, id, t)``, ``hand_keys``)
            chooser = fp.Chooser(keys[0], ids, seat_kinds, kinds)
            mine = jnp.asarray(native)[seat_policy]  # bool[N]: the seats chosen on the kernel

            def on_kernel_seats(
                p: fp.Play, table: fp.Table, t: jax.Array
            ) -> tuple[jax.Array, jax.Array]:
                pos = fp.choose_play(p, table, chooser, t, n, rules)
                action = jnp.asarray(sx.tables(rules)[1])[table.trump, pos]
                return action, mine[get(p.status, fp._F_CUR)]

            in_play = (functools.partial(choose_batch, users), on_kernel_seats)
        final, _ = view.finish(states, hand, choose, seat_policy, step_one, rules, in_play)
        records = jax.vmap(lambda s: outcome(env, s, s.rewards))(final)
        return {**records, "illegal": final.illegal}

    return kernel


# ------------------------------------------------------------------------ rollouts


def outcome(env: Any, state: State, rewards: jax.Array) -> dict[str, jax.Array]:
    """What a rollout keeps of one finished hand (``RolloutResult``): ``rewards`` the hand's
    points of each seat's team, ``team_points`` per team, an announced jink (``jink="announced"``)
    and whether its team took all five tricks, the turn-up's robbing, the Auction bid and bidder
    (0 and -1 elsewhere).  No pot and no single winner: those are Spoil Five's."""
    del rewards  # (the hand's points: ``state.hand_points``)
    num_players = env.num_players
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


def _team_won(pts: Any) -> Any:
    """bool[H, T]: the team scored more points in the hand than every other team."""
    xp = array_module(pts)
    t = pts.shape[1]
    others = [
        functools.reduce(xp.maximum, [pts[:, j] for j in range(t) if j != i]) for i in range(t)
    ]
    return pts > xp.stack(others, axis=1)


def hand_values(env: Any, record: dict[str, Any]) -> Values:
    """Averaged: ``points`` [H, N] (the seat's team's), ``team_points`` and ``team_won``
    [H, T]; counted: decisions, jinks, robs, each team's tricks [T] and their histogram
    ``team_tricks`` [T, 6], and the Auction's bids (hands with a bid, bids made, their sum)."""
    pts = record["team_points"]
    xp = array_module(pts)
    t = pts.shape[1]
    team = np.arange(record["rewards"].shape[1]) % t
    tricks = record["tricks_won"]
    team_tricks = xp.stack([tricks[:, np.flatnonzero(team == i)].sum(1) for i in range(t)], 1)
    on = record["bidder"] >= 0
    made = xp.take_along_axis(pts, (record["bidder"] % t)[:, None], axis=1)[:, 0] >= 0
    averaged = {"points": record["rewards"], "team_points": pts, "team_won": _team_won(pts)}
    counted = {
        **{f: record[f] for f in ("decisions", "jinked", "jink_won", "robbed")},
        "tricks": team_tricks,
        "team_tricks": team_tricks[:, :, None] == xp.arange(6),
        "bid_hands": on,
        "bids_made": on & made,
        "bid_total": xp.where(on, record["bid"], 0),
    }
    return averaged, counted


def summary_from_stats(env: Any, stats: RunStats, seconds: float) -> dict[str, Any]:
    """Mean points per seat and per team (with standard errors), the share of hands each team
    won (more points than every other team), the trick distribution (``team_tricks[t, k]``:
    share of hands in which team t took k of the five tricks), jink, rob and (Auction) bid
    rates."""
    t, hands = stats.totals, stats.hands
    bids = int(t["bid_hands"])
    return {
        "game": env.id,
        "hands": hands,
        "decisions": int(t["decisions"]),
        "mean_points": stats.mean("points"),
        "mean_points_se": stats.se("points"),
        "mean_team_points": stats.mean("team_points"),
        "mean_team_points_se": stats.se("team_points"),
        "team_win_rate": stats.mean("team_won"),
        "team_win_rate_se": stats.se("team_won"),
        "mean_team_tricks": stats.share("tricks"),
        "team_tricks": stats.share("team_tricks"),  # [T, 6]
        "jink_rate": float(stats.share("jinked")),
        "jink_success_rate": float(t["jink_won"] / max(t["jinked"], 1)),
        "rob_rate": float(stats.share("robbed")),
        "bid_made_rate": float(t["bids_made"] / bids) if bids else float("nan"),
        "mean_bid": float(t["bid_total"] / bids) if bids else float("nan"),
        "mean_decisions": float(stats.share("decisions")),
        "hands_per_s": hands / seconds if seconds else float("nan"),
    }


def hands_won(env: Any, result: Any) -> Any:
    """bool[H, N]: the seat's team scored more points in the hand than every other team."""
    team = np.arange(result.rewards.shape[1]) % result.team_points.shape[1]
    return _team_won(result.team_points)[:, team]


# ------------------------------------------------------------------------ scoring hands


@dataclasses.dataclass(frozen=True)
class FamilyScores:
    """``score_hands`` for the Forty-Five family: Monte Carlo estimates for Q query hands
    (float32[Q] each) and their standard errors.  Points are those of the query seat's TEAM for
    the one hand (what the family's ``rewards`` give the seat): 5 a trick plus the best-trump
    bonus (or Hoyle's 5/10), doubled by a successful jink, ``-bid`` for a failed Auction bid."""

    expected_points: np.ndarray  # mean points of the seat's team for the hand
    reach_prob: np.ndarray  # P(the seat's team scores >= ``threshold`` points in the hand)
    expected_tricks: np.ndarray  # mean tricks (of five) taken by the seat's team
    expected_points_se: np.ndarray
    reach_prob_se: np.ndarray
    expected_tricks_se: np.ndarray
    num_rollouts: int
    threshold: int = 15
    game: str = "forty_five"  # ``env.id``

    def table(self, hands: Any = None) -> str:
        """A text table, one row per query (cards shown when ``hands`` is given)."""
        reach = f"P(>={self.threshold}) %"
        lines = [f"{'hand':<18} {'points':>15} {reach:>13} {'tricks':>13}"]
        hands = table_labels(hands, self.expected_points.shape[0])
        for q in range(self.expected_points.shape[0]):
            cards = hands[q] if hands is not None else None
            label = str(q) if cards is None else " ".join(card_symbol(int(c)) for c in cards)
            lines.append(
                f"{label:<18} {self.expected_points[q]:+7.3f} ± {self.expected_points_se[q]:5.3f}"
                f" {100 * self.reach_prob[q]:6.2f} ± {100 * self.reach_prob_se[q]:4.2f}"
                f" {self.expected_tricks[q]:5.3f} ± {self.expected_tricks_se[q]:5.3f}"
            )
        return "\n".join(lines)


def _deck_layout(num_players: int, rules: FortyFiveRules) -> np.ndarray:
    """int32[N, K]: for the query seat at offset o from the eldest hand (row o), what goes to
    each of the K deck positions a deal reads: known card i (-1 - i), the turn-up (``_TURNUP``)
    or the next unseen card (0, 1, ...)."""
    n = num_players
    size = game.deck_prefix(n, rules)
    positions = deal_positions(n, rules)
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


def known_deal(
    env: Any,
    keys: Any,
    ids: jax.Array,
    hands: jax.Array,
    turnup: jax.Array,
    seat: jax.Array,
) -> Deal:
    """Deals (dealer seat 0, a new game) in which ``seat`` holds ``hands`` and sees ``turnup``;
    the unseen cards in the order of a counter-hash shuffle of (seed, id) (``fast.random_deck``
    of the whole deck, the seen cards taken out)."""
    n, rules = env.num_players, env.rules
    deck_size = rules.deck_size
    layout = jnp.asarray(_deck_layout(n, rules))
    perms = fast.random_deck(keys[0], ids, deck_size, deck_size).T  # int32[B, deck_size]

    def one(perm: jax.Array, known: jax.Array, up: jax.Array, me: jax.Array) -> jax.Array:
        seen = jnp.zeros(deck_size, jnp.bool_).at[known].set(True)
        if not rules.auction:
            seen = seen.at[up].set(True)
        unseen = perm[jnp.argsort(seen[perm], stable=True)]  # the unseen cards, shuffled, first
        idx = layout[(me - 1) % n]  # the dealer is seat 0: seat s is offset s - 1
        return jnp.where(
            idx >= 0,
            unseen[jnp.maximum(idx, 0)],
            jnp.where(idx == _TURNUP, up, known[jnp.clip(-1 - idx, 0, 4)]),
        )

    deck = jax.vmap(one)(perms, hands, turnup, seat)  # int32[B, K]
    return Deal(deck.T, jnp.zeros_like(seat))


def check_turnup(env: Any, hands: np.ndarray, turnup: Any) -> np.ndarray:
    """Card ids of the deck (the joker 52 when in play); a turn-up 0..51 in no query hand, or
    none in Auction (zeros come back)."""
    rules = env.rules
    bad = hands[(hands < 0) | (hands >= rules.deck_size)]
    if bad.size:
        what = "0..52 (52 = the joker)" if rules.joker else "0..51 (no joker in these rules)"
        raise ValueError(f"hands holds card ids outside {what}: {sorted(set(bad.tolist()))}")
    if rules.auction:
        if turnup is not None:
            raise ValueError("Auction Forty-Fives has no turn-up: pass turnup=None")
        return np.zeros(hands.shape[0], np.int32)
    if turnup is None:
        raise ValueError("turnup is required (the card whose suit is trump)")
    t = np.broadcast_to(np.asarray(turnup), hands.shape[:1])
    if not np.issubdtype(t.dtype, np.integer):
        raise ValueError(f"turnup must be integer card ids, got {turnup!r}")
    bad = t[(t < 0) | (t >= JOKER)]
    if bad.size:
        raise ValueError(
            f"turnup must be a card id 0..51 (a turned-up joker goes to the dealer and the "
            f"next card is turned up), got {sorted(set(bad.tolist()))}"
        )
    for i, up in enumerate(t.tolist()):
        if up in hands[i].tolist():
            raise ValueError(f"query {i}: the turn-up {card_symbol(up)} is also in the hand")
    return t


def query_samples(env: Any, out: dict[str, jax.Array], seat: jax.Array) -> tuple[jax.Array, ...]:
    """Per rollout, the points and the tricks of the query seat's team."""
    num_players = env.num_players
    t = num_teams(num_players)
    team = seat % t
    points = jnp.take_along_axis(out["team_points"], team[:, None], axis=1)[:, 0]
    tricks = jax.vmap(lambda w: game.team_totals(w, num_players))(out["tricks_won"])
    return points, jnp.take_along_axis(tricks, team[:, None], axis=1)[:, 0]


# The scores' words (the score command's records and table) are written with the game's other
# words (presentation.py) and declared here, with the scorer they present.
has_turnup = presentation.has_turnup
score_records = presentation.score_records
score_report = presentation.score_report


def query_values(env: Any, samples: Any, threshold: Any = 15, **options: Any) -> tuple[Any, ...]:
    """(points, points >= ``threshold``, tricks) of the query seat's team."""
    pts, trk = samples
    return pts, pts >= threshold, trk


def scores_from_moments(
    env: Any,
    means: list[np.ndarray],
    ses: list[np.ndarray],
    num_rollouts: int,
    threshold: int = 15,
    **options: Any,
) -> FamilyScores:
    return FamilyScores(
        expected_points=means[0],
        reach_prob=means[1],
        expected_tricks=means[2],
        expected_points_se=ses[0],
        reach_prob_se=ses[1],
        expected_tricks_se=ses[2],
        num_rollouts=num_rollouts,
        threshold=int(threshold),
        game=env.id,
    )


__all__ = ["Deal", "FamilyScores", "hand_values", "hands_won", "outcome", "rollout_kernel"]
