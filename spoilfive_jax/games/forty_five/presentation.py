"""The Forty-Five family's words for the command line: its rule options, the rules in words and the
ranking (the joker placed by the engine's own strengths), rollout and score reports, the rollout
plot.  ``FortyFive`` declares this module as its ``Presentation``, ``TerminalPlay`` and
``AgentInfo`` (``core.capabilities``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.game as game
from spoilfive_jax.core import generic
from spoilfive_jax.core.cards import JOKER_TEXT, card_str, card_symbol
from spoilfive_jax.core.present import (
    FOLLOW,
    FOLLOW_HELP,
    RENEGE,
    RENEGE_FIVE,
    RENEGE_HELP,
    ROB,
    Report,
    RuleOption,
    Table,
    item_lines,
    plus_minus,
    ranking_lines,
    se_or_nan,
    teams_text,
)
from spoilfive_jax.games.forty_five.actions import card_text, parse_cards
from spoilfive_jax.games.forty_five.game import JOKER
from spoilfive_jax.games.forty_five.play import play_family
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams

VARIANTS = {
    "forty_five": "forty_five",
    "twenty_five": "twenty_five",
    "auction_forty_fives": "auction",
}
TITLES = {
    "forty_five": "Forty-Five",
    "twenty_five": "Twenty-Five",
    "auction_forty_fives": "Auction Forty-Fives",
}

RULE_OPTIONS = (
    RuleOption("follow", FOLLOW_HELP, choices=("seed", "traditional")),
    RuleOption("renege", RENEGE_HELP, choices=("deal", "trick", "led")),
    RuleOption("rob", "robbing the pack", choices=("optional", "forced", "off")),
    RuleOption(
        "jink",
        "--jink off|announced|wins_game (bare --jink: announced, --no-jink: off)",
        choices=("off", "announced", "wins_game"),
        metavar="MODE",
        bare="announced",
        negative="off",
    ),
    RuleOption("deal_packets", "cards per packet", kind="packets", metavar="2,3|3,2"),
    RuleOption(
        "illegal_penalty",
        "points an illegal action costs under jit (agent policies)",
        kind="int",
        metavar="POINTS",
    ),
    RuleOption(
        "target",
        "points that win the game (default 45, 25 or 120)",
        kind="int",
        minimum=1,
        metavar="POINTS",
    ),
    RuleOption(
        "scoring",
        "best_trump: 5 a trick + 5 for the best trump; hoyle: 3-4 tricks 5, all five 10",
        choices=("best_trump", "hoyle"),
    ),
    RuleOption(
        "tie_break",
        "several teams reach the target in one hand",
        choices=("first_counted", "higher_total"),
    ),
    RuleOption(
        "joker",
        "--joker plays with the joker (53 cards, JK: always a trump), --no-joker without",
        kind="flag",
        bare=True,
        negative=False,
    ),
    RuleOption("joker_rank", "the joker just below or above A♥", choices=("below_AH", "above_AH")),
)

_SCORING = {
    "best_trump": "5 points a trick to the winner's team, and 5 more to the team that played the "
    "hand's highest trump (30 a hand when a trump falls)",
    "twenty_five": "5 points a trick to the winner's team (25 a hand; no best-trump bonus)",
    "hoyle": "a side taking 3 or 4 tricks scores 5, all five 10; the others nothing",
}
_JINK = {
    "off": "off",
    "announced": "before the first lead, from the eldest hand, one player may announce that "
    "their team takes all five tricks: success doubles its points, failure loses the game",
    "wins_game": "a team that takes all five tricks wins the game at once",
}
_TIE_BREAK = {
    "first_counted": "teams counted from the eldest hand clockwise: the first that reached it wins",
    "higher_total": "the higher total wins",
}


def title(env: Any) -> str:
    """``"Forty-Five"``, ``"Twenty-Five"`` or ``"Auction Forty-Fives"``."""
    return TITLES[env.id]


def table_text(env: Any) -> str:
    """``"4 players (0&2 v 1&3)"``."""
    return f"{env.num_players} players ({teams_text(env.num_players, num_teams(env.num_players))})"


def rule_options() -> tuple[RuleOption, ...]:
    """``RULE_OPTIONS``."""
    return RULE_OPTIONS


def has_turnup(env: Any) -> bool:
    """Turn-up games turn a card up for trump; Auction names trump."""
    return not env.rules.auction


def default_policy(env: Any) -> str:
    """The random player."""
    return "random"


def read_cards(env: Any, text: str | list[str]) -> list[int]:
    """Card ids of ``5H``, ``10♦``, ``JK`` ..., refusing the joker when it is not in play;
    repeats are kept for the command line, which names a card given twice in context."""
    cards = parse_cards(text, unique=False)
    if JOKER in cards and not env.rules.joker:
        raise ValueError("the joker (JK) is not in play: add --joker")
    return cards


def tournament_note(env: Any) -> str:
    """What a seat's points and wins mean at a team table."""
    return "points: the seat's team's per hand; won: hands its team outscored the rest"


# ---------------------------------------------------------------------------- AgentInfo, Teams


def observation_low(env: Any) -> float:
    """No bound is declared for the family's observations."""
    return -float("inf")


def final_info(env: Any, state: Any) -> dict[str, Any]:
    """Whether the hand ended on an illegal action, the hand's points and the tricks won."""
    return {
        "illegal": bool(state.illegal),
        "hand_points": np.asarray(state.hand_points).tolist(),
        "tricks_won": np.asarray(state.tricks_won).tolist(),
    }


def team_of(env: Any) -> np.ndarray:
    """Partners sit opposite at 4 (0, 2 against 1, 3) and alternately at 6; 2 players are two
    teams; at 3 and 5 every seat plays for itself (``rules.num_teams``)."""
    return game.team_of(env.num_players)


def state_text(env: Any, state: Any) -> str:
    """The phase, the turn-up and trump, the tricks, then the trick and who is to act."""
    up, trump = int(state.turnup), int(state.trump)
    head = (
        f"{env.id}: phase {game.PHASE_NAMES[int(state.phase)]}, "
        + (f"turn-up {card_text(up)}, " if up >= 0 else "")
        + f"trump {'CDHS'[trump] if trump >= 0 else '-'}, "
        f"tricks {np.asarray(state.tricks_won).tolist()}"
    )
    return "\n".join([head, *generic.text_tail(env, state)])


def rules_from_options(game_id: str, options: dict[str, Any]) -> FortyFiveRules:
    return FortyFiveRules(variant=VARIANTS[game_id], **options)  # type: ignore[arg-type]


def rules_line(env: Any) -> str:
    rules = env.rules
    joker = f"on ({rules.joker_rank})" if rules.joker else "off"
    text = (
        f"variant={rules.variant} target={rules.goal} scoring={rules.scoring} "
        f"tie_break={rules.tie_break} jink={rules.jink} joker={joker} follow={rules.follow} "
        f"renege={rules.renege}"
    )
    if not rules.auction:
        text += f" rob={rules.rob}"
    return text + f" deal={rules.deal_packets[0]}+{rules.deal_packets[1]}"


def rules_in_force(env: Any) -> dict[str, Any]:
    rules = env.rules
    """Every field with the value in force (``target``: the variant's when left unset)."""
    return {**dataclasses.asdict(rules), "target": rules.goal}


def trump_order(suit: int, rules: FortyFiveRules) -> list[int]:
    """The trumps of ``suit`` highest first, the joker placed by the engine's own strengths."""
    ids = np.arange(rules.deck_size)
    strength = np.asarray(game.trump_strength(jnp.asarray(ids), jnp.int32(suit), rules))
    trumps = ids[strength >= 0]
    return [int(c) for c in trumps[np.argsort(-strength[trumps], kind="stable")]]


def rules_text(env: Any, suit: int | None) -> str:
    rules: FortyFiveRules = env.rules
    scoring = "twenty_five" if rules.variant == "twenty_five" else rules.scoring
    hand = "all five tricks are played; " + _SCORING[scoring]
    if rules.auction:
        hand += "; the bidder's team scores what it made if that reaches its bid (a made 30 "
        hand += "scores 60), else loses the bid"
    items = [
        ("options", rules_line(env)),
        (
            "teams",
            "4 players: 0&2 v 1&3; 6: 0,2,4 v 1,3,5; 2: head to head; other counts play as "
            "individuals (seat s plays for team s % teams)",
        ),
        ("hand", hand),
        (
            "game",
            f"the first team at {rules.goal} or more at the end of a hand wins; several: "
            + ("the bidding team if it is one of them, else " if rules.auction else "")
            + _TIE_BREAK[rules.tie_break],
        ),
        ("following", FOLLOW[rules.follow]),
        ("reneging", RENEGE[rules.renege] + RENEGE_FIVE),
    ]
    if rules.auction:
        items.append(
            (
                "auction",
                "no turn-up, no robbing; from the eldest hand: pass or bid 15, 20, 25, 30 above "
                "the standing bid (the dealer may hold it); all pass: the dealer bids 15; the "
                "winner names trump; each player from the dealer's left discards and draws back "
                "to five; the player left of the bidder leads"
                + ("; a team at 100 or more may not bid below 20" if rules.min_bid_at_100 else ""),
            )
        )
    else:
        items.append(("robbing", ROB[rules.rob]))
    items.append(("jink", _JINK[rules.jink]))
    if rules.joker:
        where = "just below A♥" if rules.joker_rank == "below_AH" else "just above A♥"
        turned = (
            ""
            if rules.auction
            else (
                "; turned up, it goes to the dealer (who lays a card away) and the next card is "
                "turned up"
            )
        )
        items.append(
            (
                "joker",
                f"53 cards; the joker ({JOKER_TEXT}) is always a trump, ranked {where}, with the "
                "top-trump reneging privilege" + turned,
            )
        )
    items.append(
        ("deal", f"{rules.deal_packets[0]} then {rules.deal_packets[1]} cards to each player")
    )
    lines = [f"Rules ({title(env)})", *item_lines(items)]
    tops = len(game.top_trump_strengths(rules))
    for t in range(4) if suit is None else [suit]:
        lines += ranking_lines(t, trump_order(t, rules), tops)
    return "\n".join(lines)


# ------------------------------------------------------------------------ rollouts


def rollout_report(env: Any, s: dict[str, Any], names: Sequence[str], seconds: float) -> Report:
    n, h = len(names), s["hands"]
    t = s["mean_team_points"].shape[0]
    heading = (
        f"{title(env)} · {h:,} hands · {table_text(env)} · "
        f"{seconds:.1f} s ({s['hands_per_s']:,.0f} hands/s, compile included)\n"
        f"rules: {rules_line(env)}"
    )
    seats = [
        [
            str(i),
            str(i % t),
            name,
            plus_minus(
                s["mean_points"][i], se_or_nan(s["mean_points_se"][i], h), digits=3, sign=True
            ),
        ]
        for i, name in enumerate(names)
    ]
    teams = [
        [
            str(i),
            ",".join(str(x) for x in range(i, n, t)),
            plus_minus(
                s["mean_team_points"][i],
                se_or_nan(s["mean_team_points_se"][i], h),
                digits=3,
                sign=True,
            ),
            plus_minus(s["team_win_rate"][i], se_or_nan(s["team_win_rate_se"][i], h), 100),
            f"{s['mean_team_tricks'][i]:.3f}",
            *(f"{100 * x:.1f}" for x in s["team_tricks"][i]),
        ]
        for i in range(t)
    ]
    rules = env.rules
    parts = []
    if rules.jink == "announced":
        parts.append(
            f"jinked {100 * s['jink_rate']:.2f} % (won {100 * s['jink_success_rate']:.1f} %)"
        )
    if rules.auction:
        parts.append(f"bids made {100 * s['bid_made_rate']:.2f} % (mean bid {s['mean_bid']:.1f})")
    else:
        parts.append(f"robbed {100 * s['rob_rate']:.2f} %")
    parts.append(f"{s['mean_decisions']:.1f} decisions/hand")
    return Report(
        [
            Table(heading, ["seat", "team", "policy", "points/hand"], seats, left=3),
            Table(
                "teams (won: more points than every other team in the hand; "
                "k tricks: % of hands in which the team took k tricks)",
                ["team", "seats", "points/hand", "won %", "tricks"]
                + [f"{k} tricks" for k in range(6)],
                teams,
                left=2,
            ),
        ],
        [" · ".join(parts)],
    )


def summary_rows(
    env: Any, s: dict[str, Any], names: Sequence[str]
) -> tuple[list[str], list[list[Any]]]:
    """Long format: one row per statistic (and seat or team)."""
    t = s["mean_team_points"].shape[0]
    rows: list[list[Any]] = []
    for i, name in enumerate(names):
        rows.append(["mean_points", i, i % t, name, s["mean_points"][i], s["mean_points_se"][i]])
    for i in range(t):
        rows.append(
            ["mean_team_points", "", i, "", s["mean_team_points"][i], s["mean_team_points_se"][i]]
        )
        rows.append(["team_win_rate", "", i, "", s["team_win_rate"][i], s["team_win_rate_se"][i]])
        rows.append(["mean_team_tricks", "", i, "", s["mean_team_tricks"][i], ""])
        for k in range(6):
            rows.append([f"team_tricks_{k}", "", i, "", s["team_tricks"][i][k], ""])
    for stat in (
        "jink_rate",
        "jink_success_rate",
        "rob_rate",
        "bid_made_rate",
        "mean_bid",
        "mean_decisions",
        "hands_per_s",
    ):
        rows.append([stat, "", "", "", s[stat], ""])
    rows.append(["hands", "", "", "", s["hands"], ""])
    return ["stat", "seat", "team", "policy", "value", "se"], rows


PER_HAND = ("decisions", "jinked", "jink_won", "robbed", "robber", "bid", "bidder")


def per_hand_columns(env: Any, result: Any) -> tuple[tuple[str, ...], np.ndarray, str, str]:
    """(scalar fields, the per-team block, its JSON name, its CSV column prefix)."""
    return PER_HAND, result.team_points, "team_points", "points_team"


def plot_rollout(plt: Any, env: Any, result: Any, names: Sequence[str], path: str) -> None:
    """Mean points by seat (with 95% error bars) and each team's trick distribution."""
    s = result.summary()
    n, t = len(names), s["mean_team_points"].shape[0]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    seats = np.arange(n)
    left.bar(seats, s["mean_points"], yerr=1.96 * s["mean_points_se"], capsize=3, color="#2e7d4f")
    left.set_xticks(seats, [f"{i}\n{names[int(i)]}\nteam {i % t}" for i in seats], fontsize=8)
    left.set_xlabel("seat (0 = dealer)")
    left.set_ylabel("points per hand (the seat's team)")
    left.set_title(f"{title(env)}: points by seat ({s['hands']:,} hands)")
    width = 0.8 / t
    for i in range(t):
        right.bar(
            np.arange(6) + (i - (t - 1) / 2) * width,
            100 * s["team_tricks"][i],
            width,
            label=f"team {i}",
        )
    right.set_xticks(np.arange(6))
    right.set_xlabel("tricks taken by the team")
    right.set_ylabel("share of hands, %")
    right.set_title("Trick distribution")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------ scores


def score_records(env: Any, queries: Sequence[Any], scores: Any) -> list[dict[str, Any]]:
    """One JSON/CSV record per query (cards in machine text, ``card_str``)."""
    t = num_teams(env.num_players)
    return [
        {
            "hand": " ".join(card_str(c) for c in q.hand),
            "turnup": None if q.turnup < 0 else card_str(q.turnup),
            "seat": q.seat,
            "team": q.seat % t,
            "expected_points": scores.expected_points[i],
            "expected_points_se": scores.expected_points_se[i],
            "reach_prob": scores.reach_prob[i],
            "reach_prob_se": scores.reach_prob_se[i],
            "expected_tricks": scores.expected_tricks[i],
            "expected_tricks_se": scores.expected_tricks_se[i],
        }
        for i, q in enumerate(queries)
    ]


def score_report(
    env: Any, queries: Sequence[Any], scores: Any, heading: str, threshold: int
) -> Report:
    t, turnup = num_teams(env.num_players), has_turnup(env)
    rows = []
    for i, q in enumerate(queries):
        row = [" ".join(card_symbol(c) for c in q.hand)]
        row += [card_symbol(q.turnup)] if turnup else []
        row += [
            str(q.seat),
            str(q.seat % t),
            plus_minus(scores.expected_points[i], scores.expected_points_se[i], sign=True),
            plus_minus(scores.reach_prob[i], scores.reach_prob_se[i], 100),
            plus_minus(scores.expected_tricks[i], scores.expected_tricks_se[i], digits=3),
        ]
        rows.append(row)
    columns = ["hand"] + (["turn-up"] if turnup else [])
    columns += ["seat", "team", "points", f"P(>={threshold}) %", "tricks"]
    title = heading + "\npoints, P and tricks are those of the seat's team for the hand"
    return Report([Table(title, columns, rows, left=len(columns) - 5)])


def play_terminal(
    env: Any, input: Any, output: Any, *, human: int, bots: Any, bots_name: str,
    hands: int | None, dealer: int, seed: int,
) -> Any:  # fmt: skip
    """Terminal play of a whole game (``games/forty_five/play.py``) after a line saying what
    is played."""
    cap = f", {hands} hand{'s' if hands > 1 else ''} at most" if hands else ""
    teams = teams_text(env.num_players, num_teams(env.num_players))
    output.write(
        f"{title(env)}: you are seat {human} of {env.num_players} ({teams}), against "
        f"{bots_name} bots; a game to {env.rules.goal}{cap}. Type hint (or ?) for advice, "
        "help, q to quit.\n"
    )
    return play_family(
        env, input, output, human=human, bots=bots, hands=hands, dealer=dealer, seed=seed
    )
