"""The ``spoilfive`` command line (also ``python -m spoilfive_jax``).

Subcommands: ``rollout`` (mass self-play with a summary, JSON/CSV and a plot), ``score`` (what a
hand is worth), ``tournament`` (policies against each other), ``bench`` (throughput table),
``play`` (a hand or a session against bots in the terminal) and ``rules`` (card ranking and rule
options).  ``main(argv) -> int`` returns the exit status: 0 on success, 2 on bad input (one line
``spoilfive: error: ...`` on stderr, never a traceback).

``rich`` (extra ``cli``) draws tables and the progress bar when installed, else plain text is
printed; ``matplotlib`` (extra ``plot``) is imported only for ``rollout --plot``.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import importlib
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, TextIO

import numpy as np

from spoilfive_jax._src.cards import SUIT_SYMBOLS, SUITS, card_symbol, parse_cards
from spoilfive_jax._src.cards import plain_order as plain_order_of
from spoilfive_jax._src.cards import trump_order as trump_order_of
from spoilfive_jax._src.rules import Rules

PROG = "spoilfive"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
AGENT_PREFIX = "agent:"
AGENT_SUFFIXES = (".npz", ".msgpack")


class CliError(Exception):
    """Bad input: reported as one line ``spoilfive: error: ...`` and exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse that raises ``CliError`` instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix(PROG).strip()
        raise CliError(f"{command}: {message}" if command else message)


# ------------------------------------------------------------------------ argument types


def _int_at_least(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {value}")
        return value

    return parse


def _packets(text: str) -> tuple[int, int]:
    try:
        parts = tuple(int(x) for x in text.replace(" ", "").split(","))
    except ValueError:
        parts = ()
    if parts not in ((2, 3), (3, 2)):
        raise argparse.ArgumentTypeError(f"expected 2,3 or 3,2, got {text!r}")
    return parts  # type: ignore[return-value]


def _players(text: str) -> int:
    n = _int_at_least(0)(text)
    if not 2 <= n <= 10:
        raise argparse.ArgumentTypeError(f"Spoil Five is for 2 to 10 players, got {n}")
    return n


def _suit(text: str) -> int:
    t = text.strip().lower()
    for i, (letter, name, symbol) in enumerate(zip(SUITS, SUIT_NAMES, SUIT_SYMBOLS, strict=True)):
        if t in (letter.lower(), name, name[:-1], symbol):
            return i
    raise argparse.ArgumentTypeError(f"unknown suit {text!r}; use C, D, H or S (or clubs, ...)")


def _add_table_options(p: argparse.ArgumentParser, players: bool = True) -> None:
    """Table size and every ``Rules`` field (None = the preset's value)."""
    g = p.add_argument_group("table and rules")
    if players:
        g.add_argument("-n", "--players", type=_players, default=5, help="2..10 (default 5)")
    g.add_argument(
        "--preset",
        choices=("seed", "traditional"),
        default="seed",
        help="rule preset the options below change (default: seed)",
    )
    g.add_argument(
        "--follow",
        choices=("seed", "traditional"),
        help="plain lead: seed = follow or trump if able; traditional = void may discard",
    )
    g.add_argument(
        "--renege",
        choices=("deal", "trick", "led"),
        help="when a top trump may be withheld from a trump lead",
    )
    g.add_argument("--rob", choices=("optional", "forced", "off"), help="robbing the pack")
    g.add_argument(
        "--jink",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="allow the jink after winning tricks 1-3 (--no-jink: seed variant)",
    )
    g.add_argument("--deal-packets", type=_packets, metavar="2,3|3,2", help="cards per packet")
    g.add_argument("--ante", type=_int_at_least(0), metavar="CHIPS", help="ante per player")
    g.add_argument(
        "--jink-bonus",
        type=_int_at_least(0),
        metavar="CHIPS",
        help="paid to a successful jinker by every other player (default: the ante)",
    )
    g.add_argument(
        "--ante-after-spoil", choices=("all", "dealer"), help="who antes when chips were carried in"
    )
    g.add_argument(
        "--illegal-penalty",
        type=_int_at_least(0),
        metavar="CHIPS",
        help="chips an illegal action costs under jit (agent policies)",
    )


def _rules(args: argparse.Namespace) -> Rules:
    names = [f.name for f in dataclasses.fields(Rules)]  # one option per field
    overrides = {k: getattr(args, k) for k in names if getattr(args, k, None) is not None}
    return Rules.preset(args.preset, **overrides)


def _rules_text(rules: Rules) -> str:
    jink = "on" if rules.jink else "off"
    return (
        f"follow={rules.follow} renege={rules.renege} rob={rules.rob} jink={jink} "
        f"deal={rules.deal_packets[0]}+{rules.deal_packets[1]} ante={rules.ante} "
        f"jink_bonus={rules.bonus} ante_after_spoil={rules.ante_after_spoil}"
    )


def _add_output_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("output")
    g.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="write JSON to FILE (no FILE or '-': stdout instead of the table)",
    )
    g.add_argument(
        "--csv",
        nargs="?",
        const="-",
        metavar="FILE",
        help="write CSV to FILE (no FILE or '-': stdout instead of the table)",
    )


# ------------------------------------------------------------------------ policies


def _load_agent(path: str) -> Callable[..., Any]:
    """A trained agent through ``spoilfive_jax.agent.load_policy`` (the RL module)."""
    p = Path(path)
    if p.suffix not in AGENT_SUFFIXES:
        raise CliError(f"an agent file must end in .npz or .msgpack, got {path!r}")
    if not p.is_file():
        raise CliError(f"agent file not found: {path}")
    try:
        module = importlib.import_module("spoilfive_jax.agent")
    except ModuleNotFoundError as e:
        if e.name not in (None, "spoilfive_jax.agent"):
            raise CliError(
                f"loading an agent needs the module {e.name!r}: pip install 'spoilfive-jax[rl]'"
            ) from None
        raise CliError(
            "agent policies need spoilfive_jax.agent (the RL module), which this installation "
            "does not have"
        ) from None
    return module.load_policy(str(p))  # type: ignore[no-any-return]


def _policy(spec: str, cache: dict[str, Any]) -> Any:
    """``random``, ``heuristic`` or ``agent:PATH`` -> a policy the library accepts."""
    spec = spec.strip()
    if spec in ("random", "heuristic"):
        return spec
    if spec.startswith(AGENT_PREFIX):
        path = spec[len(AGENT_PREFIX) :]
        if path not in cache:
            cache[path] = _load_agent(path)
        return cache[path]
    raise CliError(f"unknown policy {spec!r}; use random, heuristic or agent:PATH.npz")


def _seat_policies(text: str, num_players: int) -> tuple[list[Any], list[str]]:
    """``heuristic`` (every seat) or one spec per seat, comma-separated: (policies, names)."""
    names = [s.strip() for s in text.split(",")]
    if len(names) == 1:
        names = names * num_players
    if len(names) != num_players or not all(names):
        raise CliError(f"--policy needs one policy or one per seat ({num_players}), got {text!r}")
    cache: dict[str, Any] = {}
    return [_policy(s, cache) for s in names], names


# ------------------------------------------------------------------------ output helpers


def _rich() -> Any:
    """The ``rich`` package, or None when it is not installed (plain text then)."""
    try:
        import rich.console
        import rich.table
    except ImportError:
        return None
    import rich

    return rich


def _show_table(
    title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1
) -> None:
    """Title lines, then a table on stdout: rich when installed, else aligned plain text.
    The first ``left`` columns are left-aligned, the others right-aligned."""
    rich = _rich()
    if rich is None:
        print(title)
        print(_plain_table(columns, rows, left))
        return
    import rich.box

    console = rich.console.Console(highlight=False)
    if not console.is_terminal:  # a file or a pipe: never squeeze the table to 80 columns
        console = rich.console.Console(highlight=False, width=max(console.width, 160))
    console.print(title, soft_wrap=True)
    table = rich.table.Table(box=rich.box.SIMPLE_HEAD, pad_edge=False)
    for i, c in enumerate(columns):
        table.add_column(c, justify="left" if i < left else "right", no_wrap=True)
    for r in rows:
        table.add_row(*r)
    console.print(table)


def _plain_table(columns: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(columns, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        out = [
            f"{c:<{w}}" if i < left else f"{c:>{w}}"
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(out).rstrip()

    body = [line(columns), "  ".join("-" * w for w in widths)]
    return "\n".join(body + [line(r) for r in rows])


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return [_jsonable(v) for v in x] if x.dtype == np.float32 else _jsonable(x.tolist())
    if isinstance(x, np.float32):  # its shortest decimal (0.93075, not 0.9307500123977661)
        return _jsonable(float(str(x)))
    if isinstance(x, np.generic):
        return _jsonable(x.item())
    if isinstance(x, float) and not np.isfinite(x):
        return None
    return x


@contextmanager
def _sink(target: str) -> Iterator[TextIO]:
    """stdout for ``-``, else the file (opened for writing, newline-neutral for csv)."""
    if target == "-":
        yield sys.stdout
        return
    with open(target, "w", newline="", encoding="utf-8") as f:
        yield f


def _write_json(target: str, data: dict[str, Any], records: str | None = None) -> None:
    """JSON of ``data``; the list ``data[records]`` (if given) is written one item a line."""
    data = _jsonable(data)
    rows = data.pop(records) if records else None
    with _sink(target) as f:
        text = json.dumps(data, indent=2)
        if rows is None:
            f.write(text + "\n")
            return
        lines = ",\n".join("    " + json.dumps(r) for r in rows)
        f.write(text[:-2] + f',\n  "{records}": [\n{lines}\n  ]\n}}\n')


def _write_csv(target: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    with _sink(target) as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(_jsonable(list(rows)))


def _check_outputs(args: argparse.Namespace) -> None:
    if args.json == "-" and args.csv == "-":
        raise CliError("--json and --csv cannot both go to stdout; give one a FILE")
    for target in (args.json, args.csv, getattr(args, "plot", None)):
        if target not in (None, "-") and not Path(target).resolve().parent.is_dir():
            raise CliError(f"cannot write {target}: no such directory")


def _table_wanted(args: argparse.Namespace) -> bool:
    return "-" not in (args.json, args.csv)


def _pm(mean: float, se: float, scale: float = 1.0, digits: int = 2, sign: bool = False) -> str:
    s = "+" if sign else ""
    return f"{scale * mean:{s}.{digits}f} ± {scale * se:.{digits}f}"


class _Progress:
    """Progress of a rollout on stderr: a rich bar with hands/s, or plain lines."""

    def __init__(self, label: str, total: int, enabled: bool) -> None:
        self.label, self.total, self.enabled = label, total, enabled
        self.start = time.perf_counter()
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> _Progress:
        rich = _rich()
        if self.enabled and rich is not None:
            import rich.progress as rp

            self._bar = rp.Progress(
                rp.TextColumn("{task.description}"),
                rp.BarColumn(),
                rp.MofNCompleteColumn(),
                rp.TextColumn("hands · {task.fields[rate]}"),
                rp.TimeElapsedColumn(),
                console=rich.console.Console(stderr=True),
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(
                f"{self.label} (compiling)", total=self.total, rate="- hands/s"
            )
        return self

    def __call__(self, done: int, total: int) -> None:
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        if self._bar is not None:
            self._bar.update(
                self._task, completed=done, description=self.label, rate=f"{rate:,.0f} hands/s"
            )
        elif self.enabled:
            print(f"{self.label}: {done:,}/{total:,} hands, {rate:,.0f} hands/s", file=sys.stderr)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            if exc[0] is not None:  # failed: leave no half-drawn bar above the error line
                self._bar.live.transient = True
            self._bar.__exit__(*exc)


# ------------------------------------------------------------------------ rollout


def cmd_rollout(args: argparse.Namespace) -> int:
    import spoilfive_jax as sf

    rules = _rules(args)
    n = args.players
    policies, names = _seat_policies(args.policy, n)
    if args.per_hand and args.json is None and args.csv is None:
        raise CliError("--per-hand needs --json or --csv")
    _check_outputs(args)
    if not 0 <= args.dealer < n:
        raise CliError(f"--dealer must be a seat 0..{n - 1}, got {args.dealer}")
    env = sf.SpoilFive(n, rules)
    with _Progress("rollout", args.hands, not args.quiet) as progress:
        result = sf.rollout(
            args.seed,
            env,
            policies,
            args.hands,
            args.batch,
            progress,
            dealer=args.dealer,
            carried=args.carried,
        )
    summary = result.summary()
    meta = {
        "players": n,
        "rules": dataclasses.asdict(rules),
        "policies": names,
        "seed": args.seed,
        "dealer": args.dealer,
        "carried": args.carried,
    }
    if args.json is not None:
        if args.per_hand:
            _write_json(args.json, {**meta, "hands": _per_hand_records(result)}, "hands")
        else:
            _write_json(args.json, {**meta, **summary, "seconds": result.seconds})
    if args.csv is not None:
        header, rows = _per_hand_rows(result) if args.per_hand else _summary_rows(summary, names)
        _write_csv(args.csv, header, rows)
    if args.plot:
        _plot(result, names, args.plot)
    if _table_wanted(args):
        _show_rollout(summary, names, rules, result.seconds)
        if args.plot:
            print(f"plot written to {args.plot}")
    return 0


def _show_rollout(s: dict[str, Any], names: list[str], rules: Rules, seconds: float) -> None:
    title = (
        f"{s['hands']:,} hands · {len(names)} players · {seconds:.1f} s "
        f"({s['hands_per_s']:,.0f} hands/s, compile included)\nrules: {_rules_text(rules)}"
    )
    rows = [
        [
            str(i),
            name,
            _pm(s["win_rate"][i], s["win_rate_se"][i], 100),
            _pm(s["mean_chips"][i], s["mean_chips_se"][i], digits=3, sign=True),
        ]
        for i, name in enumerate(names)
    ]
    _show_table(title, ["seat", "policy", "win %", "chips/hand"], rows, left=2)
    print(
        f"spoiled {_pm(s['spoil_rate'], s['spoil_rate_se'], 100)} % · "
        f"jinked {100 * s['jink_rate']:.2f} % (won {100 * s['jink_success_rate']:.1f} %) · "
        f"robbed {100 * s['rob_rate']:.2f} % · {s['mean_decisions']:.1f} decisions/hand"
    )


def _summary_rows(s: dict[str, Any], names: list[str]) -> tuple[list[str], list[list[Any]]]:
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


_PER_HAND = ("winner", "decisions", "jinked", "jink_won", "robbed", "robber", "carried_out")


def _per_hand_rows(result: Any) -> tuple[list[str], list[list[Any]]]:
    n = result.rewards.shape[1]
    header = ["hand", *_PER_HAND]
    header += [f"chips_{s}" for s in range(n)] + [f"tricks_{s}" for s in range(n)]
    cols = [np.arange(result.num_hands)] + [getattr(result, f) for f in _PER_HAND]
    table = np.column_stack(
        [np.asarray(c).astype(np.int64) for c in cols]
        + [result.rewards.astype(np.int64), result.tricks_won.astype(np.int64)]
    )
    return header, table.tolist()


def _per_hand_records(result: Any) -> list[dict[str, Any]]:
    records = []
    for h in range(result.num_hands):
        rec: dict[str, Any] = {"hand": h}
        for f in _PER_HAND:
            value = getattr(result, f)[h]
            rec[f] = bool(value) if value.dtype == np.bool_ else int(value)
        rec["chips"] = result.rewards[h].astype(int).tolist()
        rec["tricks"] = result.tricks_won[h].tolist()
        records.append(rec)
    return records


def _plot(result: Any, names: list[str], path: str) -> None:
    """Win rate by seat (with 95% error bars) and the distribution of each seat's chips."""
    try:
        import matplotlib
    except ImportError:
        raise CliError("--plot needs matplotlib: pip install 'spoilfive-jax[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = result.summary()
    n = len(names)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    seats = np.arange(n)
    left.bar(seats, 100 * s["win_rate"], yerr=196 * s["win_rate_se"], capsize=3, color="#2e7d4f")
    left.set_xticks(seats, [f"{i}\n{names[i]}" for i in seats], fontsize=8)
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


# ------------------------------------------------------------------------ score


@dataclasses.dataclass(frozen=True)
class _Query:
    hand: list[int]
    turnup: int
    seat: int
    source: str  # where it came from, for error messages


def _query(text: str, turnup: str | None, seat: int, source: str, n: int) -> _Query:
    """Five cards, optionally a sixth (the turn-up) and a seat number, from one line."""
    tokens = text.replace(",", " ").split()
    numbers = [t for t in tokens if t.isdigit()]
    cards_text = [t for t in tokens if not t.isdigit()]
    try:
        cards = parse_cards(cards_text)
    except ValueError as e:
        raise CliError(f"{source}: {e}") from None
    if len(numbers) > 1:
        raise CliError(f"{source}: more than one seat number in {text.strip()!r}")
    if numbers:
        seat = int(numbers[0])
    if len(cards) == 6:
        cards, turn = cards[:5], cards[5]
    elif len(cards) == 5 and turnup is not None:
        turn = parse_cards(turnup)[0]
    elif len(cards) == 5:
        raise CliError(f"{source}: no turn-up: give --turnup CARD or a sixth card")
    else:
        raise CliError(
            f"{source}: a hand has 5 cards (plus an optional turn-up), got {len(cards)} "
            f"in {text.strip()!r}"
        )
    shown = " ".join(card_symbol(c) for c in cards)
    dup = sorted({c for c in cards if cards.count(c) > 1})
    if dup:
        raise CliError(f"{source}: duplicate card {card_symbol(dup[0])} in {shown}")
    if turn in cards:
        raise CliError(f"{source}: the turn-up {card_symbol(turn)} is also in the hand {shown}")
    if not 0 <= seat < n:
        raise CliError(f"{source}: seat must be 0..{n - 1} for {n} players, got {seat}")
    return _Query(cards, turn, seat, source)


def _read_queries(args: argparse.Namespace) -> list[_Query]:
    turnup = args.turnup
    if turnup is not None:
        try:
            ids = parse_cards(turnup)
        except ValueError as e:
            raise CliError(f"--turnup: {e}") from None
        if len(ids) != 1:
            raise CliError(f"--turnup takes one card, got {turnup!r}")
    queries = [
        _query(h, turnup, args.seat, f"hand {i + 1}", args.players)
        for i, h in enumerate(args.hands)
    ]
    if args.file:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
        for i, line in enumerate(text.splitlines(), 1):
            body = line.split("#", 1)[0].strip()
            if body:
                queries.append(_query(body, turnup, args.seat, f"{args.file}:{i}", args.players))
    if not queries:
        raise CliError('give one or more hands, e.g. "5H JH AH KD 2C", or --file FILE')
    return queries


def cmd_score(args: argparse.Namespace) -> int:
    queries = _read_queries(args)
    _check_outputs(args)
    policies, names = _seat_policies(args.policy, args.players)
    rules = _rules(args)
    import spoilfive_jax as sf

    scores = sf.score_hands(
        args.seed,
        np.array([q.hand for q in queries], np.int32),
        np.array([q.turnup for q in queries], np.int32),
        np.array([q.seat for q in queries], np.int32),
        args.players,
        rules,
        policies,
        args.rollouts,
        args.batch,
    )
    records = []
    for i, q in enumerate(queries):
        records.append(
            {
                "hand": " ".join(sf.card_str(c) for c in q.hand),
                "turnup": sf.card_str(q.turnup),
                "seat": q.seat,
                "win_prob": scores.win_prob[i],
                "win_prob_se": scores.win_prob_se[i],
                "spoil_prob": scores.spoil_prob[i],
                "spoil_prob_se": scores.spoil_prob_se[i],
                "expected_chips": scores.expected_chips[i],
                "expected_chips_se": scores.expected_chips_se[i],
            }
        )
    meta = {"players": args.players, "rules": dataclasses.asdict(rules), "policies": names}
    meta["rollouts"] = args.rollouts
    if args.json is not None:
        _write_json(args.json, {**meta, "hands": records}, "hands")
    if args.csv is not None:
        header = list(records[0])
        _write_csv(args.csv, header, [[r[k] for k in header] for r in records])
    if _table_wanted(args):
        policy = names[0] if len(set(names)) == 1 else ",".join(names)
        title = (
            f"{args.players} players · {policy} play · {args.rollouts:,} rollouts a hand · "
            f"seat 0 deals, seat 1 leads"
        )
        rows = [
            [
                " ".join(card_symbol(c) for c in q.hand),
                card_symbol(q.turnup),
                str(q.seat),
                _pm(scores.win_prob[i], scores.win_prob_se[i], 100),
                _pm(scores.spoil_prob[i], scores.spoil_prob_se[i], 100),
                _pm(scores.expected_chips[i], scores.expected_chips_se[i], digits=3, sign=True),
            ]
            for i, q in enumerate(queries)
        ]
        _show_table(title, ["hand", "turn-up", "seat", "win %", "spoil %", "chips"], rows, left=2)
    return 0


# ------------------------------------------------------------------------ tournament


def cmd_tournament(args: argparse.Namespace) -> int:
    import spoilfive_jax as sf

    names = [p.strip() for p in args.policies]
    if len(names) < 2:
        raise CliError("a tournament needs at least two policies")
    if len(set(names)) != len(names):
        raise CliError(f"each policy may appear once, got {' '.join(names)}")
    _check_outputs(args)
    cache: dict[str, Any] = {}
    policies = {name: _policy(name, cache) for name in names}
    env = sf.SpoilFive(args.players, _rules(args))
    start = time.perf_counter()
    with _status(f"tournament: {args.hands:,} deals, every seating", not args.quiet):
        result = sf.evaluate(args.seed, env, policies, args.hands, args.batch)
    seconds = time.perf_counter() - start
    records = [
        {
            "policy": name,
            "mean_chips": result.mean_chips[i],
            "ci95": result.ci95[i],
            "win_rate": result.win_rate[i],
        }
        for i, name in enumerate(result.names)
    ]
    if args.json is not None:
        _write_json(
            args.json,
            {
                "players": args.players,
                "rules": dataclasses.asdict(env.rules),
                "deals": result.hands,
                "seatings": result.rotations,
                "seconds": seconds,
                "policies": records,
            },
        )
    if args.csv is not None:
        header = list(records[0])
        _write_csv(args.csv, header, [[r[k] for k in header] for r in records])
    if _table_wanted(args):
        title = (
            f"{result.hands:,} deals × {result.rotations} seatings · {args.players} players · "
            f"{seconds:.1f} s\nrules: {_rules_text(env.rules)}"
        )
        order = np.argsort(-result.mean_chips)
        rows = [
            [
                result.names[i],
                f"{result.mean_chips[i]:+.4f}",
                f"± {result.ci95[i]:.4f}",
                f"{100 * result.win_rate[i]:.2f}",
            ]
            for i in order
        ]
        _show_table(title, ["policy", "chips/hand", "95% CI", "win %"], rows)
    return 0


@contextmanager
def _status(text: str, enabled: bool) -> Iterator[None]:
    rich = _rich()
    if not enabled or rich is None:
        yield
        return
    with rich.console.Console(stderr=True).status(text):
        yield


# ------------------------------------------------------------------------ bench


def _bench_script() -> Path:
    return Path(__file__).resolve().parents[1] / "benchmarks" / "throughput.py"


def cmd_bench(args: argparse.Namespace) -> int:
    script = _bench_script()
    if not script.is_file():
        raise CliError(
            f"bench runs benchmarks/throughput.py from a source checkout; not found: {script}"
        )
    spec = importlib.util.spec_from_file_location("spoilfive_throughput", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    argv = ["--reps", str(args.reps), "--pickers", args.pickers]
    if args.players:
        argv += ["--players", args.players]
    if args.batch:
        argv += ["--batch", args.batch]
    if args.peer_seconds is not None:
        argv += ["--peer-seconds", str(args.peer_seconds)]
    if args.json:
        argv += ["--json", args.json]
    argv += ["--quick"] if args.quick else []
    argv += ["--no-peers"] if args.no_peers else []
    module.main(argv)
    return 0


def _int_list(text: str) -> str:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}"
        ) from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return ",".join(str(v) for v in values)


def _pickers(text: str) -> str:
    names = [x.strip() for x in text.split(",") if x.strip()]
    if not names or any(x not in ("bits", "mask") for x in names):
        raise argparse.ArgumentTypeError(f"pickers are bits and/or mask, got {text!r}")
    return ",".join(names)


# ------------------------------------------------------------------------ play


def cmd_play(args: argparse.Namespace) -> int:
    import spoilfive_jax as sf
    from spoilfive_jax._src.play import play_terminal
    from spoilfive_jax._src.policies import resolve

    n = args.players
    if not 0 <= args.seat < n:
        raise CliError(f"--seat must be 0..{n - 1} for {n} players, got {args.seat}")
    if not 0 <= args.dealer < n:
        raise CliError(f"--dealer must be 0..{n - 1} for {n} players, got {args.dealer}")
    bots = resolve(_policy(args.bots, {}), 1)[0]
    env = sf.SpoilFive(n, _rules(args))
    print(
        f"Spoil Five: you are seat {args.seat} of {n}, against {args.bots} bots; "
        f"{args.hands} hand{'s' if args.hands > 1 else ''}. Type ? for help, q to quit."
    )
    play_terminal(
        env,
        sys.stdin,
        sys.stdout,
        human=args.seat,
        bots=bots,
        hands=args.hands,
        dealer=args.dealer,
        seed=args.seed,
    )
    return 0


# ------------------------------------------------------------------------ rules

_FOLLOW = {
    "seed": "a plain suit led: holding that suit or any trump, play one of them (trumping "
    "instead of following is allowed); holding neither, play anything",
    "traditional": "a plain suit led: holding that suit, follow or trump; void in it, play "
    "anything (even while holding trumps)",
}
_RENEGE = {
    "deal": "a top trump may be withheld from a trump lead while it outranks every trump "
    "played so far this deal",
    "trick": "a top trump may be withheld from a trump lead while it outranks every trump "
    "played so far in this trick",
    "led": "a top trump may be withheld from a trump lead when it outranks the trump led",
}
_ROB = {
    "optional": "the holder of the ace of trumps (the dealer, if an ace is turned up) may take "
    "the turn-up, discarding a card face down",
    "forced": "the holder of the ace of trumps (the dealer, if an ace is turned up) must take "
    "the turn-up, discarding a card face down",
    "off": "nobody robs the pack",
}


def cmd_rules(args: argparse.Namespace) -> int:
    import textwrap

    rules = _rules(args)
    suits = [args.suit] if args.suit is not None else list(range(4))
    renege = f"{_RENEGE[rules.renege]}; the 5 of trumps may always be withheld, and nobody "
    renege += "may renege when the 5 is led"
    if rules.jink:
        jink = (
            "the winner of tricks 1-3 may play on; winning all five takes the pot plus "
            f"{rules.bonus} from each other player, losing a trick carries the pot"
        )
    else:
        jink = "off: three tricks take the pot at once"
    after = "every player" if rules.ante_after_spoil == "all" else "only the dealer"
    pot = f"ante {rules.ante} each; when chips were carried in, {after} antes"
    packets = f"{rules.deal_packets[0]} then {rules.deal_packets[1]} cards to each player"
    print(f"Rules ({args.preset} preset)")
    for name, text in (
        ("options", _rules_text(rules)),
        ("following", _FOLLOW[rules.follow]),
        ("reneging", renege),
        ("robbing", _ROB[rules.rob]),
        ("jink", jink),
        ("pot", pot),
        ("deal", packets),
    ):
        print(
            textwrap.fill(
                text, 92, initial_indent=f"  {name + ':':<11}", subsequent_indent=" " * 13
            )
        )
    for t in suits:
        order = trump_order_of(t)
        print()
        print(f"Trump {SUIT_NAMES[t]} {SUIT_SYMBOLS[t]}: {len(order)} trumps, highest first")
        print("  " + " ".join(card_symbol(c) for c in order))
        print(f"  top trumps (may be reneged): {' '.join(card_symbol(c) for c in order[:3])}")
        print("Plain suits, highest first:")
        for s in range(4):
            if s == t:
                continue
            cards = " ".join(card_symbol(c) for c in plain_order_of(s, t))
            print(f"  {SUIT_NAMES[s] + ' ' + SUIT_SYMBOLS[s] + ':':<11} {cards}")
    return 0


# ------------------------------------------------------------------------ the parser


def build_parser() -> argparse.ArgumentParser:
    from spoilfive_jax import __version__

    parser = _Parser(
        prog=PROG,
        description="Spoil Five on JAX: rollouts, hand scores, tournaments, benchmarks, "
        "terminal play and the rules.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    policy_help = (
        "random, heuristic or agent:PATH (.npz/.msgpack); one, or one per seat with commas"
    )

    p = sub.add_parser(
        "rollout",
        help="play many hands and summarise them",
        description="Play many independent hands (every seat deals the same "
        "way) and summarise win rates, spoils, jinks and chips per seat.",
    )
    p.add_argument("--hands", type=_int_at_least(1), default=100_000, help="hands to play")
    p.add_argument("--policy", default="heuristic", help=f"{policy_help} (default heuristic)")
    p.add_argument("--batch", type=_int_at_least(1), help="hands played at once")
    p.add_argument("--seed", type=_int_at_least(0), default=0)
    p.add_argument("--dealer", type=_int_at_least(0), default=0, help="seat that deals")
    p.add_argument("--carried", type=_int_at_least(0), default=0, help="chips carried in")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_table_options(p)
    _add_output_options(p)
    p.add_argument("--per-hand", action="store_true", help="--json/--csv: one record per hand")
    p.add_argument("--plot", metavar="FILE.png", help="win rate by seat and chip results")
    p.set_defaults(run=cmd_rollout)

    p = sub.add_parser(
        "score",
        help="win %%, spoil %% and expected chips of hands",
        description="Estimate what hands are worth by Monte Carlo: the seat gets "
        "its five cards and the turn-up, the unseen cards are dealt at random "
        "and the hand is played out.",
    )
    p.add_argument(
        "hands",
        nargs="*",
        metavar="HAND",
        help='five cards, e.g. "5H JH AH KD 2C" (a sixth card is the turn-up)',
    )
    p.add_argument(
        "--file",
        metavar="FILE",
        help="hands one per line: 5 cards [turn-up] [seat]; # comments; - = stdin",
    )
    p.add_argument("--turnup", metavar="CARD", help="the turn-up (trump) card")
    p.add_argument(
        "--seat",
        type=_int_at_least(0),
        default=1,
        help="the hand's seat: 0 = dealer, 1 = eldest (leads), ... (default 1)",
    )
    p.add_argument("--policy", default="heuristic", help=f"{policy_help} (default heuristic)")
    p.add_argument("--rollouts", type=_int_at_least(2), default=10_000, help="deals per hand")
    p.add_argument("--batch", type=_int_at_least(1))
    p.add_argument("--seed", type=_int_at_least(0), default=0)
    _add_table_options(p)
    _add_output_options(p)
    p.set_defaults(run=cmd_score)

    p = sub.add_parser(
        "tournament",
        help="policies against each other",
        description="Seat the policies round the table in every rotation on the "
        "same deals; report chips per hand with 95%% confidence intervals.",
    )
    p.add_argument(
        "policies",
        nargs="*",
        default=["heuristic", "random"],
        metavar="POLICY",
        help="random, heuristic, agent:PATH (default: heuristic random)",
    )
    p.add_argument("--hands", type=_int_at_least(2), default=20_000, help="deals per seating")
    p.add_argument("--batch", type=_int_at_least(1))
    p.add_argument("--seed", type=_int_at_least(0), default=0)
    p.add_argument("--quiet", action="store_true", help="no status line")
    _add_table_options(p)
    _add_output_options(p)
    p.set_defaults(run=cmd_tournament)

    p = sub.add_parser(
        "bench",
        help="throughput table (with pyspiel peers when installed)",
        description="Run benchmarks/throughput.py: random-play hands/s and "
        "decisions/s of jit(vmap(step)), with pyspiel peers when installed.",
    )
    p.add_argument("--players", type=_int_list, help="comma list of N (default 2,5,10)")
    p.add_argument("--batch", type=_int_list, help="comma list of batch sizes")
    p.add_argument("--pickers", type=_pickers, default="bits,mask", help="bits and/or mask")
    p.add_argument("--reps", type=_int_at_least(1), default=5, help="timed runs per row")
    p.add_argument("--peer-seconds", type=float, help="pyspiel time per peer game")
    p.add_argument("--quick", action="store_true", help="N=5, batch 1024, short peers")
    p.add_argument("--no-peers", action="store_true", help="skip the pyspiel peers")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.set_defaults(run=cmd_bench)

    p = sub.add_parser(
        "play",
        help="play against bots in the terminal",
        description="Play a hand, or a session of --hands hands (the deal "
        "passing left, spoiled pots carried), against bots.",
    )
    p.add_argument("--seat", type=_int_at_least(0), default=0, help="your seat (default 0)")
    p.add_argument("--bots", default="heuristic", help="random, heuristic or agent:PATH")
    p.add_argument("--hands", type=_int_at_least(1), default=1, help="hands in the session")
    p.add_argument("--dealer", type=_int_at_least(0), default=0, help="first dealer's seat")
    p.add_argument("--seed", type=_int_at_least(0), default=0)
    _add_table_options(p)
    p.set_defaults(run=cmd_play)

    p = sub.add_parser(
        "rules",
        help="card ranking and rule options",
        description="Print the card ranking for a trump suit (all four without "
        "SUIT) and what the chosen rule options mean.",
    )
    p.add_argument("suit", nargs="?", type=_suit, help="trump suit: C, D, H or S")
    _add_table_options(p, players=False)
    p.set_defaults(run=cmd_rules)
    return parser


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split("\n")).strip()
    return text or type(error).__name__


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return int(args.run(args))
    except SystemExit as e:  # --help and --version
        return e.code if isinstance(e.code, int) else 0
    except (CliError, ValueError) as e:
        print(f"{PROG}: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # stdout closed early (| head): stop quietly
        _silence_stdout()
        return 141
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"{PROG}: error: {where}{e.strerror or _one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130
