"""Spoil Five's answers to the generic tools (the hooks in ``SpoilFive``'s tools block).

Randomness is counter-based: hand ``i`` of a run with key ``k`` is dealt from a hash of
(seed(k), i) (``fast.random_cards``), whatever the policies, the batch or the devices.  Built-in
policies play on the fast kernel (``fast``; the random player hashes (seed, i, decision));
any other policy plays the same deals on the public ``State`` through ``SpoilFive.step``.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.spoil_five.fast as fast
import spoilfive_jax.games.spoil_five.game as game
import spoilfive_jax.games.spoil_five.presentation as presentation
import spoilfive_jax.games.spoil_five.view as view
from spoilfive_jax.core import generic
from spoilfive_jax.core.cards import NUM_CARDS, card_symbol
from spoilfive_jax.core.keys import hand_keys as counter_keys
from spoilfive_jax.core.stats import RunStats, Values, array_module
from spoilfive_jax.core.validate import as_key, check_int, table_labels
from spoilfive_jax.games.spoil_five.fast import I32, U32, Outcome
from spoilfive_jax.games.spoil_five.policies import heuristic_position
from spoilfive_jax.games.spoil_five.rules import Rules
from spoilfive_jax.tools.policies import choose_batch, on_kernel

OUTCOME_FIELDS = tuple(f for f in Outcome._fields if f != "done")
_KERNEL_POLICIES = ("random", "heuristic")  # the built-ins the kernel chooses for itself


def score_unit(env: Any) -> str:
    """Rewards are chips."""
    return "chips"


def deal_options(env: Any, dealer: Any = 0, carried: Any = 0, **options: Any) -> dict[str, int]:
    """``dealer`` deals every hand and ``carried`` chips from spoiled hands are in its pot."""
    out = generic.deal_options(env, dealer, **options)
    if isinstance(carried, bool):
        raise ValueError(f"carried must be an integer, got {carried!r}")
    check_int("carried", carried, 0, None)
    return {**out, "carried": int(carried)}


def score_threshold(env: Any) -> int | None:
    """Spoil Five's scores take no threshold."""
    return None


class Deal(NamedTuple):
    """A batch of deals: the deck tops (5N+1 card ids, lists of int32[B], the turn-up last),
    their strength positions when already known, the dealer and the carried pot."""

    cards: list[jax.Array]
    positions: list[jax.Array] | None
    dealer: jax.Array  # int32[B]
    carried: jax.Array  # int32[B]


def max_decisions(num_players: int) -> int:
    """The most decisions a hand can take: a rob, 5 tricks of N cards, a jink decision."""
    return 5 * num_players + 2


def rollout_keys(env: Any, key: jax.Array) -> tuple[jax.Array]:
    """(the uint32 seed of the counter hash,) of a run: the kernel's deals and draws and the
    policies' counter keys (``hand_keys``); ``key`` anything but a PRNG key or an int seed is a
    ``ValueError`` naming it (``as_key``), for every tool."""
    k1, _ = jax.random.split(as_key(key))  # (the seed of the runs before the counter keys)
    return (jax.random.bits(k1, (), U32),)


def rollout_deal(env: Any, keys: Any, ids: jax.Array, options: dict[str, jax.Array]) -> Deal:
    n = env.num_players
    cards, positions = fast.random_cards(keys[0], ids, 5 * n + 1)
    b = ids.shape
    return Deal(
        cards,
        positions,
        jnp.broadcast_to(options["dealer"], b),
        jnp.broadcast_to(options["carried"], b),
    )


def known_deal(
    env: Any,
    keys: Any,
    ids: jax.Array,
    hands: jax.Array,
    turnup: jax.Array,
    seat: jax.Array,
) -> Deal:
    n, rules = env.num_players, env.rules
    dealer = jnp.zeros_like(seat)
    cards = fast.cards_with_known(keys[0], ids, hands, seat, turnup, dealer, n, rules)
    return Deal(cards, None, dealer, jnp.zeros_like(seat))


def deal_states(env: Any, deal: Deal) -> game.State:
    n, rules = env.num_players, env.rules
    deck = jnp.stack(deal.cards, axis=-1)
    return jax.vmap(lambda d, dl, c: game.deal_from_deck(d, dl, c, n, rules))(
        deck, deal.dealer, deal.carried
    )


def hand_keys(env: Any, keys: Any, ids: jax.Array) -> jax.Array:
    """Counter keys (``core.keys``) on the kernel's seed: decision ``t`` of hand ``id`` draws
    ``mix(seed, id, t)`` first, the kernel's own draw, so the built-in random as a callable
    plays the kernel's hands."""
    return counter_keys(keys[0], ids)


def outcome(env: Any, state: game.State, rewards: jax.Array) -> dict[str, jax.Array]:
    """What a rollout keeps of one finished hand (``RolloutResult``)."""
    jinked = state.jinker >= 0
    return {
        "rewards": rewards,  # net chips of the hand per seat
        "tricks_won": state.tricks_won,
        "winner": state.winner,  # the seat that took the pot, -1 if spoiled or a jink failed
        "decisions": state._step_count,
        "jinked": jinked,
        "jink_won": jinked & (state.winner == state.jinker),
        "robbed": state.robbed,
        "robber": state.robber,  # the seat entitled to rob, -1 if nobody
        "carried_out": state.carried_out,  # chips carried to the next hand
    }


# ------------------------------------------------------------------------ the fast kernel


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
        u = fast.mix(seed, ids, t.astype(U32))
        out = fast.random_choice(l_lo, l_hi, u, fast.MAX_LEGAL)
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


def rollout_kernel(env: Any, names: tuple[str | None, ...], policies: tuple[Any, ...] = ()) -> Any:
    """The fast kernel of a lineup (``RolloutKernel``): the built-in ``"random"`` and
    ``"heuristic"`` play on ``play_fast``; any other lineup on ``view.play`` (its policies read
    the public ``State`` built from the kernel's layout)."""
    n, rules = env.num_players, env.rules
    if not set(names) <= set(_KERNEL_POLICIES):
        return _view_kernel(env, names, policies) if policies else None
    is_heuristic = np.array([name == "heuristic" for name in names])
    kinds = frozenset(name for name in names if name is not None)

    def kernel(
        deal: Deal, keys: Any, ids: jax.Array, seat_policy: jax.Array
    ) -> dict[str, jax.Array]:
        out = play_fast(
            keys[0],
            ids,
            deal.cards,
            deal.dealer,
            deal.carried,
            _heuristic_seats(is_heuristic, seat_policy),
            n,
            rules,
            kinds,
            deal.positions,
        )
        return {f: getattr(out, f) for f in OUTCOME_FIELDS}

    return kernel


def _heuristic_seats(is_heuristic: np.ndarray, seat_policy: jax.Array) -> jax.Array:
    """int32[]: bit s set where seat s plays the heuristic (``is_heuristic`` bool[P] by policy,
    ``seat_policy`` int32[N] each seat's policy)."""
    weights = jnp.left_shift(1, jnp.arange(seat_policy.shape[0], dtype=I32))
    return jnp.where(jnp.asarray(is_heuristic)[seat_policy], weights, 0).sum()


def _view_kernel(env: Any, names: tuple[str | None, ...], policies: tuple[Any, ...]) -> Any:
    """``view.play`` of ``policies`` as a ``RolloutKernel`` kernel.  The seats of the lineup's
    built-in policies choose on the kernel itself (``_choose_fast``, as ``play_fast`` does:
    the same actions as the policies on the public ``State``, which the view tests check hand
    by hand), so that a user's policy against the heuristic does not build the public view
    for the heuristic, which would then rebuild the kernel's from it."""
    n, rules = env.num_players, env.rules
    builtin = np.array([name in _KERNEL_POLICIES for name in names])
    is_heuristic = np.array([name == "heuristic" for name in names])
    kinds = frozenset(name for name in names if name in _KERNEL_POLICIES)
    users = tuple(on_kernel if b else p for b, p in zip(builtin, policies, strict=True))
    choose = functools.partial(choose_batch, users)

    def kernel(
        deal: Deal, keys: Any, ids: jax.Array, seat_policy: jax.Array
    ) -> dict[str, jax.Array]:
        hand = hand_keys(env, keys, ids)
        native = None
        if kinds:
            heuristic_seats = _heuristic_seats(is_heuristic, seat_policy)
            mine = jnp.asarray(builtin)[seat_policy]  # bool[N]: the seats of built-ins

            def native(h: fast.Hands, table: fast.Table, t: jax.Array) -> Any:
                pos = _choose_fast(h, table, keys[0], ids, t, heuristic_seats, kinds, rules)
                action = jnp.asarray(fast.CARD)[table.trump, pos]
                return action, mine[fast.get(h.status, fast._F_CUR)]

        return view.play(
            deal.cards,
            deal.positions,
            deal.dealer,
            deal.carried,
            hand,
            choose,
            seat_policy,
            n,
            rules,
            native,
        )

    return kernel


# ------------------------------------------------------------------------ results


def hand_values(env: Any, record: dict[str, Any]) -> Values:
    """Averaged: ``win`` [H, N] (the seat took the pot), ``spoil`` [H] (nobody did, and no
    jink failed), ``chips`` [H, N]; counted: decisions, jinks, jinks won, robs."""
    xp = array_module(record["rewards"])
    winner = record["winner"]
    averaged = {
        "win": winner[:, None] == xp.arange(record["rewards"].shape[1]),
        "spoil": (winner < 0) & ~record["jinked"],
        "chips": record["rewards"],
    }
    return averaged, {f: record[f] for f in ("decisions", "jinked", "jink_won", "robbed")}


def summary_from_stats(env: Any, stats: RunStats, seconds: float) -> dict[str, Any]:
    """Win rate per seat, spoil and jink rates, mean chips per seat, with standard errors."""
    t = stats.totals
    return {
        "hands": stats.hands,
        "decisions": int(t["decisions"]),
        "win_rate": stats.mean("win"),
        "win_rate_se": stats.se("win"),
        "spoil_rate": float(stats.mean("spoil")),
        "spoil_rate_se": float(stats.se("spoil")),
        "jink_rate": float(stats.share("jinked")),
        "jink_success_rate": float(t["jink_won"] / max(t["jinked"], 1)),
        "rob_rate": float(stats.share("robbed")),
        "mean_chips": stats.mean("chips"),
        "mean_chips_se": stats.se("chips"),
        "mean_decisions": float(stats.share("decisions")),
        "hands_per_s": stats.hands / seconds if seconds else float("nan"),
    }


def hands_won(env: Any, result: Any) -> Any:
    """bool[H, N]: the seat took the pot."""
    return result.winner[:, None] == np.arange(result.rewards.shape[1])


# ------------------------------------------------------------------------ the scorer


@dataclasses.dataclass(frozen=True)
class HandScores:
    """Monte Carlo estimates for Q query hands (float32[Q] each) and their standard errors."""

    win_prob: np.ndarray  # the seat takes the pot
    spoil_prob: np.ndarray  # nobody takes the pot (a spoil or a failed jink)
    expected_chips: np.ndarray  # mean net chips of the seat for the hand
    win_prob_se: np.ndarray
    spoil_prob_se: np.ndarray
    expected_chips_se: np.ndarray
    num_rollouts: int

    def table(self, hands: Any = None) -> str:
        """A text table, one row per query (cards shown when ``hands`` is given)."""
        lines = [f"{'hand':<18} {'win %':>13} {'spoil %':>13} {'chips':>15}"]
        hands = table_labels(hands, self.win_prob.shape[0])
        for q in range(self.win_prob.shape[0]):
            label = " ".join(card_symbol(int(c)) for c in hands[q]) if hands is not None else str(q)
            lines.append(
                f"{label:<18} {100 * self.win_prob[q]:6.2f} ± {100 * self.win_prob_se[q]:4.2f}"
                f" {100 * self.spoil_prob[q]:6.2f} ± {100 * self.spoil_prob_se[q]:4.2f}"
                f" {self.expected_chips[q]:+7.3f} ± {self.expected_chips_se[q]:5.3f}"
            )
        return "\n".join(lines)


def check_turnup(env: Any, hands: np.ndarray, turnup: Any) -> np.ndarray:
    """Card ids 0..51; a turn-up (one or one per query) that is in no query hand."""
    if turnup is None:
        raise ValueError("turnup is required (the card whose suit is trump)")
    t = np.broadcast_to(np.asarray(turnup), hands.shape[:1])
    if not np.issubdtype(t.dtype, np.integer):
        raise ValueError(f"turnup must be integer card ids, got {turnup!r}")
    for name, arr in (("hands", hands), ("turnup", t)):
        bad = arr[(arr < 0) | (arr >= NUM_CARDS)]
        if bad.size:
            raise ValueError(f"{name} holds card ids outside 0..51: {sorted(set(bad.tolist()))}")
    for i, up in enumerate(t.tolist()):
        if up in hands[i].tolist():
            raise ValueError(f"query {i}: the turn-up {card_symbol(up)} is also in the hand")
    return t


def query_samples(env: Any, out: dict[str, jax.Array], seat: jax.Array) -> tuple[jax.Array, ...]:
    """Per rollout, the query seat's (won, spoiled, chips)."""
    chips = jnp.take_along_axis(out["rewards"], seat[:, None], axis=1)[:, 0]
    return out["winner"] == seat, out["winner"] < 0, chips


# The scores' words (the score command's records and table) are written with the game's other
# words (presentation.py) and declared here, with the scorer they present.
has_turnup = presentation.has_turnup
score_records = presentation.score_records
score_report = presentation.score_report


def query_values(env: Any, samples: Any, **options: Any) -> tuple[Any, ...]:
    """The samples themselves: (won, spoiled, chips)."""
    return tuple(samples)


def scores_from_moments(
    env: Any, means: list[np.ndarray], ses: list[np.ndarray], num_rollouts: int, **options: Any
) -> HandScores:
    return HandScores(means[0], means[1], means[2], ses[0], ses[1], ses[2], num_rollouts)
