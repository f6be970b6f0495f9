"""The study's PNG plots, drawn from the results dict (as written to JSON)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

Figure = Any


def _err(rows: list[dict[str, Any]]) -> tuple[list[Any], list[float], list[float]]:
    keep = [r for r in rows if r.get("mean") is not None and r.get("n", 0) >= 20]
    return (
        [r["group"] for r in keep],
        [r["mean"] for r in keep],
        [r["ci95"] or 0.0 for r in keep],
    )


def q1(res: dict[str, Any]) -> Figure:
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for block in res["heuristic"]:
        for ax, key in zip(axes, ("by_top", "by_trumps"), strict=True):
            x, y, e = _err(block[key])
            ax.errorbar(x, [100 * v for v in y], [100 * v for v in e], marker="o",
                        capsize=3, label=f"{block['players']} players")  # fmt: skip
    axes[0].set_xlabel("top trumps held (5, J, A♥)")
    axes[0].set_xticks([0, 1, 2, 3])
    axes[1].set_xlabel("trumps held (A♥ included)")
    for ax in axes:
        ax.set_ylabel("chance to take the pot (%)")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("Q1: chance to win the pot by the hand dealt (heuristic play)")
    return fig


def q2(res: dict[str, Any]) -> Figure:
    fig, ax = plt.subplots(figsize=(6, 4))
    for block in res["heuristic"]:
        x, y, e = _err(block["gain_by_trumps"])
        ax.errorbar(x, y, e, marker="o", capsize=3, label=f"{block['players']} players")
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("trumps held at the rob decision (before taking the turn-up)")
    ax.set_ylabel("chips: best rob minus declining")
    ax.set_title("Q2: the value of robbing")
    ax.grid(alpha=0.3)
    ax.legend()
    return fig


def q3(res: dict[str, Any]) -> Figure:
    fig, ax = plt.subplots(figsize=(6, 4))
    for block in res["heuristic"]:
        x, y, e = _err(block["by_trick"])
        ax.errorbar(x, y, e, marker="o", capsize=3, label=f"{block['players']} players")
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("trick")
    ax.set_ylabel("chips: withholding minus playing the top trump")
    ax.set_title("Q3: reneging against a lower trump lead")
    ax.grid(alpha=0.3)
    ax.legend()
    return fig


def q4(res: dict[str, Any]) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 4))
    names = {0: "0", 1: "1", 2: "2", 3: "3", 4: "4", 5: "5", 11: "1 top", 12: "2 top", 13: "3 top"}
    for i, block in enumerate(res["heuristic"]):
        x, y, e = _err(block["d_value"])
        pos = [list(names).index(g) + 0.15 * (i - 1) for g in x]
        ax.errorbar(pos, y, e, fmt="o", capsize=3, label=f"{block['players']} players")
    table = res.get("pimc_table_5p")
    if table:
        series = [
            ("spoiler", table["d_value"]),
            ("pimc", table["extra_vs_heuristic"]["pimc"]["d_value"]),
        ]
        for j, (name, rows) in enumerate(series):
            x, y, e = _err(rows)
            pos = [list(names).index(g) + 0.3 + 0.1 * j for g in x]
            ax.errorbar(
                pos,
                y,
                e,
                fmt="s" if j == 0 else "^",
                capsize=3,
                label=f"5p, pimc opponents: {name} minus heuristic",
            )
    ax.set_xticks(range(len(names)), [names[k] for k in names])
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("hand: trumps held (no top trump), or top trumps held")
    ax.set_ylabel("chips/hand, minus the heuristic in the seat")
    ax.set_title("Q4: playing to spoil, by hand strength")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return fig


def q5(res: dict[str, Any]) -> Figure:
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for n in sorted({r["players"] for r in res["break_even"]}):
        rows = [r for r in res["break_even"] if r["players"] == n]
        axes[0].plot([r["carried"] for r in rows], [r["p_lost"] for r in rows], marker="o",
                     label=f"{n} players")  # fmt: skip
    axes[0].set_xlabel("chips carried into the pot")
    axes[0].set_ylabel("break-even P(win tricks 4 and 5)")
    axes[0].set_title("jink break-even (bonus = ante = 1)")
    axes[0].legend()
    axes[0].grid(alpha=0.3)
    for block in res["decisions"]:
        hist = block["p_hist"]
        edges = [i / len(hist) for i in range(len(hist) + 1)]
        axes[1].stairs(hist, edges, label=f"{block['players']} players")
    axes[1].axvline(5 / 9, color="k", ls=":", lw=1, label="break-even, 5 players")
    axes[1].set_xlabel("analysed P(jink wins tricks 4 and 5)")
    axes[1].set_ylabel("jink decisions")
    axes[1].set_title("jink decisions reached in play")
    axes[1].legend()
    fig.suptitle("Q5/Q6: when to jink")
    return fig


def q7(res: dict[str, Any]) -> Figure:
    fig, ax = plt.subplots(figsize=(8, 4))
    blocks = [(b, "heuristic") for b in res["heuristic"]]
    blocks += [(b, "heuristic, no robbing") for b in res["heuristic_no_rob"] if b["players"] == 5]
    blocks.append((res["pimc_5p"], "pimc"))
    width = 0.8 / len(blocks)
    for i, (block, name) in enumerate(blocks):
        rows = block["win_by_seat"]
        x = [s + i * width for s in range(len(rows))]
        ax.bar(x, [100 * r["mean"] for r in rows], width,
               yerr=[100 * r["ci95"] for r in rows], capsize=2,
               label=f"{block['players']}p {name}")  # fmt: skip
    ax.set_xlabel("seat (0 = dealer, 1 = eldest hand)")
    ax.set_ylabel("share of pots won (%)")
    ax.set_title("Q7: seat and dealer advantage")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    return fig


def q8(res: dict[str, Any]) -> Figure:
    fig, ax = plt.subplots(figsize=(8, 4))
    main = res["heuristic"]
    labels = [r["group"] for r in main["by_situation"]]
    series = [
        ("heuristic playouts", main["by_situation"]),
        ("greedy playouts", res["greedy_playouts"]["by_situation"]),
    ]
    if "check" in main:
        series.append(("pimc playouts", [{"group": g["group"], **g["check"]}
                                         for g in main["check"]["groups"]]))  # fmt: skip
    for j, (name, rows) in enumerate(series):
        x, y, e = _err(rows)
        pos = [labels.index(g) + 0.12 * (j - 1) for g in x]
        ax.errorbar(pos, y, e, fmt="o", capsize=3, label=name)
    ax.set_xticks(range(len(labels)), [s.replace(", ", ",\n") for s in labels], fontsize=8)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_ylabel("points: best other card minus the 5")
    ax.set_title("Q8: keeping the 5 of trumps back when following (Forty-Five)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def q10(res: dict[str, Any]) -> Figure:
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    bids = [15, 20, 25, 30]
    anchor = res["heuristic"]["anchor"]
    axes[0].plot(bids, [100 * anchor[str(b)] for b in bids], "k--o", label="published anchor")
    for name in ("heuristic", "greedy", "pimc"):
        rows = [r for r in res[name]["by_bid"] if r.get("n", 0) >= 10]
        axes[0].errorbar([r["group"] for r in rows], [100 * r["mean"] for r in rows],
                         [100 * r["ci95"] for r in rows], marker="o", capsize=3,
                         label=f"{name} bids")  # fmt: skip
    reach = res["heuristic"]["reach_any_bidder"]
    axes[0].plot(bids, [100 * reach[str(b)]["mean"] for b in bids], ":s",
                 label="heuristic bidder's hand, had it bid b")  # fmt: skip
    axes[0].set_xlabel("bid")
    axes[0].set_ylabel("made (%)")
    axes[0].legend(fontsize=8)
    axes[0].grid(alpha=0.3)
    colours = {"5+J": "C0", "5": "C1", "J": "C2", "no 5/J": "C3"}
    for row in res["heuristic"]["by_holding"]:
        if row["n"] >= 200 and row["trumps"] in (3, 4):
            style = "-" if row["trumps"] == 3 else "--"
            axes[1].plot(bids, [100 * row["reach"][str(b)] for b in bids], style, marker="o",
                         color=colours[row["holding"]],
                         label=f"{row['holding']}, {row['trumps']} trumps")  # fmt: skip
    axes[1].set_xlabel("bid")
    axes[1].set_ylabel("would be made (%)")
    axes[1].set_title("bidder's holding after the draw (heuristic play)")
    axes[1].legend(fontsize=7)
    axes[1].grid(alpha=0.3)
    fig.suptitle("Q10: Auction Forty-Fives make rates")
    return fig


PLOTS: dict[str, Callable[[dict[str, Any]], Figure]] = {
    "q1": q1, "q2": q2, "q3": q3, "q4": q4, "q5": q5, "q7": q7, "q8": q8, "q10": q10,
}  # fmt: skip


def make_all(results: dict[str, Any], out: Path) -> list[Path]:
    """Draw every plot whose question is in ``results``; returns the files written."""
    written = []
    for name, draw in PLOTS.items():
        if name not in results:
            continue
        fig = draw(results[name])
        fig.tight_layout()
        path = out / f"strategy_{name}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written
