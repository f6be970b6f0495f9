"""Forty-Five family measurements (questions 8-10 of the strategy study)."""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax as sf
import spoilfive_jax.core.bits as bits
from spoilfive_jax.core import ranking, tricks
from spoilfive_jax.core.cards import TRUMP_STRENGTH
from spoilfive_jax.games.forty_five import game as fg
from study.common import (
    Progress,
    analyze_split,
    best_of,
    check_pairs,
    collect,
    grouped,
    hand_cards,
    mean_ci,
    policy_actions,
    policy_of,
    prop_ci,
    take,
)

_TS = jnp.asarray(TRUMP_STRENGTH)
FIVE = 13  # trump strength of the 5 of trumps
TOP = 11  # the A♥; the J of trumps is 12


def _hand(state: Any) -> jax.Array:
    cur = jnp.maximum(state.current_player, 0)
    return bits.to_bool(tricks.seat_bits(state.hands, cur), 52)


# ------------------------------------------------------------------------ Q8 the 5 of trumps


def _five_options(state: Any) -> tuple[jax.Array, jax.Array]:
    """(the 5 of trumps is a legal play, the other legal cards) for the player to act."""
    trump = jnp.maximum(state.trump, 0)
    legal = state.legal_action_mask[:52]
    five = legal & (_TS[trump] == FIVE)
    return five, legal & ~five


def _is_five_follow(state: Any, led: jax.Array) -> jax.Array:
    five, others = _five_options(state)
    cur = jnp.maximum(state.current_player, 0)
    following = (state.phase == fg.PHASE_PLAY) & (cur != state.leader)
    return following & five.any() & others.any()


def five_of_trumps(
    key: int,
    num_hands: int,
    num_samples: int,
    policy: Any = "heuristic",
    check: Any = None,
    check_positions: int = 0,
) -> dict[str, Any]:
    """Q8 (Forty-Five, 4 players): when following with the 5 of trumps and another card
    legal (positions reached by heuristic play), the points of the best other card over
    playing the 5, by who is winning the trick and whether the partner is still to play
    (``sf.analyze``, ``policy`` playouts).  ``check``: a second playout policy (e.g. pimc)
    re-valuing the two cards in the first ``check_positions`` positions."""
    env = sf.forty_five.FortyFive(4)
    pos, _, _, hands = collect(
        key, env, "heuristic", num_hands, _is_five_follow, progress=Progress("five")
    )
    sel, ev = analyze_split(key, env, pos, num_samples, policy)
    five, others = jax.vmap(_five_options)(jax.tree.map(jnp.asarray, pos))
    pick, val = sel.expected_points[:, :52], ev.expected_points[:, :52]
    five_card, play5 = best_of(pick, val, np.asarray(five))
    keep_card, keep = best_of(pick, val, np.asarray(others))
    gain = keep - play5
    cur = np.asarray(pos.current_player)
    partner = (cur + 2) % 4
    m = np.arange(cur.size)
    partner_winning = (np.asarray(pos.best_seat) % 2) == (cur % 2)
    partner_to_play = np.asarray(pos.trick_cards)[m, partner] < 0
    situation = np.where(
        partner_winning, 0, np.where(partner_to_play, 1, 2)
    )  # 0 partner winning, 1 opponent winning with partner to come, 2 opponent, partner done
    names = [
        "partner winning",
        "opponent winning, partner still to play",
        "opponent winning, partner has played",
    ]
    return {
        "hands": hands,
        "positions": int(gain.size),
        "gain_keep_five": mean_ci(gain),
        "keep_better": prop_ci(gain > 0),
        "by_situation": [
            {
                "group": names[k],
                **mean_ci(gain[situation == k]),
                "keep_better": prop_ci(gain[situation == k] > 0)["mean"],
            }
            for k in range(3)
        ],
        **check_pairs(key, env, pos, np.stack([five_card, keep_card], 1), gain, check,
                      check_positions, {names[k]: situation == k for k in range(3)}),
    }  # fmt: skip


# ------------------------------------------------------------------------ Q9 partner's suit


def _partner_suit_cards(state: Any, led: jax.Array) -> jax.Array:
    """bool[52]: the legal cards of the suit the partner last led (plain, not trump)."""
    cur = jnp.maximum(state.current_player, 0)
    suit = led[(cur + 2) % 4]
    trump = jnp.maximum(state.trump, 0)
    cards = jnp.arange(52)
    plain = _TS[trump] < 0
    return state.legal_action_mask[:52] & plain & (cards // 13 == suit) & (suit >= 0) & (suit < 4)


def _is_partner_lead(state: Any, led: jax.Array) -> jax.Array:
    cur = jnp.maximum(state.current_player, 0)
    leading = (state.phase == fg.PHASE_PLAY) & (cur == state.leader) & (state.trick_num >= 1)
    top = _hand(state) & (_TS[jnp.maximum(state.trump, 0)] >= TOP)
    suit_cards = _partner_suit_cards(state, led)
    others = state.legal_action_mask[:52] & ~suit_cards
    return leading & ~top.any() & suit_cards.any() & others.any()


def partner_suit(
    key: int,
    num_hands: int,
    num_samples: int,
    policy: Any = "heuristic",
    check: Any = None,
    check_positions: int = 0,
) -> dict[str, Any]:
    """Q9 (Forty-Five, 4 players): leading with no top trump after the partner has led a plain
    suit (positions reached by heuristic play): the points of leading the highest card of that
    suit over the heuristic's lead (its strongest plain card), (a) on the true deal (the
    partner's real holding, ``policy`` playouts: what the tip is worth to a player who can
    read the partner's lead) and (b) by ``sf.analyze`` (worlds resampled from the public record
    only: what pimc credits it with).  ``check``: as in ``five_of_trumps``."""
    env = sf.forty_five.FortyFive(4)
    pol = policy_of(env, policy)
    pos, _, hands, led = _collect_with_led(key, env, num_hands)
    dev = jax.tree.map(jnp.asarray, pos)
    suit_cards = np.asarray(jax.vmap(_partner_suit_cards)(dev, jnp.asarray(led)))
    strength = np.asarray(ranking.plain_strength(jnp.arange(52)))
    tip = np.where(suit_cards, strength[None, :], -1).argmax(1)
    base = policy_actions(policy_of(env, "heuristic"), pos)
    true_tip, true_base = (_true_value(env, pol, dev, a) for a in (tip, base))
    res = sf.analyze(key, env, pos, num_samples=num_samples, policy=pol)
    m = np.arange(tip.size)
    pts = res.expected_points
    same = tip == base
    return {
        "hands": hands,
        "positions": int(tip.size),
        "same_card_share": float(same.mean()) if tip.size else float("nan"),
        "true_gain": mean_ci(true_tip - true_base),
        "true_gain_when_different": mean_ci((true_tip - true_base)[~same]),
        "analysis_gain": mean_ci(pts[m, tip] - pts[m, base]),
        "analysis_gain_when_different": mean_ci((pts[m, tip] - pts[m, base])[~same]),
        **check_pairs(key, env, take(pos, np.flatnonzero(~same)),
                      np.stack([base, tip], 1)[~same], (pts[m, tip] - pts[m, base])[~same],
                      check, check_positions, {}),
    }  # fmt: skip


def _collect_with_led(key: int, env: Any, num_hands: int) -> tuple[Any, Any, int, np.ndarray]:
    """``collect`` for Q9 (positions, finals, hands, led-suit record)."""
    got = collect(key, env, "heuristic", num_hands, _is_partner_lead, progress=Progress("partner"))
    return got.positions, got.finals, got.hands, got.led


def _true_value(env: Any, pol: Any, states: Any, actions: np.ndarray) -> np.ndarray:
    """Points for the player to act of ``actions`` on the true deal (``pol`` playouts)."""
    out = _true_playout(env, pol, states, jnp.asarray(actions, jnp.int32))
    return np.asarray(out, np.float64)


@functools.partial(jax.jit, static_argnums=(0, 1))
def _true_playout(env: Any, pol: Any, states: Any, actions: jax.Array) -> jax.Array:
    keys = jax.random.split(jax.random.PRNGKey(7), actions.shape[0])
    player = jnp.maximum(states.current_player, 0)
    out = env.capability(sf.capabilities.Analysis).playout(
        env, keys, states, actions[:, None], player, pol
    )
    return out["expected_points"][:, 0]


# ------------------------------------------------------------------------ Q10 Auction bids


def _is_first_play(state: Any, led: jax.Array) -> jax.Array:
    cur = jnp.maximum(state.current_player, 0)
    return (state.phase == fg.PHASE_PLAY) & (state.trick_num == 0) & (cur == state.leader)


def auction_make_rates(key: int, num_hands: int, policy: Any = "heuristic") -> dict[str, Any]:
    """Q10 (Auction Forty-Fives, 4 players): how often the bidder's side makes its bid, by the
    bid and by the bidder's holding when play starts (after the draw), ``policy`` everywhere."""
    env = sf.forty_five.AuctionFortyFives(4)
    pos, _, final, hands = collect(
        key, env, policy, num_hands, _is_first_play, progress=Progress("auction")
    )
    bidder = np.asarray(pos.bidder)
    bid = np.asarray(pos.bid)
    m = np.arange(bidder.size)
    made = np.asarray(final.rewards)[m, bidder] >= 0
    held = hand_cards(np.asarray(pos.hands.lo), np.asarray(pos.hands.hi), bidder)
    strength = TRUMP_STRENGTH[np.asarray(pos.trump)]
    trumps = (held & (strength >= 0)).sum(1)
    five = (held & (strength == FIVE)).any(1)
    jack = (held & (strength == FIVE - 1)).any(1)
    label = np.where(five & jack, "5+J", np.where(five, "5", np.where(jack, "J", "no 5/J")))
    points = _raw_points(final, bidder)
    holdings = []
    for name in ("5+J", "5", "J", "no 5/J"):
        for k in (1, 2, 3, 4, 5):
            sel = (label == name) & (trumps == k)
            if sel.sum() >= 1:
                reach = {str(b): prop_ci(points[sel] >= b)["mean"] for b in (15, 20, 25, 30)}
                holdings.append(
                    {"holding": name, "trumps": k, **prop_ci(made[sel]), "reach": reach}
                )
    return {
        "hands": hands,
        "bids": int(bid.size),
        "make_rate": prop_ci(made),
        "by_bid": [
            {"group": b, **prop_ci(made[bid == b]), "share": float((bid == b).mean())}
            for b in (15, 20, 25, 30)
        ],
        "by_holding": holdings,
        "mean_trumps_by_bid": grouped(trumps.astype(float), bid, [15, 20, 25, 30]),
        "reach_any_bidder": {str(b): prop_ci(points >= b) for b in (15, 20, 25, 30)},
        "anchor": dict(ANCHOR),
    }


ANCHOR = {"15": 0.8065, "20": 0.5788, "25": 0.4175, "30": 0.2499}  # published, 1.1 M bids


def _raw_points(final: Any, bidder: np.ndarray) -> np.ndarray:
    """Points the bidder's side took in play (5 a trick, 5 for the best trump), before the
    bid is scored: what decides whether any bid 15..30 would have been made."""
    tricks = np.asarray(final.tricks_won)
    side = (np.arange(tricks.shape[1])[None, :] % 2) == (bidder[:, None] % 2)
    best = np.asarray(final.best_trump_seat)
    bonus = (best >= 0) & (best % 2 == bidder % 2)
    return 5 * (tricks * side).sum(1) + 5 * bonus
