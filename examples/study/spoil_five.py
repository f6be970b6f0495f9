"""Spoil Five measurements (questions 1-7 of the strategy study)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax as sf
import spoilfive_jax.core.bits as bits
from spoilfive_jax.core.cards import PLAIN_STRENGTH, TRUMP_STRENGTH
from spoilfive_jax.games.spoil_five import PASS
from spoilfive_jax.games.spoil_five import game as g
from spoilfive_jax.games.spoil_five.state import held
from study.common import (
    Progress,
    analyze_split,
    best_of,
    check_pairs,
    collect,
    grouped,
    mean_ci,
    policy_actions,
    prop_ci,
    quiet,
)

TOP = 11  # trump strength of the A♥; the 5 and J of trumps are 13 and 12
_TS = jnp.asarray(TRUMP_STRENGTH)  # int32[4, 52]: -1 for a plain card
_VALUE = np.where(TRUMP_STRENGTH >= 0, 16 + TRUMP_STRENGTH, PLAIN_STRENGTH[None, :])


# ------------------------------------------------------------------------ deals and holdings


def random_deals(seed: int, count: int, num_players: int) -> dict[str, np.ndarray]:
    """``count`` random (hand, turn-up, seat) queries: five cards, a turn-up, a seat 0..N-1
    (dealer = seat 0)."""
    rng = np.random.default_rng(seed)
    cards = np.argsort(rng.random((count, 52)), axis=1)[:, :6].astype(np.int32)
    seat = rng.integers(0, num_players, count).astype(np.int32)
    return {"hands": cards[:, :5], "turnup": cards[:, 5], "seat": seat}


def holding(hands: np.ndarray, turnup: np.ndarray) -> dict[str, np.ndarray]:
    """Per hand: trumps held (0..5) and top trumps held (5, J of trumps, A♥: 0..3)."""
    strength = TRUMP_STRENGTH[(turnup // 13)[:, None], hands]
    return {"trumps": (strength >= 0).sum(1), "top": (strength >= TOP).sum(1)}


# ------------------------------------------------------------------------ Q1


def win_by_holding(
    key: int, num_players: int, num_hands: int, policy: Any = "heuristic"
) -> dict[str, Any]:
    """Q1: the seat's chance to take the pot by top trumps held, trumps held and seat.

    ``num_hands`` random queries are each played out twice (``sf.score_hands``, every seat
    ``policy``), so the total is about ``num_hands`` hands."""
    q = max(num_hands // 2, 8)
    deals = random_deals(key, q, num_players)
    env = sf.spoil_five.SpoilFive(num_players)
    scores = sf.score_hands(
        key,
        deals["hands"],
        deals["turnup"],
        deals["seat"],
        env=env,
        policy=policy,
        num_rollouts=2,
    )
    win = np.asarray(scores.win_prob, np.float64)
    chips = np.asarray(scores.expected_chips, np.float64)
    hold = holding(deals["hands"], deals["turnup"])
    grid = [
        [mean_ci(win[(hold["top"] == t) & (hold["trumps"] == k)]) for k in range(6)]
        for t in range(4)
    ]
    return {
        "players": num_players,
        "hands": 2 * q,
        "overall": mean_ci(win),
        "by_top": grouped(win, hold["top"], [0, 1, 2, 3]),
        "chips_by_top": grouped(chips, hold["top"], [0, 1, 2, 3]),
        "by_trumps": grouped(win, hold["trumps"], [0, 1, 2, 3, 4, 5]),
        "by_seat": grouped(win, deals["seat"], list(range(num_players))),
        "by_top_and_trumps": grid,
    }


# ------------------------------------------------------------------------ Q2 robbing


def _is_rob(state: Any, led: jax.Array) -> jax.Array:
    return state.phase == g.PHASE_ROB


def rob_value(
    key: int,
    num_players: int,
    num_hands: int,
    num_samples: int,
    policy: Any = "heuristic",
    check: Any = None,
    check_positions: int = 0,
) -> dict[str, Any]:
    """Q2: at rob decisions from random deals, the chip value of the best rob over declining
    (PASS), how often declining is better, and which discard is best (``sf.analyze`` with
    ``policy`` playouts).  ``check``: a second playout policy (e.g. pimc) that re-values the
    best rob and PASS in the first ``check_positions`` positions (``check_gain``)."""
    env = sf.spoil_five.SpoilFive(num_players)
    pos, _, _, hands = collect(key, env, "heuristic", num_hands, _is_rob, progress=Progress("rob"))
    sel, ev = analyze_split(key, env, pos, num_samples, policy)
    legal = sel.legal[:, :52]
    best_card, rob_v = best_of(sel.expected_chips[:, :52], ev.expected_chips[:, :52], legal)
    chips, se = ev.expected_chips, ev.expected_chips_se
    m = np.arange(best_card.shape[0])
    pass_v = chips[:, sf.spoil_five.PASS]
    gain = rob_v - pass_v
    heur = policy_actions(sf.spoil_five.HEURISTIC, pos)
    heur_gain = chips[m, heur] - pass_v
    seat = pos.current_player
    held = _held(pos, seat)
    trumps = held_trumps(held, pos.trump)
    dealer_rob = seat == pos.dealer
    turnup_ace = (pos.turnup % 13) == 0
    sure = gain + 2 * np.maximum(se[m, best_card], se[:, sf.spoil_five.PASS]) < 0
    kind = _discard_kind(best_card, heur, pos.trump)
    return {
        "players": num_players,
        "hands": hands,
        "positions": int(m.size),
        "rob_rate_per_hand": prop_ci(np.arange(hands) < m.size)["mean"],
        "gain_best": mean_ci(gain),
        "gain_heuristic_discard": mean_ci(heur_gain),
        "decline_better": prop_ci(gain < 0),
        "decline_better_sure": prop_ci(sure),
        "decline_better_by_trumps": [
            {"group": k, **prop_ci(gain[trumps == k] < 0)} for k in range(1, 6)
        ],
        "gain_by_trumps": grouped(gain, trumps, [1, 2, 3, 4, 5]),
        "decline_better_ace_turned": prop_ci(gain[dealer_rob & turnup_ace] < 0),
        "decline_better_ace_held": prop_ci(gain[~(dealer_rob & turnup_ace)] < 0),
        "best_discard": {k: prop_ci(kind == k)["mean"] for k in _KINDS},
        "heuristic_discard_loss": mean_ci(rob_v - chips[m, heur]),
        **check_pairs(key, env, pos, np.stack([np.full_like(best_card, PASS), best_card], 1),
                 gain, check, check_positions, {"decline better": gain < 0}),
    }  # fmt: skip


_KINDS = ("heuristic's (weakest card)", "another plain card", "a trump")


def _discard_kind(best: np.ndarray, heur: np.ndarray, trump: np.ndarray) -> np.ndarray:
    is_trump = TRUMP_STRENGTH[trump, best] >= 0
    return np.where(best == heur, _KINDS[0], np.where(is_trump, _KINDS[2], _KINDS[1]))


def _held(pos: Any, seat: np.ndarray) -> np.ndarray:
    from study.common import hand_cards

    return hand_cards(np.asarray(pos.hands.lo), np.asarray(pos.hands.hi), np.asarray(seat))


def held_trumps(held: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """Trumps in each of M hands (bool[M, 52] cards held, trump suit int[M])."""
    return (held & (TRUMP_STRENGTH[trump] >= 0)).sum(1)


# ------------------------------------------------------------------------ Q3 reneging


def _renege_cards(state: Any) -> tuple[jax.Array, jax.Array]:
    """(top trumps the player may play that outrank the trump led, the other legal cards)."""
    strength = _TS[state.trump]
    cur = jnp.maximum(state.current_player, 0)
    hand = bits.to_bool(held(state, cur), 52)
    legal = state.legal_action_mask[:52]
    led_card = jnp.maximum(state.trick_cards[state.leader], 0)
    tops = hand & legal & (strength >= TOP) & (strength > strength[led_card])
    return tops, legal & ~tops


def _is_renege(state: Any, led: jax.Array) -> jax.Array:
    tops, others = _renege_cards(state)
    cur = jnp.maximum(state.current_player, 0)
    trump_lead = (state.phase == g.PHASE_PLAY) & (state.led_class == g.TRUMP_CLASS)
    return trump_lead & (cur != state.leader) & tops.any() & others.any()


def renege_value(
    key: int,
    num_players: int,
    num_hands: int,
    num_samples: int,
    policy: Any = "heuristic",
    check: Any = None,
    check_positions: int = 0,
) -> dict[str, Any]:
    """Q3: when a lower trump is led and a top trump may be withheld, the chip value of
    withholding (the best other legal card) over playing the top trump, by situation.
    ``check``/``check_positions``: as in ``rob_value``."""
    env = sf.spoil_five.SpoilFive(num_players)
    pos, _, _, hands = collect(
        key, env, "heuristic", num_hands, _is_renege, progress=Progress("renege")
    )
    sel, ev = analyze_split(key, env, pos, num_samples, policy)
    tops, others = jax.vmap(_renege_cards)(jax.tree.map(jnp.asarray, pos))
    tops, others = np.asarray(tops), np.asarray(others)
    pick, val = sel.expected_chips[:, :52], ev.expected_chips[:, :52]
    play_card, play = best_of(pick, val, tops)
    keep_card, withhold = best_of(pick, val, others)
    gain = withhold - play
    strength = TRUMP_STRENGTH[pos.trump]
    top_card = np.where(tops, strength, -1).max(1)
    plain_ok = (others & (strength < 0)).any(1)
    trick = np.asarray(pos.trick_num) + 1
    names = {13: "5", 12: "J", 11: "A♥"}
    return {
        "players": num_players,
        "hands": hands,
        "positions": int(gain.size),
        "gain_withhold": mean_ci(gain),
        "withhold_better": prop_ci(gain > 0),
        "by_trick": grouped(gain, trick, [1, 2, 3, 4, 5]),
        "withhold_better_by_trick": [
            {"group": t, **prop_ci(gain[trick == t] > 0)} for t in range(1, 6)
        ],
        "by_card": [{"group": names[v], **mean_ci(gain[top_card == v])} for v in (13, 12, 11)],
        "by_option": [
            {"group": "can throw a plain card", **mean_ci(gain[plain_ok])},
            {"group": "must play a lower trump", **mean_ci(gain[~plain_ok])},
        ],
        **check_pairs(key, env, pos, np.stack([play_card, keep_card], 1), gain, check,
                 check_positions, {"can throw a plain card": plain_ok,
                                   "must play a lower trump": ~plain_ok,
                                   "trick 1-2": trick <= 2, "trick 3-5": trick >= 3}),
    }  # fmt: skip


# ------------------------------------------------------------------------ Q4 spoiling


def spoiler(key: jax.Array, state: Any, player: jax.Array) -> jax.Array:
    """A spoil-oriented variant of the heuristic: when following, it only tries to win a trick
    that would otherwise go to a player on two tricks (or when it has two itself); otherwise
    it ducks with its weakest legal card, keeping its trumps to stop a winner later."""
    base = sf.spoil_five.HEURISTIC(key, state, player)
    cur = jnp.maximum(state.current_player, 0)
    following = (state.phase == g.PHASE_PLAY) & (cur != state.leader)
    threat = (state.tricks_won[jnp.maximum(state.best_seat, 0)] >= 2) | (state.tricks_won[cur] >= 2)
    value = jnp.asarray(_VALUE)[state.trump]
    legal = state.legal_action_mask[:52]
    weakest = jnp.argmin(jnp.where(legal, value, 1 << 10)).astype(jnp.int32)
    return jnp.where(following & ~threat, weakest, base)


def spoil_vs_win(
    key: int,
    num_players: int,
    num_hands: int,
    carried: tuple[int, ...] = (0, 10, 20),
    seats: tuple[int, ...] | None = None,
    others: Any = "heuristic",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Q4/Q6: one seat plays ``spoiler`` against the heuristic in that seat, the other seats
    playing ``others``, on the same deals; the difference by the seat's holding.  ``value``
    adds to the hand's chips the seat's equal share (1/N) of a pot carried by a spoil or failed
    jink.  ``weak_value_by_carried``: that difference for weak hands (no top trump, at most one
    trump) had ``c`` chips been carried in (both policies ignore the pot, so only the stakes
    change: a win gains ``c`` more, a spoil carries ``c`` more).  ``seats``: the seats the
    queries sit in (default: every seat).  ``extra``: more policies for the seat (name ->
    policy), each compared with the heuristic there (``extra_vs_heuristic``).  ``weak_rates``:
    each seat policy's chips, wins and spoils in the weak hands."""
    players = {"heuristic": "heuristic", "spoiler": spoiler, **(extra or {})}
    q = max(num_hands // (2 * len(players)), 8)  # two rollouts per query and seat policy
    deals = random_deals(key + 1, q, num_players)
    seats = tuple(range(num_players)) if seats is None else seats
    deals["seat"] = np.asarray(seats, np.int32)[deals["seat"] % len(seats)]
    env = sf.spoil_five.SpoilFive(num_players)
    out = {name: np.zeros((3, q)) for name in players}
    show = Progress(f"spoil {num_players}p")
    for i, s in enumerate(seats):
        at = deals["seat"] == s
        for name, pol in players.items():
            pols = [others] * num_players
            pols[s] = pol
            plain = others == "heuristic" and pol == "heuristic"
            sc = sf.score_hands(
                key,
                deals["hands"][at],
                deals["turnup"][at],
                s,
                env=env,
                policy="heuristic" if plain else pols,
                num_rollouts=2,
            )
            out[name][:, at] = [sc.expected_chips, sc.win_prob, sc.spoil_prob]
        show(i + 1, len(seats))
    pot = float(num_players)  # antes only, nothing carried in
    hold = holding(deals["hands"], deals["turnup"])
    strength = np.where(hold["top"] > 0, 10 + hold["top"], hold["trumps"])
    weak = strength <= 1
    labels = [0, 1, 2, 3, 4, 5, 11, 12, 13]

    def value(d: np.ndarray) -> np.ndarray:
        return d[0] + d[2] * pot / num_players

    diff = out["spoiler"] - out["heuristic"]
    vs = {}
    for name in extra or {}:
        d = out[name] - out["heuristic"]
        vs[name] = {
            "d_value": grouped(value(d), strength, labels),
            "weak_d_value": mean_ci(value(d)[weak]),
            "all_d_value": mean_ci(value(d)),
            "weak_value_by_carried": [
                {"carried": c, **mean_ci(_value_at(d, num_players, c)[weak])} for c in carried
            ],
        }
    return {
        "players": num_players,
        "hands": 2 * len(players) * q,
        "others": getattr(others, "__name__", str(others)),
        "classes": "0..5: trumps held with no top trump; 11..13: 1..3 top trumps",
        "d_chips": grouped(diff[0], strength, labels),
        "d_win": grouped(diff[1], strength, labels),
        "d_spoil": grouped(diff[2], strength, labels),
        "d_value": grouped(value(diff), strength, labels),
        "weak_d_value": mean_ci(value(diff)[weak]),
        "weak_d_chips": mean_ci(diff[0][weak]),
        "all_d_value": mean_ci(value(diff)),
        "weak_share": float(weak.mean()),
        "weak_value_by_carried": [
            {"carried": c, **mean_ci(_value_at(diff, num_players, c)[weak])} for c in carried
        ],
        "weak_rates": {
            name: {k: mean_ci(v[j][weak]) for j, k in enumerate(("chips", "win", "spoil"))}
            for name, v in out.items()
        },
        "extra_vs_heuristic": vs,
    }


def _value_at(diff: np.ndarray, num_players: int, carried: int) -> np.ndarray:
    """Per query: d(chips) + d(win) * carried + d(spoil) * (pot share of a carried pot)."""
    pot = num_players + carried
    return diff[0] + diff[1] * carried + diff[2] * pot / num_players


# ------------------------------------------------------------------------ Q5/Q6 jinking


def jink_break_even(
    pot: float, bonus: float, num_players: int, carried_share: float = 0.0
) -> float:
    """The probability of winning tricks 4 and 5 at which JINK and CLAIM are worth the same.

    CLAIM takes ``pot`` now.  JINK takes ``pot + bonus * (N - 1)`` with probability p, else the
    pot is carried; ``carried_share`` is the part of a carried pot the player expects to win
    back later (0: lost to this player).  p* = pot (1 - c) / (pot (1 - c) + bonus (N - 1))."""
    kept = pot * (1.0 - carried_share)
    return kept / (kept + bonus * (num_players - 1))


def break_even_table(players: list[int], carried: list[int], ante: int = 1) -> list[dict[str, Any]]:
    """p* for each table size and carried pot (ante ``ante``, bonus = ante), carried pot lost
    (``p_lost``) or shared equally later (``p_shared``, share 1/N)."""
    rows = []
    for n in players:
        for c in carried:
            pot = n * ante + c
            rows.append(
                {
                    "players": n,
                    "carried": c,
                    "pot": pot,
                    "p_lost": jink_break_even(pot, ante, n),
                    "p_shared": jink_break_even(pot, ante, n, 1.0 / n),
                }
            )
    return rows


def _is_jink(state: Any, led: jax.Array) -> jax.Array:
    return state.phase == g.PHASE_JINK


def jink_decisions(
    key: int, num_players: int, num_hands: int, num_samples: int, carried: list[int]
) -> dict[str, Any]:
    """Q5/Q6: at jink decisions reached by heuristic play, the analysed chance p that JINK
    wins tricks 4 and 5 (heuristic playouts), the share of decisions where p clears the
    break-even for each carried pot, and what the heuristic does there."""
    env = sf.spoil_five.SpoilFive(num_players)
    found = collect(key, env, "heuristic", num_hands, _is_jink, progress=Progress("jink"))
    pos, hands = found.positions, found.hands
    res = sf.analyze(key, env, pos, num_samples=num_samples, policy=sf.spoil_five.HEURISTIC)
    p = res.win_prob[:, sf.spoil_five.JINK]
    heur = policy_actions(sf.spoil_five.HEURISTIC, pos)
    jinks = heur == sf.spoil_five.JINK
    by_pot = []
    for c in carried:
        pot = num_players + c
        star = jink_break_even(pot, 1, num_players)
        by_pot.append({"carried": c, "break_even": star, **prop_ci(p > star)})
    return {
        "players": num_players,
        "hands": hands,
        "positions": int(p.size),
        "decision_rate_per_hand": p.size / hands,
        "p_jink_wins": mean_ci(p),
        "p_hist": np.histogram(p, bins=20, range=(0, 1))[0].tolist(),
        "heuristic_jinks": prop_ci(jinks),
        "p_when_heuristic_jinks": mean_ci(p[jinks]),
        "p_when_heuristic_claims": mean_ci(p[~jinks]),
        "jink_right_by_carried": by_pot,
    }


def jink_rates(key: int, num_players: int, num_hands: int, policy: Any) -> dict[str, Any]:
    """How often ``policy`` (every seat) jinks per hand and how often its jinks succeed."""
    env = sf.spoil_five.SpoilFive(num_players)
    out = sf.rollout(key, env, policy, num_hands, progress=quiet)
    return {
        "hands": num_hands,
        "jink_rate": prop_ci(out.jinked),
        "jink_success": prop_ci(out.jink_won[out.jinked]),
    }


# ------------------------------------------------------------------------ Q7 seats


def seat_advantage(
    key: int, num_players: int, num_hands: int, policy: Any = "heuristic", rob: str = "optional"
) -> dict[str, Any]:
    """Q7: each seat's share of pots (dealer = seat 0, eldest = seat 1) with every seat playing
    ``policy``; also the dealer's share when it may rob (an ace turned up) and when not."""
    env = sf.spoil_five.SpoilFive(num_players, sf.spoil_five.Rules(rob=rob))
    out = sf.rollout(key, env, policy, num_hands, progress=Progress(f"seats {num_players}p"))
    win = out.winner[:, None] == np.arange(num_players)
    dealer_robs = out.robber == 0
    return {
        "players": num_players,
        "hands": num_hands,
        "rob": rob,
        "win_by_seat": [prop_ci(win[:, s]) for s in range(num_players)],
        "chips_by_seat": [mean_ci(out.rewards[:, s]) for s in range(num_players)],
        "spoil_rate": prop_ci(out.winner < 0),
        "dealer_win_when_dealer_may_rob": prop_ci(win[dealer_robs, 0]),
        "dealer_win_otherwise": prop_ci(win[~dealer_robs, 0]),
        "dealer_may_rob_rate": prop_ci(dealer_robs),
        "jink_rate": prop_ci(out.jinked),
        "jink_success": prop_ci(out.jink_won[out.jinked]),
        "rob_rate": prop_ci(out.robbed),
    }
