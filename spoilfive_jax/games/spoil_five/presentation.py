"""Spoil Five's words for the command line: its rule options, the rules in words and the ranking,
rollout and score reports, the rollout plot.  ``SpoilFive`` declares this module as its
``Presentation``, ``TerminalPlay`` and ``AgentInfo`` (see ``core.env.Env``); ``spoilfive_jax.cli``
prints what they return.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from spoilfive_jax.core import generic
from spoilfive_jax.core.cards import card_str, card_symbol, parse_cards, trump_order
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
)
from spoilfive_jax.games.spoil_five.game import PHASE_NAMES
from spoilfive_jax.games.spoil_five.play import play_terminal as play
from spoilfive_jax.games.spoil_five.rules import Rules

RULE_OPTIONS = (
    RuleOption(
        "preset",
        "the rule preset the options below change (default: seed)",
        choices=("seed", "traditional"),
    ),
    RuleOption("follow", FOLLOW_HELP, choices=("seed", "traditional")),
    RuleOption("renege", RENEGE_HELP, choices=("deal", "trick", "led")),
    RuleOption("rob", "robbing the pack", choices=("optional", "forced", "off")),
    RuleOption(
        "jink",
        "--jink allows the jink after winning tricks 1-3, --no-jink does not",
        kind="flag",
        bare=True,
        negative=False,
    ),
    RuleOption("deal_packets", "cards per packet", kind="packets", metavar="2,3|3,2"),
    RuleOption("ante", "ante per player", kind="int", metavar="CHIPS"),
    RuleOption(
        "jink_bonus",
        "paid to a successful jinker by every other player (default: the ante)",
        kind="int",
        metavar="CHIPS",
    ),
    RuleOption(
        "ante_after_spoil", "who antes when chips were carried in", choices=("all", "dealer")
    ),
    RuleOption(
        "illegal_penalty",
        "chips an illegal action costs under jit (agent policies)",
        kind="int",
        metavar="CHIPS",
    ),
)


def title(env: Any) -> str:
    """``"Spoil Five"``."""
    return "Spoil Five"


def table_text(env: Any) -> str:
    """``"5 players"``: each plays for themselves."""
    return f"{env.num_players} players"


def rule_options() -> tuple[RuleOption, ...]:
    """``RULE_OPTIONS``."""
    return RULE_OPTIONS


def has_turnup(env: Any) -> bool:
    """Every hand turns up a card for trump."""
    return True


def default_policy(env: Any) -> str:
    """The heuristic."""
    return "heuristic"


def read_cards(env: Any, text: str | list[str]) -> list[int]:
    """Card ids of ``5H``, ``10♦`` ... (no joker in Spoil Five); repeats are kept for the
    command line, which names a card given twice with its place in the line."""
    return parse_cards(text, unique=False)


def tournament_note(env: Any) -> str:
    """Chips need no note."""
    return ""


# ---------------------------------------------------------------------------- AgentInfo


def observation_low(env: Any) -> float:
    """Observations are indicators and counts."""
    return 0.0


def final_info(env: Any, state: Any) -> dict[str, Any]:
    """Who took the pot, whether the hand ended on an illegal action, the pot carried out."""
    return {
        "winner": int(state.winner),
        "illegal": bool(state.illegal),
        "carried_out": int(state.carried_out),
    }


def state_text(env: Any, state: Any) -> str:
    """The phase, the turn-up, the pot and the tricks, then the trick and who is to act."""
    head = (
        f"phase {PHASE_NAMES[int(state.phase)]}, trump turn-up "
        f"{card_symbol(int(state.turnup))}, pot {int(state.pot)}, "
        f"tricks {np.asarray(state.tricks_won).tolist()}"
    )
    return "\n".join([head, *generic.text_tail(env, state)])


def rules_from_options(game_id: str, options: dict[str, Any]) -> Rules:
    """The rules of ``--preset`` (default seed) with the other options over it."""
    options = dict(options)
    return Rules.preset(options.pop("preset", "seed"), **options)


def rules_line(env: Any) -> str:
    rules = env.rules
    jink = "on" if rules.jink else "off"
    return (
        f"follow={rules.follow} renege={rules.renege} rob={rules.rob} jink={jink} "
        f"deal={rules.deal_packets[0]}+{rules.deal_packets[1]} ante={rules.ante} "
        f"jink_bonus={rules.bonus} ante_after_spoil={rules.ante_after_spoil}"
    )


def rules_in_force(env: Any) -> dict[str, Any]:
    rules = env.rules
    """Every field with the value in force (``jink_bonus``: the ante when left unset)."""
    return {**dataclasses.asdict(rules), "jink_bonus": rules.bonus}


def rules_text(env: Any, suit: int | None) -> str:
    rules = env.rules
    if rules.jink:
        jink = (
            "the winner of tricks 1-3 may play on; winning all five takes the pot plus "
            f"{rules.bonus} from each other player, losing a trick carries the pot"
        )
    else:
        jink = "off: three tricks take the pot at once"
    after = "every player" if rules.ante_after_spoil == "all" else "only the dealer"
    lines = ["Rules (Spoil Five)"]
    lines += item_lines(
        [
            ("options", rules_line(env)),
            ("following", FOLLOW[rules.follow]),
            ("reneging", RENEGE[rules.renege] + RENEGE_FIVE),
            ("robbing", ROB[rules.rob]),
            ("jink", jink),
            ("pot", f"ante {rules.ante} each; when chips were carried in, {after} antes"),
            ("deal", f"{rules.deal_packets[0]} then {rules.deal_packets[1]} cards to each player"),
        ]
    )
    for t in range(4) if suit is None else [suit]:
        lines += ranking_lines(t, trump_order(t), 3)
    return "\n".join(lines)


# ------------------------------------------------------------------------ rollouts


def rollout_report(env: Any, s: dict[str, Any], names: Sequence[str], seconds: float) -> Report:
    h = s["hands"]
    heading = (
        f"{title(env)} · {h:,} hands · {table_text(env)} · {seconds:.1f} s "
        f"({s['hands_per_s']:,.0f} hands/s, compile included)\nrules: {rules_line(env)}"
    )
    rows = [
        [
            str(i),
            name,
            plus_minus(s["win_rate"][i], se_or_nan(s["win_rate_se"][i], h), 100),
            plus_minus(
                s["mean_chips"][i], se_or_nan(s["mean_chips_se"][i], h), digits=3, sign=True
            ),
        ]
        for i, name in enumerate(names)
    ]
    table = Table(heading, ["seat", "policy", "win %", "chips/hand"], rows, left=2)
    line = (
        f"spoiled {plus_minus(s['spoil_rate'], se_or_nan(s['spoil_rate_se'], h), 100)} % · "
        f"jinked {100 * s['jink_rate']:.2f} % (won {100 * s['jink_success_rate']:.1f} %) · "
        f"robbed {100 * s['rob_rate']:.2f} % · {s['mean_decisions']:.1f} decisions/hand"
    )
    return Report([table], [line])


def summary_rows(
    env: Any, s: dict[str, Any], names: Sequence[str]
) -> tuple[list[str], list[list[Any]]]:
    """Long format: one row per statistic (and seat)."""
    rows: list[list[Any]] = []
    for i, name in enumerate(names):
        rows.append(["win_rate", i, name, s["win_rate"][i], s["win_rate_se"][i]])
        rows.append(["mean_chips", i, name, s["mean_chips"][i], s["mean_chips_se"][i]])
    rows.append(["spoil_rate", "", "", s["spoil_rate"], s["spoil_rate_se"]])
    for stat in ("jink_rate", "jink_success_rate", "rob_rate", "mean_decisions", "hands_per_s"):
        rows.append([stat, "", "", s[stat], ""])
    rows.append(["hands", "", "", s["hands"], ""])
    return ["stat", "seat", "policy", "value", "se"], rows


PER_HAND = ("winner", "decisions", "jinked", "jink_won", "robbed", "robber", "carried_out")


def per_hand_columns(env: Any, result: Any) -> tuple[tuple[str, ...], np.ndarray, str, str]:
    """(scalar fields, the per-seat block, its JSON name, its CSV column prefix)."""
    return PER_HAND, result.rewards, "chips", "chips"


def plot_rollout(plt: Any, env: Any, result: Any, names: Sequence[str], path: str) -> None:
    """Win rate by seat (with 95% error bars) and the distribution of each seat's chips."""
    s = result.summary()
    n = len(names)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    seats = np.arange(n)
    left.bar(seats, 100 * s["win_rate"], yerr=196 * s["win_rate_se"], capsize=3, color="#2e7d4f")
    left.set_xticks(seats, [f"{i}\n{names[int(i)]}" for i in seats], fontsize=8)
    left.set_xlabel("seat (0 = dealer)")
    left.set_ylabel("hands won, %")
    left.set_title(
        f"Win rate by seat ({s['hands']:,} hands, spoiled {100 * s['spoil_rate']:.1f} %)"
    )
    values = np.unique(result.rewards)
    width = 0.8 / n
    for i in range(n):
        share = [(result.rewards[:, i] == v).mean() * 100 for v in values]
        right.bar(
            np.arange(len(values)) + (i - (n - 1) / 2) * width, share, width, label=f"seat {i}"
        )
    right.set_xticks(np.arange(len(values)), [f"{v:+g}" for v in values], fontsize=8)
    right.set_xlabel("net chips of the hand")
    right.set_ylabel("share of hands, % (log scale)")
    right.set_yscale("log")
    right.set_title("Distribution of chip results")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------ scores


def score_records(env: Any, queries: Sequence[Any], scores: Any) -> list[dict[str, Any]]:
    """One JSON/CSV record per query (cards in machine text, ``card_str``)."""
    return [
        {
            "hand": " ".join(card_str(c) for c in q.hand),
            "turnup": card_str(q.turnup),
            "seat": q.seat,
            "win_prob": scores.win_prob[i],
            "win_prob_se": scores.win_prob_se[i],
            "spoil_prob": scores.spoil_prob[i],
            "spoil_prob_se": scores.spoil_prob_se[i],
            "expected_chips": scores.expected_chips[i],
            "expected_chips_se": scores.expected_chips_se[i],
        }
        for i, q in enumerate(queries)
    ]


def score_report(
    env: Any, queries: Sequence[Any], scores: Any, heading: str, threshold: Any = None
) -> Report:
    rows = [
        [
            " ".join(card_symbol(c) for c in q.hand),
            card_symbol(q.turnup),
            str(q.seat),
            plus_minus(scores.win_prob[i], scores.win_prob_se[i], 100),
            plus_minus(scores.spoil_prob[i], scores.spoil_prob_se[i], 100),
            plus_minus(scores.expected_chips[i], scores.expected_chips_se[i], digits=3, sign=True),
        ]
        for i, q in enumerate(queries)
    ]
    columns = ["hand", "turn-up", "seat", "win %", "spoil %", "chips"]
    return Report([Table(heading, columns, rows, left=2)])


def play_terminal(
    env: Any, input: Any, output: Any, *, human: int, bots: Any, bots_name: str,
    hands: int | None, dealer: int, seed: int,
) -> Any:  # fmt: skip
    """Terminal play (``games/spoil_five/play.py``) after a line saying what is played."""
    hands = hands or 1
    output.write(
        f"Spoil Five: you are seat {human} of {env.num_players}, against {bots_name} bots; "
        f"{hands} hand{'s' if hands > 1 else ''}. Type hint (or ?) for advice, help, q to quit.\n"
    )
    return play(env, input, output, human=human, bots=bots, hands=hands, dealer=dealer, seed=seed)
