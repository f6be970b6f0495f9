"""Keep the documentation's command-line transcripts and benchmark figures true.

    python scripts/docs.py transcripts [--check] [FILE ...]   # default: README.md and docs/
    python scripts/docs.py figures [--check] [FILE ...]

**Transcripts.**  A fenced ```text block right after a ``<!-- transcript -->`` comment is a
terminal session: each ``$ spoilfive ...`` line is run again (as ``python -m spoilfive_jax``,
in a fresh directory, stdout and stderr together) and the lines under it are replaced by what it
printed.  ``$ cat FILE`` lines are the other way round: what is written under them is the file,
created before the next command runs.  Options of the comment: ``stdin="a|b|c"`` (the lines fed
to every command, for ``spoilfive play``), ``head=N`` and ``tail=M`` (keep the first N and last
M lines of each output, with ``...`` between).

**Figures.**  The lines between ``<!-- figures: NAME -->`` and ``<!-- /figures -->`` are
written from the JSON a benchmark script saved under ``benchmarks/results/`` (``NAME`` is a
renderer below), with the date, machine and command that measured them, or from the
repository's own files (the shipped agents, the size of the Oh Hell package).

``--check`` rewrites nothing: it exits 1 and shows the difference if a file is out of date.
Timings differ from run to run, so a check compares transcripts with every duration and rate
masked (``VOLATILE``); everything else (tables, counts, errors) must match exactly.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
BLOCK = re.compile(r"^<!-- transcript(?P<opts>[^>]*)-->\n```text\n(?P<body>.*?)^```\n", re.S | re.M)
FIGURES = re.compile(
    r"^<!-- figures: (?P<name>[\w.-]+) -->\n(?P<body>.*?)^<!-- /figures -->\n", re.S | re.M
)
OPTION = re.compile(r'(\w+)=(?:"([^"]*)"|(\S+))')
LONG_DECIMAL = re.compile(r"\d+\.\d{6,}")
PROGRESS = re.compile(r"^\w+ ━")  # the progress bar (stderr), left out
VOLATILE = [
    re.compile(r"\d[\d,]*(\.\d+)? s\b"),  # durations: 1.7 s
    re.compile(r"\d[\d,]*(\.\d+)? hands/s"),  # rates
]


def pages(names: list[str]) -> list[Path]:
    if names:
        return [Path(n).resolve() for n in names]
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


# ------------------------------------------------------------------------ transcripts


@dataclass(frozen=True)
class Transcript:
    """One transcript block: its commands, each with the lines written under it."""

    options: dict[str, str]
    steps: list[tuple[str, list[str]]]

    @classmethod
    def parse(cls, opts: str, body: str) -> Transcript:
        options = {k: quoted or bare for k, quoted, bare in OPTION.findall(opts)}
        steps: list[tuple[str, list[str]]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
            elif line.strip():
                raise ValueError(f"a transcript starts with a '$ ' command, not {line!r}")
        for _, lines in steps:  # the blank line between two commands is not output
            while lines and not lines[-1].strip():
                lines.pop()
        return cls(options, steps)

    def text(self) -> str:
        out = []
        for i, (command, lines) in enumerate(self.steps):
            out += [f"$ {command}", *lines, *([""] if i + 1 < len(self.steps) else [])]
        return "\n".join(out) + "\n"

    def run(self) -> Transcript:
        """The same commands, run again in a fresh directory."""
        stdin = self.options.get("stdin")
        with tempfile.TemporaryDirectory() as tmp:
            steps = []
            for command, lines in self.steps:
                argv = shlex.split(command)
                if argv[0] == "cat":
                    (Path(tmp) / argv[1]).write_text("\n".join(lines) + "\n", encoding="utf-8")
                    steps.append((command, lines))
                    continue
                if argv[0] != "spoilfive":
                    raise ValueError(f"a transcript runs spoilfive or cat, not {argv[0]!r}")
                output = run_cli(argv[1:], tmp, None if stdin is None else stdin.split("|"))
                steps.append((command, self.excerpt(output)))
        return Transcript(self.options, steps)

    def excerpt(self, output: list[str]) -> list[str]:
        head, tail = int(self.options.get("head", 0)), int(self.options.get("tail", 0))
        if (head or tail) and len(output) > head + tail + 1:
            return [*output[:head], "...", *(output[-tail:] if tail else [])]
        return output


def run_cli(args: list[str], cwd: str, stdin: list[str] | None) -> list[str]:
    env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "spoilfive_jax", *args],
        cwd=cwd,
        env=env,
        input=None if stdin is None else "\n".join(stdin) + "\n",
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
        check=False,
    )
    return printed_lines(proc.stdout)


def printed_lines(text: str) -> list[str]:
    """What a command printed (stdout and stderr together), as a transcript shows it: line by
    line, trailing blanks dropped, progress lines left out."""
    lines = [line.rstrip() for line in text.rstrip("\n").splitlines()]
    return [line for line in lines if not PROGRESS.match(line)]


def masked(text: str) -> str:
    """The text with durations and rates hidden, and long decimals cut to four significant
    digits (standard errors differ in float32's last digits with the number of devices)."""
    for pattern in VOLATILE:
        text = pattern.sub("#", text)
    return LONG_DECIMAL.sub(lambda m: f"{float(m[0]):.4g}", text)


def transcripts(text: str) -> list[tuple[re.Match[str], Transcript]]:
    return [(m, Transcript.parse(m["opts"], m["body"])) for m in BLOCK.finditer(text)]


def regenerate_transcripts(text: str) -> tuple[str, list[str]]:
    """The text with every transcript re-run, and the diffs of those that no longer match."""
    out, last, stale = [], 0, []
    for match, block in transcripts(text):
        fresh = block.run()
        if masked(fresh.text()) != masked(block.text()):
            stale.append(diff(block.text(), fresh.text()))
        out += [text[last : match.start("body")], fresh.text()]
        last = match.end("body")
    out.append(text[last:])
    return "".join(out), stale


# ------------------------------------------------------------------------ figures


def _load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _measured(result: dict[str, Any], command: str) -> str:
    m = result["machine"]
    return (
        f"Measured {result.get('date', 'on an unrecorded date')} on {m['processor']}, "
        f"{m['cores']} cores, python {m['python']}, jax {m['jax']}, with `{command}`."
    )


def figure_tables(result: dict[str, Any]) -> str:
    """Every game's table of ``benchmarks/tables.py``."""
    tables = _load_script("tables")
    return f"{_measured(result, result['command'])}\n\n{tables.game_tables(result, True)}\n"


def figure_headline(result: dict[str, Any]) -> str:
    """One line a game: the rollout, public step and analysis rates, on every core."""
    setting = result["settings"][-1]
    lines = [
        "| game | rollout (random) | rollout (heuristic) | public step | analysis |",
        "|---|---|---|---|---|",
    ]
    for game in result["games"]:
        rows = {r["path"]: r for r in setting["rows"] if r["game"] == game}

        def cell(path: str, rows: dict[str, Any] = rows) -> str:
            r = rows.get(path)
            if r is None:
                return "n/a"
            ratio = r["ratio_vs_oh_hell"]
            rate = f"{r['decisions_per_s'] / 1e6:.1f} M/s"
            return rate if ratio is None else f"{rate} ({ratio:.0f}× pyspiel)"

        players = next(iter(rows.values()))["players"]
        lines.append(
            f"| {game}, {players} players | {cell('rollout random')} | "
            f"{cell('rollout heuristic')} | {cell('public step')} | {cell('analysis heuristic')} |"
        )
    note = (
        f"Decisions a second on {setting['label']} ({result['machine']['cores']}-core CPU); "
        "each ratio is to OpenSpiel's `oh_hell` in Python (pyspiel) in the same process. "
        + _measured(result, result["command"])
    )
    return "\n".join(lines) + f"\n\n{note}\n"


def figure_policy_speed(result: dict[str, Any]) -> str:
    """``benchmarks/policy_speed.py``: every policy's speed, the script's own table."""
    script = _load_script("policy_speed")
    peer = result["pyspiel_oh_hell_decisions_per_s"]
    runs = dict.fromkeys(r.get("command", result["command"]) for r in result["rows"])
    rates = dict.fromkeys(r.get("pyspiel_oh_hell_decisions_per_s", peer) for r in result["rows"])
    shown = ", ".join("n/a" if x is None else f"{x:,.0f}" for x in rates)
    note = (
        f"pyspiel `oh_hell` (5 players, 5 tricks, random play), decisions/s in each run: "
        f"{shown}.  {_measured(result, '`; `'.join(runs))}"
    )
    return f"{script.table(result['rows'], peer)}\n\n{note}\n"


def figure_interface_size(result: dict[str, Any]) -> str:
    """``benchmarks/interface_size.py``: its own report of the counts."""
    report = _load_script("interface_size").report(result)
    return f"{report}\n\n{_measured(result, result['command'])}\n"


def figure_memory(result: dict[str, Any]) -> str:
    """Peak memory of streamed and per-hand runs (``benchmarks/streaming_memory.py``)."""
    lines = ["| run | hands | peak RSS | wall (start-up included) |", "|---|---|---|---|"]
    for r in result["rows"]:
        mib, seconds = r["max_rss_mib"], r["seconds"]
        lines.append(f"| {r['mode']} | {r['hands']:,} | {mib:.0f} MiB | {seconds:.1f} s |")
    return "\n".join(lines) + f"\n\n{_measured(result, result['command'])}\n"


def figure_analysis(result: dict[str, Any]) -> str:
    """``benchmarks/analysis_speed.py``: positions a second, and each game's first call."""
    lines = [
        f"- {r['label']}: **{r['seconds']:.2f} s** after compile ({r['rollouts']:,} playouts, "
        f"{r['decisions_per_s'] / 1e6:.1f} M decisions/s inside them)"
        for r in result["rows"]
    ]
    if result.get("first_calls"):
        lines += ["", "| game | first `sf.analyze` call, compile included |", "|---|---|"]
        lines += [
            f"| {r['game']}, {r['players']} players | {r['seconds']:.1f} s |"
            for r in result["first_calls"]
        ]
    if result.get("rates"):
        lines += [
            "",
            "| game | rollout kernel, hands/s | analysis, playouts/s | analysis / kernel |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {r['game']}, {r['players']} players | {r['kernel_hands_per_s'] / 1e6:.2f} M | "
            f"{r['analysis_playouts_per_s'] / 1e6:.2f} M | {r['ratio']:.2f} |"
            for r in result["rates"]
        ]
    return "\n".join(lines) + f"\n\n{_measured(result, result['command'])}\n"


def figure_scaling(result: dict[str, Any]) -> str:
    """``benchmarks/distributed_scaling.py``: one run over 1, 2, ... processes on one host."""
    lines = ["| processes | hands/s | against 1 process | same summary |", "|---|---|---|---|"]
    lines += [
        f"| {r['processes']} | {r['hands_per_s'] / 1e6:.2f} M | {r['speedup']:.2f}× | "
        f"{'yes' if r['same'] else 'NO'} |"
        for r in result["rows"]
    ]
    return "\n".join(lines) + f"\n\n{_measured(result, result['command'])}\n"


def figure_step_profile(result: dict[str, Any]) -> str:
    """``benchmarks/step_profile.py``: the public step's loop taken apart."""
    rows = {r["variant"]: r for r in result["rows"]}
    loop = rows["loop"]["ms"]

    def share(ms: float) -> str:
        return f"{ms:.1f} ms ({100 * ms / loop:.0f}%)"

    def rate(variant: str) -> str:
        r, peer = rows[variant], rows[variant]["ratio_vs_oh_hell"]
        text = f"{r['decisions_per_s'] / 1e6:.1f} M decisions/s"
        return text if peer is None else f"{text} ({peer:.0f}× pyspiel)"

    engine, alone = rows["engine"]["ms"], rows["null step"]["ms"]
    lines = [
        f"- the contract's loop, {result['steps']} steps of {result['batch']:,} hands "
        f"({result['players']} players): {loop:.1f} ms a run, {rate('loop')};",
        f"- the step alone, its action picked from the bitset and carried to the next iteration "
        f"(`bits`): {share(engine)} of that, {rate('engine')};",
        f"- the draws and the mask picker alone, with a step that does nothing: {share(alone)} "
        f"(the draws alone {rows['draws']['ms']:.1f} ms);",
        f"- the rest, {share(loop - engine - alone)}, is the pick made inside the step's "
        "iteration: XLA:CPU fuses it into each of the step's output fusions and computes it "
        "again in every one;",
        f"- the State is {result['state_bytes']} bytes a hand, and the compiled batched step "
        f"{result['step_instructions']:,} HLO instructions.",
    ]
    return "\n".join(lines) + f"\n\n{_measured(result, result['command'])}\n"


def _interval(r: dict[str, Any], digits: int = 3) -> str:
    """A row's difference and its 95% half-width, signed, with a true minus sign."""
    return f"{r['diff']:+.{digits}f} ± {r['diff_ci']:.{digits}f}".replace("-", "−")


def _pimc_cells(r: dict[str, Any], first_ppo: bool) -> list[str]:
    """(game, bot, against, difference) of one ``pimc_strength.py`` row."""
    spoil = r["game"] == "spoil_five"
    game = f"{'Spoil Five' if spoil else 'Forty-Five'}, {r['players']} players"
    bot = f"pimc {r['samples']}" + ("" if spoil else " pair")
    if r["rollout"] != "heuristic":
        bot += f" ({r['rollout']} rollouts)"
    against = r["opponent"].replace("ppo", "PPO")
    against = f"{r['players'] - 1} {against}" if spoil else f"{against} pair"
    if first_ppo:
        against += " (`ppo_seat.npz`)"
    digits = 3 if spoil else 2
    diff = _interval(r, digits)
    diff += "" if spoil else " points"
    if spoil and r["samples"] == 64 and r["opponent"] == "ppo":
        bot, diff = f"**{bot} (default)**", f"**{diff}**"
    return [game, bot, against, diff]


def figure_pimc(result: dict[str, Any]) -> str:
    """``benchmarks/pimc_strength.py --table``: the bot's margins and cost a decision."""
    lines = [
        "| game | bot | against | hands | difference | ms per bot decision (CPU) |",
        "|---|---|---|---|---|---|",
    ]
    seen_ppo = False
    for r in result["rows"]:
        cells = _pimc_cells(r, r["opponent"] == "ppo" and not seen_ppo)
        seen_ppo |= r["opponent"] == "ppo"
        ms = r["ms_per_decision"]
        cells.insert(3, f"{r['hands']:,}")
        lines.append("| " + " | ".join([*cells, f"{ms:.2f}" if ms < 1 else f"{ms:.1f}"]) + " |")
    default = [r for r in result["rows"] if r["samples"] == 64 and r["rollout"] == "heuristic"]
    below = [r["opponent"] for r in default if r["diff"] - r["diff_ci"] <= 0]
    verdict = (
        "Every row of the default bot (64 samples, heuristic rollouts) has its 95% interval "
        "above zero."
        if not below
        else f"The default bot's 95% interval reaches zero against: {', '.join(below)}."
    )
    return "\n".join(lines) + f"\n\n{verdict} {_measured(result, result['command'])}\n"


def figure_pimc_rollout(result: dict[str, Any]) -> str:
    """``benchmarks/pimc_strength.py --table``: a pimc tournament through ``sf.rollout``."""
    r = result["rollout"]
    return (
        f"{r['hands']:,} hands take {r['again_s']:.1f} s, and {r['first_s']:.1f} s on the first "
        f"call (compiles included). {_measured(result, result['command'])}\n"
    )


_LEVERS = {
    "tie": "pimc 64, ties to the heuristic",
    "carry": "pimc 64, a spoil worth its share of the pot",
    "worlds": "pimc 256",
    "solve": "pimc 64, the last two tricks solved",
    "solve-all": "pimc 64, every world solved whole",
    "solve-all-vs-best": "pimc 64, every world solved whole",
    "solve-all16-vs-best": "pimc 16, every world solved whole",
    "solve3": "pimc 64, the last three tricks solved",
    "solver-sees-all": "the solver seeing every hand",
    "infer": "pimc 64 of 256 worlds weighed by the heuristic",
    "infer-ppo": "pimc 64 of 128 worlds weighed by the PPO agent",
    "best": "best",
    "sees-all": "best, seeing every hand",
}


_TITLES = {
    "spoil_five": "Spoil Five",
    "forty_five": "Forty-Five",
    "twenty_five": "Twenty-Five",
    "auction_forty_fives": "Auction Forty-Fives",
}


def figure_best(result: dict[str, Any]) -> str:
    """``benchmarks/best_bot.py``: the best bot and each of its levers alone against pimc."""
    lines = [
        "| game | bot | against | hands | the bot's result a hand | difference | "
        "ms a bot decision (CPU) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        spoil = r["game"] == "spoil_five"
        game = f"{_TITLES.get(r['game'], r['game'])}, {r['players']} players"
        bot = _LEVERS[r["row"]] + ("" if spoil else " (a pair)")
        against = "best" if r["against"] == "best" else "pimc 64"
        against = f"{r['players'] - 1} × {against}" if spoil else f"{against} (a pair)"
        unit = " chips" if spoil else " points"
        own = f"{r['bot']:+.3f}".replace("-", "−")
        lines.append(
            f"| {game} | {bot} | {against} | {r['hands']:,} | {own}{unit} | {_interval(r)} | "
            f"{r['ms_per_decision']:.2f} |"
        )
    return "\n".join(lines) + f"\n\n{_measured(result, result['command'])}\n"


def figure_ismcts(result: dict[str, Any]) -> str:
    """``benchmarks/ismcts_baseline.py``: OpenSpiel's ISMCTS against pimc or best, by time a
    decision (Spoil Five, or Forty-Five's or Twenty-Five's partnerships)."""
    against = result["against"]
    family = result.get("game", "spoil_five") != "spoil_five"
    lines = [
        f"| ISMCTS time a decision | simulations | ms a decision (ISMCTS, {against}) | hands | "
        f"ISMCTS {'pair' if family else 'seat'} − the others |",
        "|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        diff = _interval(r)
        lines.append(
            f"| {r['times']:g}× {against}'s | {r['simulations']:,} | {r['ismcts_ms']:.1f}, "
            f"{r['other_ms']:.2f} | {r['hands']:,} | {diff} |"
        )
    title = {"spoil_five": "Spoil Five", "forty_five": "Forty-Five", "twenty_five": "Twenty-Five"}
    game = f"{title[result.get('game', 'spoil_five')]}{', partnerships' if family else ''},"
    unit = "points" if family else "chips"
    note = (
        f"{game} {result['players']} players, {unit} a hand; {against} costs "
        f"{result['other_ms']:.2f} ms a decision and an ISMCTS simulation "
        f"{result['simulation_ms']:.2f} ms in this harness (one OpenSpiel state at a time)."
    )
    return "\n".join(lines) + f"\n\n{note} {_measured(result, result['command'])}\n"


def figure_ladder(result: dict[str, Any]) -> str:
    """``benchmarks/ladder.py``: every pair of players of every game, head to head."""
    lines = ["| game | player | against | hands | difference a hand |", "|---|---|---|---|---|"]
    for g in result["games"]:
        title = f"{g['game'].replace('_', ' ')}, {g['players']} players"
        for r in g["pairs"]:
            diff = _interval(r)
            a = f"ISMCTS, {r['simulations']} simulations" if "simulations" in r else r["a"]
            lines.append(f"| {title} | {a} | {r['b']} | {r['hands']:,} | {diff} {g['unit']} |")
    return "\n".join(lines) + f"\n\n{_measured(result, result['command'])}\n"


def figure_ppo_cores(result: dict[str, Any]) -> str:
    """``benchmarks/ppo_cores.py``: PPO's training update on one device and on every core."""
    lines = [
        "| game | one device | every core | speedup |",
        "|---|---|---|---|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['game'].replace('_', ' ')} | {r['one_device']:,.0f} decisions/s | "
            f"{r['every_core']:,.0f} ({r['devices']} devices) | {r['speedup']:.2f}× |"
        )
    return "\n".join(lines) + f"\n\n{_measured(result, result['command'])}\n"


def figure_ppo_collect(result: dict[str, Any]) -> str:
    """``benchmarks/ppo_collect.py``: PPO's collection alone, one column a label (commit)."""
    labels = list(dict.fromkeys(r["label"] for r in result["rows"]))
    games = list(dict.fromkeys(r["game"] for r in result["rows"]))
    rate = {(r["game"], r["label"]): r["learner_decisions_per_s"] for r in result["rows"]}
    lines = ["| game | " + " | ".join(labels) + " |", "|---" * (len(labels) + 1) + "|"]
    for game in games:
        cells = [f"{rate[game, k]:,.0f}" if (game, k) in rate else "n/a" for k in labels]
        lines.append(f"| {game.replace('_', ' ')} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\n{_measured(result, result['command'])}\n"


def figure_deal_speed(result: dict[str, Any]) -> str:
    """``benchmarks/deal_speed.py``: a random deal's draws from threefry and from the key hash."""
    lines = [
        "| game | path | threefry draws | key hash | speedup |",
        "|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        unit = "hands/s" if r["path"] == "init" else "steps/s"
        lines.append(
            f"| {r['game'].replace('_', ' ')} | {r['path']} | {r['threefry_per_s']:,.0f} {unit} | "
            f"{r['hash_per_s']:,.0f} {unit} | {r['hash_per_s'] / r['threefry_per_s']:.2f}× |"
        )
    return "\n".join(lines) + f"\n\n{_measured(result, result['command'])}\n"


def figure_solve(result: dict[str, Any]) -> str:
    """``benchmarks/solve_speed.py``: whole-hand solves a second, nodes, a pimc decision."""
    text = _load_script("solve_speed").table(result["rows"], result["pimc"])
    return f"{text}\n\n{_measured(result, result['command'])}\n"


AGENTS = ROOT / "examples" / "agents"


def shipped_agents() -> dict[str, Any]:
    """Every shipped family agent: its metadata (``<game>_ppo.json``) and the final evaluation
    of the run that made it (``<game>_ppo.eval.json``, ``examples/train_ppo.py``'s eval.json)."""
    out = []
    for meta_path in sorted(AGENTS.glob("*_ppo.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        evaluation = json.loads(meta_path.with_suffix(".eval.json").read_text(encoding="utf-8"))
        out.append({"meta": meta, "eval": evaluation})
    return {"agents": out}


def _tournament_cell(t: dict[str, Any]) -> str:
    """``ppo − rival`` points a hand of an ``eval.json`` tournament, each side's mean ± CI."""
    sides = dict(zip(t["names"], zip(t["mean_chips"], t["ci95"], strict=True), strict=True))
    (ppo, ppo_ci), rival = sides.pop("ppo"), next(iter(sides.values()))
    return (
        f"{ppo:.2f} ± {ppo_ci:.2f} against {rival[0]:.2f} ± {rival[1]:.2f} ({t['deals']:,} deals)"
    ).replace("-", "−")


def figure_agents(result: dict[str, Any]) -> str:
    """The shipped family agents: training cost and their results against the heuristic and
    pimc, from the runs that made them."""
    lines = [
        "| game | training | one seat's team vs heuristic bots (gain) | tournament vs heuristic "
        "| tournament vs pimc |",
        "|---|---|---|---|---|",
    ]
    for a in result["agents"]:
        meta, ev = a["meta"], a["eval"]
        seat = ev["one_seat_vs_heuristic"]
        gain = _interval({"diff": seat["gain"], "diff_ci": seat["gain_ci"]}, 2)
        warm, teacher = meta["warmup_updates"], meta.get("teacher", "heuristic")
        teacher = f"pimc ({teacher[4:]} worlds)" if teacher.startswith("pimc") else f"the {teacher}"
        advice = f", advised by the {meta['advice']}" if meta.get("advice") else ""
        cost = (
            f"{meta['training_cpu_seconds'] / 60:.1f} CPU min, {meta['training_hands']:,} hands: "
            f"{warm} updates imitating {teacher}{advice}, then {meta['updates'] - warm} of PPO"
        )
        pimc = ev.get("tournament_vs_pimc")
        lines.append(
            f"| {meta['game'].replace('_', ' ')}, {meta['num_players']} players | {cost} | "
            f"{gain} | {_tournament_cell(ev['tournament_vs_heuristic'])} | "
            f"{_tournament_cell(pimc) if pimc else 'not measured'} |"
        )
    commands = "; ".join(f"`{a['meta']['command']}`" for a in result["agents"])
    return "\n".join(lines) + f"\n\nPoints a hand, 95% CIs. Made by {commands}.\n"


OH_HELL = ROOT / "examples" / "oh_hell"
# The Oh Hell package's modules by job, as docs/new_game.md describes them (its __init__ counts
# in the total only); a module missing here is an error, so the figure cannot go stale.
OH_HELL_CORE = {
    "the rules, state, observations and policies": (
        "rules.py",
        "state.py",
        "game.py",
        "observe.py",
        "policies.py",
    ),
    "the env": ("env.py",),
}
OH_HELL_CAPABILITIES = {
    "analysis": ("infer.py",),
    "positions": ("history.py",),
    "presentation": ("presentation.py",),
    "terminal play": ("play.py",),
    "rollouts and agent info": ("rollouts.py", "agent.py"),
    "deals from a chosen order": ("deck_deals.py",),
    "what a seat knows": ("knowledge.py",),
}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def oh_hell_sizes() -> dict[str, Any]:
    """Lines of each module of the Oh Hell package, its tests and its benchmark."""
    package = OH_HELL / "spoilfive_oh_hell"
    return {
        "modules": {p.name: _lines(p) for p in sorted(package.glob("*.py"))},
        "tests": sum(_lines(p) for p in (OH_HELL / "tests").glob("*.py")),
        "benchmark": _lines(OH_HELL / "bench_oh_hell.py"),
    }


def figure_oh_hell_size(result: dict[str, Any]) -> str:
    """The size of the Oh Hell package by job (docs/new_game.md), counted from its files."""
    modules = dict(result["modules"])
    total, count = sum(modules.values()), len(modules)
    modules.pop("__init__.py", None)

    def size(names: tuple[str, ...]) -> int:
        return sum(modules.pop(n) for n in names)

    core = [f"{job} {size(names):,}" for job, names in OH_HELL_CORE.items()]
    parts = {job: size(names) for job, names in OH_HELL_CAPABILITIES.items()}
    if modules:
        raise ValueError(f"scripts/docs.py: place the Oh Hell modules {sorted(modules)} by job")
    each = ", ".join(f"{job} {n:,}" for job, n in parts.items())
    return (
        f"The package is {total:,} lines of Python in {count} modules: {', '.join(core)}, the "
        f"capabilities {sum(parts.values()):,} ({each}), with {result['tests']:,} lines of tests "
        f"and a {result['benchmark']:,}-line benchmark.\n"
    )


Source = str | Callable[[], dict[str, Any]]  # a JSON file of benchmarks/results, or a function
RENDERERS: dict[str, tuple[Source, Callable[[dict[str, Any]], str]]] = {
    "tables": ("tables.json", figure_tables),
    "headline": ("tables.json", figure_headline),
    "memory": ("streaming_memory.json", figure_memory),
    "policy_speed": ("policy_speed.json", figure_policy_speed),
    "interface_size": ("interface_size.json", figure_interface_size),
    "analysis": ("analysis_speed.json", figure_analysis),
    "scaling": ("distributed_scaling.json", figure_scaling),
    "step_profile": ("step_profile.json", figure_step_profile),
    "pimc": ("pimc_strength.json", figure_pimc),
    "pimc_rollout": ("pimc_strength.json", figure_pimc_rollout),
    "ismcts": ("ismcts_baseline.json", figure_ismcts),
    "ismcts_best": ("ismcts_best.json", figure_ismcts),
    "ismcts_forty_five": ("ismcts_forty_five.json", figure_ismcts),
    "ismcts_forty_five_best": ("ismcts_forty_five_best.json", figure_ismcts),
    "ismcts_twenty_five_best": ("ismcts_twenty_five_best.json", figure_ismcts),
    "best": ("best_bot.json", figure_best),
    "ladder": ("ladder.json", figure_ladder),
    "ppo_cores": ("ppo_cores.json", figure_ppo_cores),
    "ppo_collect": ("ppo_collect.json", figure_ppo_collect),
    "solve": ("solve_speed.json", figure_solve),
    "deal_speed": ("deal_speed.json", figure_deal_speed),
    "agents": (shipped_agents, figure_agents),  # (from examples/agents)
    "oh_hell_size": (oh_hell_sizes, figure_oh_hell_size),  # (from examples/oh_hell's files)
}


def regenerate_figures(text: str) -> tuple[str, list[str]]:
    """The text with every figures block written anew, and the diffs of those that changed."""
    out, last, stale = [], 0, []
    for match in FIGURES.finditer(text):
        if match["name"] not in RENDERERS:
            raise ValueError(f"no figures named {match['name']!r}; known: {sorted(RENDERERS)}")
        source, render = RENDERERS[match["name"]]
        if isinstance(source, str):
            result = json.loads((RESULTS / source).read_text(encoding="utf-8"))
        else:
            result = source()
        fresh = render(result)
        if fresh != match["body"]:
            stale.append(diff(match["body"], fresh))
        out += [text[last : match.start("body")], fresh]
        last = match.end("body")
    out.append(text[last:])
    return "".join(out), stale


# ------------------------------------------------------------------------ command line


def diff(old: str, new: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "doc", "now"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("transcripts", "figures"))
    ap.add_argument("files", nargs="*", help="markdown files (default: README.md and docs/)")
    ap.add_argument("--check", action="store_true", help="rewrite nothing; exit 1 if stale")
    args = ap.parse_intermixed_args(argv)  # (files after --check too)
    regenerate = regenerate_transcripts if args.what == "transcripts" else regenerate_figures
    failed = False
    for path in pages(args.files):
        text = path.read_text(encoding="utf-8")
        new, stale = regenerate(text)
        for d in stale:
            print(f"{path.relative_to(ROOT)}: out of date\n{d}")
        if args.check:
            failed |= bool(stale)
        elif new != text:
            path.write_text(new, encoding="utf-8")
            print(f"rewrote {path.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
