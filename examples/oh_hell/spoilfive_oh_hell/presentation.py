"""The ``Presentation`` capability: Oh Hell's words for the command line.

Its rule options as flags, the rules in words, rollout reports, CSV rows and the rollout plot.
Cards for people are ``10♦``, for JSON/CSV ``TD`` (``rules.card_symbol`` / ``card_str``).  Oh
Hell has no hand scorer (no ``HandScoring``), so it writes none of the score command's words.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from spoilfive_jax.core.present import Report, RuleOption, Table, item_lines, plus_minus, se_or_nan
from spoilfive_oh_hell.rules import (
    BONUS,
    NUM_CARDS,
    NUM_SUITS,
    RANKS,
    OhHellRules,
    card_symbol,
    parse_cards,
)

SUIT_NAMES = ("clubs", "diamonds", "spades", "hearts")  # this game's suits, OpenSpiel's order
CORE_SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")  # ``core.cards.SUITS``' order

RULE_OPTIONS = (
    RuleOption(
        "num_tricks", "cards dealt to each player (default 5)", kind="int", minimum=1, metavar="T"
    ),
    RuleOption(
        "off_bid_penalty",
        "--off-bid-penalty: a missed bid loses points_per_trick per trick off it",
        kind="flag",
        bare=True,
        negative=False,
    ),
    RuleOption(
        "points_per_trick", "points per trick taken (default 1)", kind="int", metavar="POINTS"
    ),
)


def title(env: Any) -> str:
    return "Oh Hell"


def table_text(env: Any) -> str:
    return f"{env.num_players} players, {env.rules.num_tricks} tricks"


def rule_options() -> tuple[RuleOption, ...]:
    return RULE_OPTIONS


def rules_from_options(game_id: str, options: dict[str, Any]) -> OhHellRules:
    return OhHellRules(**options)


def rules_line(env: Any) -> str:
    r = env.rules
    return (
        f"num_tricks={r.num_tricks} off_bid_penalty={'on' if r.off_bid_penalty else 'off'} "
        f"points_per_trick={r.points_per_trick}"
    )


def rules_in_force(env: Any) -> dict[str, Any]:
    return dataclasses.asdict(env.rules)


def rules_text(env: Any, suit: int | None = None) -> str:
    """The rules in words and the card order (``suit``: the trump suit to show, an index of the
    command line's C D H S order, ``core.cards.SUITS``, not this game's own C D S H; None:
    any)."""
    r, n = env.rules, env.num_players
    ppt = r.points_per_trick
    if r.off_bid_penalty:
        score = (
            f"taking exactly the bid scores {ppt} a trick plus {BONUS}; missing it loses {ppt} "
            "for every trick over or under the bid"
        )
    else:
        score = f"{ppt} a trick taken, plus {BONUS} for taking exactly the bid"
    lines = ["Rules (Oh Hell, as OpenSpiel's oh_hell)"]
    lines += item_lines(
        [
            ("options", rules_line(env)),
            (
                "deal",
                f"{r.num_tricks} cards to each of {n} players; the next card is turned "
                "up and its suit is trump",
            ),
            (
                "bidding",
                "from the player left of the dealer, each bids 0.."
                f"{r.num_tricks} tricks; the dealer bids last and may not make the "
                f"bids add up to {r.num_tricks}",
            ),
            (
                "play",
                "left of the dealer leads; follow suit if able, else play anything; "
                "the highest trump wins, else the highest card of the suit led; the "
                "winner leads next",
            ),
            ("score", score),
        ]
    )
    order = " ".join(RANKS[::-1])
    lines += ["", f"Every suit, highest first: {order}"]
    if suit is not None:
        lines.append(f"Trump: {CORE_SUIT_NAMES[suit]}")
    return "\n".join(lines)


def default_policy(env: Any) -> str:
    return "heuristic"


def read_cards(env: Any, text: str | list[str]) -> list[int]:
    """Our card ids (``rank * 4 + suit``) from people's text."""
    cards = parse_cards(text)
    bad = [c for c in cards if not 0 <= c < NUM_CARDS]
    if bad:
        raise ValueError(f"not cards of this game: {bad}")
    return cards


def tournament_note(env: Any) -> str:
    return f"points: the hand's score ({env.rules.points_per_trick} a trick, +{BONUS} for the bid)"


# ------------------------------------------------------------------------ rollouts


def rollout_report(env: Any, summary: dict[str, Any], names: Any, seconds: float) -> Report:
    s, h = summary, summary["hands"]
    head = (
        f"{title(env)} · {h:,} hands · {table_text(env)} · {seconds:.1f} s "
        f"({s['hands_per_s']:,.0f} hands/s, compile included)\nrules: {rules_line(env)}"
    )
    rows = [
        [
            str(i),
            name,
            plus_minus(s["mean_rewards"][i], se_or_nan(s["mean_rewards_se"][i], h), digits=3),
            f"{s['mean_bid'][i]:.2f}",
            plus_minus(s["bid_made_rate"][i], se_or_nan(s["bid_made_rate_se"][i], h), 100, 1),
        ]
        for i, name in enumerate(names)
    ]
    columns = ["seat", "policy", "points/hand", "mean bid", "bid made %"]
    table = Table(head, columns, rows, left=2)
    return Report([table], [f"{s['decisions'] / max(h, 1):.1f} decisions/hand"])


def summary_rows(env: Any, summary: dict[str, Any], names: Any) -> tuple[list[str], list[Any]]:
    s = summary
    rows: list[list[Any]] = [
        ["mean_points", i, name, s["mean_rewards"][i], s["mean_rewards_se"][i]]
        for i, name in enumerate(names)
    ]
    for i, name in enumerate(names):
        rows.append(["mean_bid", i, name, s["mean_bid"][i], ""])
        rows.append(["bid_made_rate", i, name, s["bid_made_rate"][i], s["bid_made_rate_se"][i]])
    rows += [[stat, "", "", s[stat], ""] for stat in ("hands", "decisions", "hands_per_s")]
    return ["stat", "seat", "policy", "value", "se"], rows


def per_hand_columns(env: Any, result: Any) -> tuple[tuple[str, ...], Any, str, str]:
    return ("decisions",), result.rewards, "points", "points"


def plot_rollout(plt: Any, env: Any, result: Any, names: Any, path: str) -> None:
    """Mean points by seat (95% error bars) and the distribution of each seat's points."""
    s = result.summary()
    n = len(names)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    seats = np.arange(n)
    left.bar(seats, s["mean_rewards"], yerr=1.96 * s["mean_rewards_se"], capsize=3)
    left.set_xticks(seats, [f"{i}\n{names[int(i)]}" for i in seats], fontsize=8)
    left.set_xlabel("seat")
    left.set_ylabel("points per hand")
    left.set_title(f"Mean points by seat ({s['hands']:,} hands)")
    values = np.unique(result.rewards)
    width = 0.8 / n
    for i in range(n):
        share = [(result.rewards[:, i] == v).mean() * 100 for v in values]
        right.bar(np.arange(len(values)) + (i - (n - 1) / 2) * width, share, width,
                  label=f"seat {i}")  # fmt: skip
    right.set_xticks(np.arange(len(values)), [f"{v:g}" for v in values], fontsize=8)
    right.set_xlabel("points of the hand")
    right.set_ylabel("share of hands, %")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def suit_name(suit: int) -> str:
    return SUIT_NAMES[suit % NUM_SUITS]


def cards_text(cards: Sequence[int]) -> str:
    return " ".join(card_symbol(c) for c in cards)
