"""The ``spoilfive`` command line (also ``python -m spoilfive_jax``).

Subcommands: ``rollout`` (mass self-play with a summary, JSON/CSV and a plot), ``score`` (what a
hand is worth), ``tournament`` (policies against each other), ``bench`` (throughput table),
``play`` (a hand or a session against bots in the terminal) and ``rules`` (card ranking and rule
options).  ``--game forty_five|twenty_five|auction`` runs rollout, score, tournament and rules on
the Forty-Five family (RULES.md §7) instead of Spoil Five.  ``main(argv) -> int`` returns the
exit status: 0 on success, 2 on bad input (one line ``spoilfive: error: ...`` on stderr, never a
traceback).

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

from spoilfive_jax.core.cards import SUIT_SYMBOLS, SUITS, card_symbol, parse_cards
from spoilfive_jax.core.cards import plain_order as plain_order_of
from spoilfive_jax.core.cards import trump_order as trump_order_of
from spoilfive_jax.games.forty_five.rules import FortyFiveRules
from spoilfive_jax.games.spoil_five.rules import Rules

PROG = "spoilfive"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
AGENT_PREFIX = "agent:"
AGENT_SUFFIXES = (".npz", ".msgpack")
GAMES = ("spoilfive", "forty_five", "twenty_five", "auction")
FAMILY_POLICIES = ("random", "greedy", "heuristic")  # the family's built-in policies
GAME_NAMES = {
    "spoil_five": "Spoil Five",
    "forty_five": "Forty-Five",
    "twenty_five": "Twenty-Five",
    "auction_forty_fives": "Auction Forty-Fives",
}
FAMILY_OPTIONS = ("target", "scoring", "tie_break", "joker", "joker_rank")  # family only
SPOILFIVE_OPTIONS = ("preset", "ante", "jink_bonus", "ante_after_spoil")  # Spoil Five only
SHARED_OPTIONS = ("follow", "renege", "rob", "deal_packets", "illegal_penalty")
JOKER_TEXT = "JK"


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
        raise argparse.ArgumentTypeError(f"expected 2 to 10 players, got {n}")
    return n


def _suit(text: str) -> int:
    t = text.strip().lower()
    for i, (letter, name, symbol) in enumerate(zip(SUITS, SUIT_NAMES, SUIT_SYMBOLS, strict=True)):
        if t in (letter.lower(), name, name[:-1], symbol):
            return i
    raise argparse.ArgumentTypeError(f"unknown suit {text!r}; use C, D, H or S (or clubs, ...)")


def _add_table_options(p: argparse.ArgumentParser, players: bool = True) -> None:
    """The game, the table size and every ``Rules``/``FortyFiveRules`` field (None = the
    preset's or the variant's value)."""
    g = p.add_argument_group("table and rules")
    g.add_argument(
        "--game",
        choices=GAMES,
        default="spoilfive",
        help="spoilfive (default), or the Forty-Five family (RULES.md §7): forty_five, "
        "twenty_five, auction (Auction Forty-Fives)",
    )
    if players:
        g.add_argument(
            "-n", "--players", type=_players, help="2..10 (default 5; 4 for the Forty-Five family)"
        )
    g.add_argument(
        "--preset",
        choices=("seed", "traditional"),
        help="Spoil Five rule preset the options below change (default: seed)",
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
        nargs="?",
        const="on",
        choices=("on", "off", "announced", "wins_game"),
        metavar="MODE",
        help="Spoil Five: --jink allows the jink after winning tricks 1-3, --no-jink does not "
        "(seed variant); the Forty-Five family: --jink off|announced|wins_game (bare --jink: "
        "announced)",
    )
    g.add_argument("--no-jink", dest="jink", action="store_const", const="off", help="no jink")
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
        help="chips (family: points) an illegal action costs under jit (agent policies)",
    )
    f = p.add_argument_group("the Forty-Five family (--game forty_five|twenty_five|auction)")
    f.add_argument(
        "--target",
        type=_int_at_least(1),
        metavar="POINTS",
        help="points that win the game (default 45, 25 or 120)",
    )
    f.add_argument(
        "--scoring",
        choices=("best_trump", "hoyle"),
        help="best_trump: 5 a trick + 5 for the best trump; hoyle: 3-4 tricks 5, all five 10",
    )
    f.add_argument(
        "--tie-break",
        choices=("first_counted", "higher_total"),
        help="several teams reach the target in one hand",
    )
    f.add_argument(
        "--joker",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="play with the joker (53 cards, JK: always a trump)",
    )
    f.add_argument(
        "--joker-rank", choices=("below_AH", "above_AH"), help="the joker just below or above A♥"
    )


def _is_family(args: argparse.Namespace) -> bool:
    return getattr(args, "game", "spoilfive") != "spoilfive"


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _rules(args: argparse.Namespace) -> Rules | FortyFiveRules:
    """The rules the options give, for ``--game`` (options of the other game are refused)."""
    given = {k for k in (*FAMILY_OPTIONS, *SPOILFIVE_OPTIONS) if getattr(args, k, None) is not None}
    if not _is_family(args):
        family_only = [k for k in FAMILY_OPTIONS if k in given]
        if family_only:
            raise CliError(
                f"{_flag(family_only[0])} is an option of the Forty-Five family "
                "(--game forty_five, twenty_five or auction)"
            )
        if args.jink in ("announced", "wins_game"):
            raise CliError(
                f"--jink {args.jink} is for the Forty-Five family; Spoil Five takes --jink or "
                "--no-jink"
            )
        names = [f.name for f in dataclasses.fields(Rules)]  # one option per field
        overrides = {k: getattr(args, k) for k in names if getattr(args, k, None) is not None}
        if "jink" in overrides:
            overrides["jink"] = overrides["jink"] == "on"
        return Rules.preset(args.preset or "seed", **overrides)
    spoil_only = [k for k in SPOILFIVE_OPTIONS if k in given]
    if spoil_only:
        raise CliError(
            f"{_flag(spoil_only[0])} is a Spoil Five option, not one of --game {args.game}"
        )
    names = [*FAMILY_OPTIONS, *SHARED_OPTIONS]
    overrides = {k: getattr(args, k) for k in names if getattr(args, k, None) is not None}
    if args.jink is not None:
        overrides["jink"] = "announced" if args.jink == "on" else args.jink
    return FortyFiveRules(variant=args.game, **overrides)  # bad mixes raise ValueError


def _env(args: argparse.Namespace, rules: Rules | FortyFiveRules) -> Any:
    import spoilfive_jax as sf

    if isinstance(rules, FortyFiveRules):
        return sf.FortyFive(args.players, rules)
    return sf.SpoilFive(args.players, rules)


def _game_name(rules: Rules | FortyFiveRules) -> str:
    if isinstance(rules, FortyFiveRules):
        return GAME_NAMES[{"auction": "auction_forty_fives"}.get(rules.variant, rules.variant)]
    return GAME_NAMES["spoil_five"]


def _teams_text(n: int) -> str:
    """The teams at a family table of ``n`` players (seat s plays for team s % T)."""
    from spoilfive_jax.games.forty_five import num_teams

    t = num_teams(n)
    if t == n:
        return "head to head" if n == 2 else "every player for themselves"
    return " v ".join("&".join(str(s) for s in range(i, n, t)) for i in range(t))


def _rules_text(rules: Rules | FortyFiveRules) -> str:
    if isinstance(rules, FortyFiveRules):
        joker = f"on ({rules.joker_rank})" if rules.joker else "off"
        text = (
            f"variant={rules.variant} target={rules.goal} scoring={rules.scoring} "
            f"tie_break={rules.tie_break} jink={rules.jink} joker={joker} follow={rules.follow} "
            f"renege={rules.renege}"
        )
        if not rules.auction:
            text += f" rob={rules.rob}"
        return text + f" deal={rules.deal_packets[0]}+{rules.deal_packets[1]}"
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
    """A trained agent through ``spoilfive_jax.rl.agent.load_policy`` (the RL module)."""
    p = Path(path)
    if p.suffix not in AGENT_SUFFIXES:
        raise CliError(f"an agent file must end in .npz or .msgpack, got {path!r}")
    if not p.is_file():
        raise CliError(f"agent file not found: {path}")
    try:
        module = importlib.import_module("spoilfive_jax.rl.agent")
    except ModuleNotFoundError as e:
        if e.name not in (None, "spoilfive_jax.rl.agent"):
            raise CliError(
                f"loading an agent needs the module {e.name!r}: pip install 'spoilfive-jax[rl]'"
            ) from None
        raise CliError(
            "agent policies need spoilfive_jax.rl.agent (the RL module), which this installation "
            "does not have"
        ) from None
    return module.load_policy(str(p))  # type: ignore[no-any-return]


def _policy(spec: str, cache: dict[str, Any], family: bool = False) -> Any:
    """``random``, ``heuristic`` or ``agent:PATH`` (the family: ``random``, ``greedy`` or
    ``heuristic``) -> a policy the library accepts."""
    spec = spec.strip()
    if family:
        if spec in FAMILY_POLICIES:
            return spec
        if spec.startswith(AGENT_PREFIX):
            raise CliError(
                "agent policies play Spoil Five only; the Forty-Five family takes random, "
                "greedy or heuristic"
            )
        raise CliError(
            f"unknown policy {spec!r}; the Forty-Five family takes random, greedy or heuristic"
        )
    if spec in ("random", "heuristic"):
        return spec
    if spec.startswith(AGENT_PREFIX):
        path = spec[len(AGENT_PREFIX) :]
        if path not in cache:
            cache[path] = _load_agent(path)
        return cache[path]
    raise CliError(f"unknown policy {spec!r}; use random, heuristic or agent:PATH.npz")


def _seat_policies(
    text: str | None, num_players: int, family: bool = False
) -> tuple[list[Any], list[str]]:
    """``heuristic`` (every seat) or one spec per seat, comma-separated: (policies, names)."""
    text = text or ("random" if family else "heuristic")
    names = [s.strip() for s in text.split(",")]
    if len(names) == 1:
        names = names * num_players
    if len(names) != num_players or not all(names):
        raise CliError(f"--policy needs one policy or one per seat ({num_players}), got {text!r}")
    cache: dict[str, Any] = {}
    return [_policy(s, cache, family) for s in names], names


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
    family = isinstance(rules, FortyFiveRules)
    n = args.players
    policies, names = _seat_policies(args.policy, n, family)
    if args.per_hand and args.json is None and args.csv is None:
        raise CliError("--per-hand needs --json or --csv")
    _check_outputs(args)
    if not 0 <= args.dealer < n:
        raise CliError(f"--dealer must be a seat 0..{n - 1}, got {args.dealer}")
    if family and args.carried:
        raise CliError("--carried is Spoil Five's pot; the Forty-Five family has none")
    env = _env(args, rules)
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
        "game": env.id,
        "players": n,
        "rules": dataclasses.asdict(rules),
        "policies": names,
        "seed": args.seed,
        "dealer": args.dealer,
        "carried": args.carried,
    }
    if family:
        meta.pop("carried")
    if args.json is not None:
        if args.per_hand:
            records = _per_hand_records(result, family)
            _write_json(args.json, {**meta, "hands": records}, "hands")
        else:
            _write_json(args.json, {**meta, **summary, "seconds": result.seconds})
    if args.csv is not None:
        if args.per_hand:
            header, rows = _per_hand_rows(result, family)
        else:
            header, rows = (_family_summary_rows if family else _summary_rows)(summary, names)
        _write_csv(args.csv, header, rows)
    if args.plot:
        (_plot_family if family else _plot)(result, names, args.plot)
    if _table_wanted(args):
        if isinstance(rules, FortyFiveRules):
            _show_family_rollout(summary, names, rules, result.seconds)
        else:
            _show_rollout(summary, names, rules, result.seconds)
        if args.plot:
            print(f"plot written to {args.plot}")
    return 0


def _show_family_rollout(
    s: dict[str, Any], names: list[str], rules: FortyFiveRules, seconds: float
) -> None:
    n = len(names)
    t = s["mean_team_points"].shape[0]
    title = (
        f"{_game_name(rules)} · {s['hands']:,} hands · {n} players ({_teams_text(n)}) · "
        f"{seconds:.1f} s ({s['hands_per_s']:,.0f} hands/s, compile included)\n"
        f"rules: {_rules_text(rules)}"
    )
    rows = [
        [
            str(i),
            str(i % t),
            name,
            _pm(s["mean_points"][i], s["mean_points_se"][i], digits=3, sign=True),
        ]
        for i, name in enumerate(names)
    ]
    _show_table(title, ["seat", "team", "policy", "points/hand"], rows, left=3)
    rows = [
        [
            str(i),
            ",".join(str(x) for x in range(i, n, t)),
            _pm(s["mean_team_points"][i], s["mean_team_points_se"][i], digits=3, sign=True),
            _pm(s["team_win_rate"][i], s["team_win_rate_se"][i], 100),
            f"{s['mean_team_tricks'][i]:.3f}",
            " ".join(f"{100 * x:.1f}" for x in s["team_tricks"][i]),
        ]
        for i in range(t)
    ]
    _show_table(
        "teams (won: more points than every other team in the hand)",
        ["team", "seats", "points/hand", "won %", "tricks", "% of hands with 0 1 2 3 4 5 tricks"],
        rows,
        left=2,
    )
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
    print(" · ".join(parts))


def _family_summary_rows(s: dict[str, Any], names: list[str]) -> tuple[list[str], list[list[Any]]]:
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


_FAMILY_PER_HAND = ("decisions", "jinked", "jink_won", "robbed", "robber", "bid", "bidder")


def _plot_family(result: Any, names: list[str], path: str) -> None:
    """Mean points by seat (with 95% error bars) and each team's trick distribution."""
    try:
        import matplotlib
    except ImportError:
        raise CliError("--plot needs matplotlib: pip install 'spoilfive-jax[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = result.summary()
    n, t = len(names), s["mean_team_points"].shape[0]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    seats = np.arange(n)
    left.bar(seats, s["mean_points"], yerr=1.96 * s["mean_points_se"], capsize=3, color="#2e7d4f")
    left.set_xticks(seats, [f"{i}\n{names[i]}\nteam {i % t}" for i in seats], fontsize=8)
    left.set_xlabel("seat (0 = dealer)")
    left.set_ylabel("points per hand (the seat's team)")
    left.set_title(f"{GAME_NAMES[result.game]}: points by seat ({s['hands']:,} hands)")
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


def _show_rollout(s: dict[str, Any], names: list[str], rules: Any, seconds: float) -> None:
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


def _hand_columns(result: Any, family: bool) -> tuple[tuple[str, ...], np.ndarray, str]:
    """Per-hand scalar fields, the per-seat (or per-team) result block and its name."""
    if family:
        return _FAMILY_PER_HAND, result.team_points, "team_points"
    return _PER_HAND, result.rewards, "chips"


def _per_hand_rows(result: Any, family: bool = False) -> tuple[list[str], list[list[Any]]]:
    fields, block, name = _hand_columns(result, family)
    prefix = "points_team" if family else name
    header = ["hand", *fields]
    header += [f"{prefix}_{i}" for i in range(block.shape[1])]
    header += [f"tricks_{s}" for s in range(result.tricks_won.shape[1])]
    cols = [np.arange(result.num_hands)] + [getattr(result, f) for f in fields]
    table = np.column_stack(
        [np.asarray(c).astype(np.int64) for c in cols]
        + [block.astype(np.int64), result.tricks_won.astype(np.int64)]
    )
    return header, table.tolist()


def _per_hand_records(result: Any, family: bool = False) -> list[dict[str, Any]]:
    fields, block, name = _hand_columns(result, family)
    records = []
    for h in range(result.num_hands):
        rec: dict[str, Any] = {"hand": h}
        for f in fields:
            value = getattr(result, f)[h]
            rec[f] = bool(value) if value.dtype == np.bool_ else int(value)
        rec[name] = block[h].astype(int).tolist()
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
    turnup: int  # -1: none (Auction Forty-Fives)
    seat: int
    source: str  # where it came from, for error messages


def _symbol(card: int) -> str:
    """A card with its suit symbol, ``JK`` for the joker (52)."""
    from spoilfive_jax.games.forty_five import JOKER

    return JOKER_TEXT if card == JOKER else card_symbol(card)


def _parse(text: str | list[str], rules: Rules | FortyFiveRules) -> list[int]:
    """Card ids (the family's parser also reads ``JK``, refused when the joker is not in play)."""
    if not isinstance(rules, FortyFiveRules):
        return parse_cards(text)
    from spoilfive_jax.games.forty_five import JOKER
    from spoilfive_jax.games.forty_five import parse_cards as parse_family

    cards = parse_family(text)
    if JOKER in cards and not rules.joker:
        raise ValueError("the joker (JK) is not in play: add --joker")
    return cards


def _query(
    text: str, turnup: str | None, seat: int, source: str, n: int, rules: Rules | FortyFiveRules
) -> _Query:
    """Five cards, optionally a sixth (the turn-up) and a seat number, from one line."""
    tokens = text.replace(",", " ").split()
    numbers = [t for t in tokens if t.isdigit()]
    cards_text = [t for t in tokens if not t.isdigit()]
    try:
        cards = _parse(cards_text, rules)
    except ValueError as e:
        raise CliError(f"{source}: {e}") from None
    if len(numbers) > 1:
        raise CliError(f"{source}: more than one seat number in {text.strip()!r}")
    if numbers:
        seat = int(numbers[0])
    auction = isinstance(rules, FortyFiveRules) and rules.auction
    if auction:
        if len(cards) != 5:
            raise CliError(
                f"{source}: a hand has 5 cards (Auction Forty-Fives has no turn-up), got "
                f"{len(cards)} in {text.strip()!r}"
            )
        turn = -1
    elif len(cards) == 6:
        cards, turn = cards[:5], cards[5]
    elif len(cards) == 5 and turnup is not None:
        turn = _parse(turnup, rules)[0]
    elif len(cards) == 5:
        raise CliError(f"{source}: no turn-up: give --turnup CARD or a sixth card")
    else:
        raise CliError(
            f"{source}: a hand has 5 cards (plus an optional turn-up), got {len(cards)} "
            f"in {text.strip()!r}"
        )
    shown = " ".join(_symbol(c) for c in cards)
    dup = sorted({c for c in cards if cards.count(c) > 1})
    if dup:
        raise CliError(f"{source}: duplicate card {_symbol(dup[0])} in {shown}")
    if turn in cards:
        raise CliError(f"{source}: the turn-up {_symbol(turn)} is also in the hand {shown}")
    if turn == 52:
        raise CliError(
            f"{source}: the turn-up must be a card, not the joker (a turned-up joker goes to "
            "the dealer and the next card is turned up)"
        )
    if not 0 <= seat < n:
        raise CliError(f"{source}: seat must be 0..{n - 1} for {n} players, got {seat}")
    return _Query(cards, turn, seat, source)


def _read_queries(args: argparse.Namespace, rules: Rules | FortyFiveRules) -> list[_Query]:
    turnup = args.turnup
    if turnup is not None:
        if isinstance(rules, FortyFiveRules) and rules.auction:
            raise CliError("--turnup: Auction Forty-Fives has no turn-up")
        try:
            ids = _parse(turnup, rules)
        except ValueError as e:
            raise CliError(f"--turnup: {e}") from None
        if len(ids) != 1:
            raise CliError(f"--turnup takes one card, got {turnup!r}")
    queries = [
        _query(h, turnup, args.seat, f"hand {i + 1}", args.players, rules)
        for i, h in enumerate(args.hands)
    ]
    if args.file:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
        for i, line in enumerate(text.splitlines(), 1):
            body = line.split("#", 1)[0].strip()
            if body:
                source = f"{args.file}:{i}"
                queries.append(_query(body, turnup, args.seat, source, args.players, rules))
    if not queries:
        raise CliError('give one or more hands, e.g. "5H JH AH KD 2C", or --file FILE')
    return queries


def cmd_score(args: argparse.Namespace) -> int:
    rules = _rules(args)
    if isinstance(rules, FortyFiveRules):
        return _score_family(args, rules)
    if args.threshold is not None:
        raise CliError("--threshold is an option of the Forty-Five family (--game ...)")
    queries = _read_queries(args, rules)
    _check_outputs(args)
    policies, names = _seat_policies(args.policy, args.players)
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
    assert isinstance(scores, sf.HandScores)
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


def _score_family(args: argparse.Namespace, rules: FortyFiveRules) -> int:
    """``score`` for the Forty-Five family: the seat's team's points, P(>= threshold), tricks."""
    import spoilfive_jax as sf
    from spoilfive_jax.games.forty_five import card_text
    from spoilfive_jax.tools.scorer import FamilyScores

    queries = _read_queries(args, rules)
    _check_outputs(args)
    policies, names = _seat_policies(args.policy, args.players, family=True)
    threshold = 15 if args.threshold is None else args.threshold
    env = _env(args, rules)
    scores = sf.score_hands(
        args.seed,
        np.array([q.hand for q in queries], np.int32),
        None if rules.auction else np.array([q.turnup for q in queries], np.int32),
        np.array([q.seat for q in queries], np.int32),
        policy=policies,
        num_rollouts=args.rollouts,
        batch_size=args.batch,
        env=env,
        threshold=threshold,
    )
    assert isinstance(scores, FamilyScores)
    t = env.num_teams
    records = []
    for i, q in enumerate(queries):
        records.append(
            {
                "hand": " ".join(card_text(c) for c in q.hand),
                "turnup": None if rules.auction else card_text(q.turnup),
                "seat": q.seat,
                "team": q.seat % t,
                "expected_points": scores.expected_points[i],
                "expected_points_se": scores.expected_points_se[i],
                "reach_prob": scores.reach_prob[i],
                "reach_prob_se": scores.reach_prob_se[i],
                "expected_tricks": scores.expected_tricks[i],
                "expected_tricks_se": scores.expected_tricks_se[i],
            }
        )
    meta = {
        "game": env.id,
        "players": args.players,
        "rules": dataclasses.asdict(rules),
        "policies": names,
        "rollouts": args.rollouts,
        "threshold": threshold,
    }
    if args.json is not None:
        _write_json(args.json, {**meta, "hands": records}, "hands")
    if args.csv is not None:
        header = list(records[0])
        _write_csv(args.csv, header, [[r[k] for k in header] for r in records])
    if _table_wanted(args):
        policy = names[0] if len(set(names)) == 1 else ",".join(names)
        title = (
            f"{_game_name(rules)} · {args.players} players ({_teams_text(args.players)}) · "
            f"{policy} play · {args.rollouts:,} rollouts a hand · seat 0 deals, seat 1 leads\n"
            "points, P and tricks are those of the seat's team for the hand"
        )
        rows = []
        for i, q in enumerate(queries):
            row = [" ".join(_symbol(c) for c in q.hand)]
            row += [] if rules.auction else [_symbol(q.turnup)]
            row += [
                str(q.seat),
                str(q.seat % t),
                _pm(scores.expected_points[i], scores.expected_points_se[i], sign=True),
                _pm(scores.reach_prob[i], scores.reach_prob_se[i], 100),
                _pm(scores.expected_tricks[i], scores.expected_tricks_se[i], digits=3),
            ]
            rows.append(row)
        columns = ["hand"] + ([] if rules.auction else ["turn-up"])
        columns += ["seat", "team", "points", f"P(>={threshold}) %", "tricks"]
        _show_table(title, columns, rows, left=len(columns) - 5)
    return 0


# ------------------------------------------------------------------------ tournament


def cmd_tournament(args: argparse.Namespace) -> int:
    import spoilfive_jax as sf

    rules = _rules(args)
    family = isinstance(rules, FortyFiveRules)
    given = args.policies or (["greedy", "random"] if family else ["heuristic", "random"])
    names = [p.strip() for p in given]
    if len(names) < 2:
        raise CliError("a tournament needs at least two policies")
    if len(set(names)) != len(names):
        raise CliError(f"each policy may appear once, got {' '.join(names)}")
    _check_outputs(args)
    cache: dict[str, Any] = {}
    policies = {name: _policy(name, cache, family) for name in names}
    env = _env(args, rules)
    unit = "points" if family else "chips"
    start = time.perf_counter()
    with _status(f"tournament: {args.hands:,} deals, every seating", not args.quiet):
        result = sf.evaluate(args.seed, env, policies, args.hands, args.batch)
    seconds = time.perf_counter() - start
    records = [
        {
            "policy": name,
            f"mean_{unit}": result.mean_chips[i],
            "ci95": result.ci95[i],
            "win_rate": result.win_rate[i],
        }
        for i, name in enumerate(result.names)
    ]
    if args.json is not None:
        _write_json(
            args.json,
            {
                "game": env.id,
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
        players = f"{args.players} players"
        if family:
            players = f"{_game_name(rules)} · {players} ({_teams_text(args.players)})"
        title = (
            f"{result.hands:,} deals × {result.rotations} seatings · {players} · "
            f"{seconds:.1f} s\nrules: {_rules_text(env.rules)}"
        )
        if family:
            title += "\npoints: the seat's team's per hand; won: hands its team outscored the rest"
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
        _show_table(title, ["policy", f"{unit}/hand", "95% CI", "win %"], rows)
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
    from spoilfive_jax.games.spoil_five.play import play_terminal
    from spoilfive_jax.games.spoil_five.policies import resolve

    n = args.players
    if not 0 <= args.seat < n:
        raise CliError(f"--seat must be 0..{n - 1} for {n} players, got {args.seat}")
    if not 0 <= args.dealer < n:
        raise CliError(f"--dealer must be 0..{n - 1} for {n} players, got {args.dealer}")
    if _is_family(args):
        return _play_family(args)
    bots = resolve(_policy(args.bots or "heuristic", {}), 1)[0]
    hands = args.hands or 1
    rules = _rules(args)
    assert isinstance(rules, Rules)
    env = sf.SpoilFive(n, rules)
    print(
        f"Spoil Five: you are seat {args.seat} of {n}, against {args.bots or 'heuristic'} bots; "
        f"{hands} hand{'s' if hands > 1 else ''}. Type ? for help, q to quit."
    )
    play_terminal(
        env,
        sys.stdin,
        sys.stdout,
        human=args.seat,
        bots=bots,
        hands=hands,
        dealer=args.dealer,
        seed=args.seed,
    )
    return 0


def _play_family(args: argparse.Namespace) -> int:
    """``play --game forty_five|twenty_five|auction``: whole games against the family's bots."""
    from spoilfive_jax.games.forty_five.play import play_family

    rules = _rules(args)
    assert isinstance(rules, FortyFiveRules)
    env = _env(args, rules)
    bots = args.bots or "greedy"
    if bots not in FAMILY_POLICIES:
        raise CliError(
            f"--bots for --game {args.game} is greedy, heuristic or random, got {bots!r}"
        )
    cap = f", {args.hands} hand{'s' if args.hands > 1 else ''} at most" if args.hands else ""
    print(
        f"{_game_name(rules)}: you are seat {args.seat} of {args.players} "
        f"({_teams_text(args.players)}), against {bots} bots; a game to {rules.goal}{cap}. "
        "Type ? for help, q to quit."
    )
    play_family(
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
    if isinstance(rules, FortyFiveRules):
        return _rules_family(args, rules)
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
    print(f"Rules ({args.preset or 'seed'} preset)")
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


_SCORING = {
    "best_trump": "5 points a trick to the winner's team, and 5 more to the team that played the "
    "hand's highest trump (30 a hand when a trump falls)",
    "twenty_five": "5 points a trick to the winner's team (25 a hand; no best-trump bonus)",
    "hoyle": "a side taking 3 or 4 tricks scores 5, all five 10; the others nothing",
}
_JINK_FAMILY = {
    "off": "off",
    "announced": "before the first lead, from the eldest hand, one player may announce that "
    "their team takes all five tricks: success doubles its points, failure loses the game",
    "wins_game": "a team that takes all five tricks wins the game at once",
}
_TIE_BREAK = {
    "first_counted": "teams counted from the eldest hand clockwise: the first that reached it wins",
    "higher_total": "the higher total wins",
}


def _family_trump_order(suit: int, rules: FortyFiveRules) -> list[int]:
    """The trumps of ``suit`` highest first, the joker placed by the engine's own strengths."""
    import jax.numpy as jnp

    from spoilfive_jax.games.forty_five import game

    ids = np.arange(rules.deck_size)
    strength = np.asarray(game.trump_strength(jnp.asarray(ids), jnp.int32(suit), rules))
    trumps = ids[strength >= 0]
    return [int(c) for c in trumps[np.argsort(-strength[trumps], kind="stable")]]


def _rules_family(args: argparse.Namespace, rules: FortyFiveRules) -> int:
    """``rules`` for the Forty-Five family: the options in words and the card ranking."""
    import textwrap

    from spoilfive_jax.games.forty_five import game

    suits = [args.suit] if args.suit is not None else list(range(4))
    scoring = "twenty_five" if rules.variant == "twenty_five" else rules.scoring
    hand = "all five tricks are played; " + _SCORING[scoring]
    if rules.auction:
        hand += "; the bidder's team scores what it made if that reaches its bid (a made 30 "
        hand += "scores 60), else loses the bid"
    items = [
        ("options", _rules_text(rules)),
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
        ("following", _FOLLOW[rules.follow]),
        (
            "reneging",
            f"{_RENEGE[rules.renege]}; the 5 of trumps may always be withheld, and nobody may "
            "renege when the 5 is led",
        ),
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
        items.append(("robbing", _ROB[rules.rob]))
    items.append(("jink", _JINK_FAMILY[rules.jink]))
    if rules.joker:
        where = "just below A♥" if rules.joker_rank == "below_AH" else "just above A♥"
        items.append(
            (
                "joker",
                f"53 cards; the joker ({JOKER_TEXT}) is always a trump, ranked {where}, with the "
                "top-trump reneging privilege"
                + (
                    ""
                    if rules.auction
                    else "; turned up, it goes to the dealer (who lays a card away) and the "
                    "next card is turned up"
                ),
            )
        )
    items.append(
        ("deal", f"{rules.deal_packets[0]} then {rules.deal_packets[1]} cards to each player")
    )
    print(f"Rules ({_game_name(rules)})")
    for name, text in items:
        print(
            textwrap.fill(
                text, 92, initial_indent=f"  {name + ':':<11}", subsequent_indent=" " * 13
            )
        )
    tops = len(game.top_trump_strengths(rules))
    for t in suits:
        order = _family_trump_order(t, rules)
        print()
        print(f"Trump {SUIT_NAMES[t]} {SUIT_SYMBOLS[t]}: {len(order)} trumps, highest first")
        print("  " + " ".join(_symbol(c) for c in order))
        print(f"  top trumps (may be reneged): {' '.join(_symbol(c) for c in order[:tops])}")
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
        "random, heuristic or agent:PATH (.npz/.msgpack), for the Forty-Five family random, "
        "greedy or heuristic; one, or one per seat with commas"
    )

    p = sub.add_parser(
        "rollout",
        help="play many hands and summarise them",
        description="Play many independent hands (every seat deals the same "
        "way) and summarise win rates, spoils, jinks and chips per seat.",
    )
    p.add_argument("--hands", type=_int_at_least(1), default=100_000, help="hands to play")
    p.add_argument("--policy", help=f"{policy_help} (default heuristic; the family: random)")
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
    p.add_argument("--policy", help=f"{policy_help} (default heuristic; the family: random)")
    p.add_argument("--rollouts", type=_int_at_least(2), default=10_000, help="deals per hand")
    p.add_argument(
        "--threshold",
        type=int,
        metavar="POINTS",
        help="the Forty-Five family: report P(the seat's team scores >= POINTS) (default 15)",
    )
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
        default=None,
        metavar="POLICY",
        help="random, heuristic, agent:PATH (default: heuristic random); the Forty-Five "
        "family: random, greedy, heuristic (default: greedy random)",
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
        "passing left, spoiled pots carried), against bots; with --game forty_five, "
        "twenty_five or auction, a whole game (or --hands hands of it).",
    )
    p.add_argument("--seat", type=_int_at_least(0), default=0, help="your seat (default 0)")
    p.add_argument(
        "--bots",
        help="random, heuristic (default) or agent:PATH; the Forty-Five family: greedy "
        "(default), heuristic or random",
    )
    p.add_argument(
        "--hands",
        type=_int_at_least(1),
        help="hands in the session (default 1); the Forty-Five family: at most this many "
        "hands of the game (default: until the game is over)",
    )
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
        if hasattr(args, "game") and getattr(args, "players", 0) is None:  # 5, or 4 (family)
            args.players = 4 if _is_family(args) else 5
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
