"""The one set of shared test helpers, for every game.

- Compiled functions are cached per environment (hashable: game, num_players and rules), so
  every test module that plays the same table reuses one compile (pgx style).  The batched
  ``init``/``step`` count their traces, so tests can prove one compile per table.
- ``Table`` (Spoil Five) and ``Table45`` (the Forty-Five family): a hand-built deal driven through
  ``env.checked_step`` and mirrored, decision by decision, through the pure-Python reference
  engines (``tests/reference.py``, ``tests/reference_fortyfive.py``).
- Small host-side converters: card sets of a state (through ``core.bits.members``, the one
  bits-to-cards helper), rules to reference rules, text to actions.
- XLA compiles for fast compiles, not fast programs (below: LLVM at level 0 and without its
  expensive passes, the elemental fusion emitters).
- JAX's persistent compilation cache (``.jax_cache/`` at the repository root, or
  ``$JAX_COMPILATION_CACHE_DIR``) for the CLI subprocesses, which compile the same programs
  again and again; for the workers too where the caller set ``$JAX_COMPILATION_CACHE_DIR``
  (a warm cache's re-run), not by default (writing a program costs a tenth of its compile, and
  from an empty cache a worker reads back almost nothing: below).
- Memory: after every test JAX's caches of lowered programs are dropped (most of a worker's
  growth, and almost never hit); past ``MAX_RESIDENT`` or ``MAX_MAPPINGS`` every compiled
  program is (``_bounded_compiled_code``).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import gc
import importlib.machinery
import importlib.util
import os
import socket
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import jax
import numpy as np
import pytest
from jax._src import util as jax_util

import spoilfive_jax as sf
from spoilfive_jax.core.bits import members
from spoilfive_jax.games import forty_five as ff
from spoilfive_jax.tools import cores as _cores
from spoilfive_jax.tools import programs

# Python's cycle collector, tuned for a process that builds millions of short-lived objects (JAX's
# traces and jaxprs): a young collection once 50,000 objects are allocated rather than 700, and
# the objects of the imports above frozen out of the old generation's passes.  Tracing is most
# of the suite's time, and the collector took some 7% of it; the view tests of the family ran
# 59 -> 54 s in one process from an empty cache.
gc.freeze()
gc.set_threshold(50_000, 20, 20)


def _pin_tests_package() -> None:
    """Make ``tests`` this directory, whatever else is installed.

    ``tests/`` is a namespace package (no ``__init__.py``), and Python prefers a regular package
    of the same name anywhere on ``sys.path`` to a namespace package found earlier: pgx 2.6
    installs a top-level ``tests`` package into site-packages, and ``from tests.forty_five...
    import`` then resolved to it (collection failed).  Registering this directory as the
    ``tests`` package before any test module is imported settles the name for the run.
    (``tests/rl/test_pgx_tests_package.py`` checks it against a regular ``tests`` package put
    first on the path.)"""
    here = str(Path(__file__).resolve().parent)
    current = sys.modules.get("tests")
    if current is not None and list(getattr(current, "__path__", [])) == [here]:
        return
    spec = importlib.machinery.ModuleSpec("tests", None, is_package=True)
    spec.submodule_search_locations = [here]
    sys.modules["tests"] = importlib.util.module_from_spec(spec)
    for name, module in list(sys.modules.items()):  # submodules of another ``tests``
        file = getattr(module, "__file__", None) or ""
        if name.startswith("tests.") and not file.startswith(here + os.sep):
            del sys.modules[name]


_pin_tests_package()


ROOT = Path(__file__).resolve().parents[1]

# The suite's programs run on tiny batches, so LLVM's optimisations cost far more time than they
# save: the default run compiles them at level 0 (about a fifth less time; the results are the
# same, XLA's own HLO passes still run and nothing enables fast-math).  Set before JAX's first
# computation, and inherited by the subprocesses; a caller's own XLA_FLAGS keep precedence.
# For the same reason XLA:CPU emits its fusions with the older elemental emitters (the newer
# fusion emitters compile the suite's programs about a third slower), and LLVM skips its
# expensive passes.  And each program is generated as one LLVM module, not split into parts
# compiled in parallel (two cores gain nothing from it): every part is mapped into memory apart,
# so a program holds about 14 mappings instead of 35 and a worker reaches ``MAX_MAPPINGS`` below
# far later (its memory, ``MAX_RESIDENT``, bounds it first).
_COMPILE_FAST = {
    "xla_backend_optimization_level": "0",
    "xla_cpu_use_fusion_emitters": "false",
    "xla_llvm_disable_expensive_passes": "true",
    "xla_cpu_parallel_codegen_split_count": "1",
}
for _flag, _value in _COMPILE_FAST.items():
    if _flag not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + f" --{_flag}={_value}").strip()
# The collective deadlines ``use_all_cores`` sets (``tools.cores``), set here for every process:
# the compilation cache's keys include the XLA flags, so a CLI subprocess whose flags differed
# from the workers' would compile every program afresh.
_cores._patient_collectives()

# JAX's persistent compilation cache.  Set through the environment before JAX reads its
# configuration, so that the CLI subprocesses share it: each compiles most of its programs
# afresh, and the next one reads them back.  The workers themselves use it only where the
# caller set ``JAX_COMPILATION_CACHE_DIR`` (``WORKER_CACHE``, decided once by the first process
# and inherited by the workers), for re-runs from a cache kept between them: from an empty
# cache a worker reads back almost nothing (148 hits in a whole run's 6,900 compiles, saving
# less time than the reads took), while writing a program costs a tenth of its compile (0.9 s
# for a 9 s program: 5 of the family's view tests' 100 s).  The directory is made absolute:
# some CLI tests run their subprocess in a directory of their own.
WORKER_CACHE = "SPOILFIVE_TESTS_WORKER_CACHE"  # "1": the workers use the persistent cache too
os.environ.setdefault(WORKER_CACHE, "1" if "JAX_COMPILATION_CACHE_DIR" in os.environ else "0")
os.environ["JAX_COMPILATION_CACHE_DIR"] = str(
    Path(os.environ.get("JAX_COMPILATION_CACHE_DIR") or ROOT / ".jax_cache").resolve()
)
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.05")
if os.environ[WORKER_CACHE] == "1":
    jax.config.update("jax_compilation_cache_dir", os.environ["JAX_COMPILATION_CACHE_DIR"])
    jax.config.update(
        "jax_persistent_cache_min_compile_time_secs",
        float(os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"]),
    )
else:
    jax.config.update("jax_enable_compilation_cache", False)

# One CPU device in every worker, whichever test comes first: a command line run in the process
# (``cli.main``) calls ``use_all_cores``, which before JAX's first computation would give the
# worker one device per core (and ``tests/tools/test_cores.py`` then failed, by test order).
jax.devices()


def load_script(path: Path, name: str | None = None) -> ModuleType:
    """A script of the repository (``benchmarks/``, ``examples/``, ``scripts/``) loaded as a
    module by its path, so a test calls its ``main(argv)`` in this process.  Registered in
    ``sys.modules`` (its dataclasses look their module up)."""
    name = name or f"script_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


MAX_MAPPINGS = 30_000  # well under Linux's default vm.max_map_count (65,530)
MAX_RESIDENT = 6 << 30  # bytes a worker may hold: the slow suite's grew past 13 GB without it


def _resident() -> int:
    """The bytes of memory this process holds (0 where the platform does not say)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # not Linux
        return 0


@pytest.fixture(autouse=True)
def _bounded_compiled_code():
    """XLA:CPU maps memory for every program it compiles, and one process may hold at most
    ``vm.max_map_count`` mappings; past it the compiler crashes (a segfault near the end of a
    whole run).  After every test, once the process holds many, or more than ``MAX_RESIDENT``
    bytes of memory (the programs and JAX's caches of traces, which grow with every distinct
    program), JAX's compiled programs are dropped (they recompile on their next use): earlier
    than the library's own guard at every tool call (``tools.programs``, half the limit).
    Checked after each test, not each module: a module of the slow suite, over many rule
    options, can compile past the limit by itself."""
    yield
    _drop_lowerings()
    held = _resident()
    # (What is freed need not go back to the system: past the bound, a clear is due only once
    # the process has grown by a gigabyte since the last one, not after every test.)
    grown = held > max(MAX_RESIDENT, _AFTER_CLEAR[0] + (1 << 30))
    if programs.mappings() > MAX_MAPPINGS or grown:
        jax.clear_caches()
        _AFTER_CLEAR[0] = _resident()


_AFTER_CLEAR = [0]  # the bytes held after the last ``jax.clear_caches``


LOWERING_CACHES = ("_pjit_lower", "_cached_lowering_to_hlo")  # JAX's, by function name


def lowering_caches() -> dict[str, Any]:
    """JAX's caches of lowered programs, ``LOWERING_CACHES`` found by name among the caches JAX
    registers (private to JAX: a release that renames one leaves it out, and
    ``tests/project/test_suite_settings.py`` fails)."""
    found = {}
    for cache, name in list(jax_util._caches.items()):
        for wanted in LOWERING_CACHES:
            if name.startswith(f"<function {wanted} "):
                found[wanted] = cache
    return found


def _drop_lowerings() -> None:
    """Drop JAX's two caches of lowered programs (``LOWERING_CACHES``), which hold most of what
    a worker grows by (each entry keeps its program's MLIR module, about 1 MB: the family's view
    and playout tests grew by 0.95 GB with them and 0.2 GB without) and serve almost nothing
    (10 and 0 hits in the 624 lowerings of the family's view tests).  The compiled programs
    stay: a later call of a jitted function with arguments of a shape it ran with before runs
    it at once (JAX's C++ dispatch); only what goes through JAX's Python path (``.lower()``,
    say) lowers and compiles again.  Where a JAX release renames a cache, ``jax.clear_caches``
    above still bounds the worker."""
    for cache in lowering_caches().values():
        cache.cache_clear()


try:  # tests/ on sys.path (rootdir-relative, no __init__.py) or the package ``tests``
    import reference as ref
    import reference_fortyfive as ref45
except ImportError:  # pragma: no cover
    from tests import reference as ref
    from tests import reference_fortyfive as ref45

# ---------------------------------------------------------------------------- compiled functions

TRACES: collections.Counter[tuple[str, sf.Env]] = collections.Counter()


@functools.cache
def batched_init(env: sf.Env):
    """``jit(vmap(env.init_from_deck))``: decks int32[B, D], dealers int32[B] and what carries
    between hands (Spoil Five: carried chips int32[B]; the family: team scores int32[B, T])."""

    def init(decks, dealers, carried):
        TRACES["init", env] += 1
        return env.init_from_deck(decks, dealers, carried)

    return jax.jit(jax.vmap(init))


@functools.cache
def batched_step(env: sf.Env):
    """``jit(vmap(env.step))``: states [B], actions int32[B]; counts its traces in ``TRACES``."""

    def step(state, action):
        TRACES["step", env] += 1
        return env.step(state, action)

    return jax.jit(jax.vmap(step))


def stepped(hand: Any, action: int) -> Any:
    """A reference engine's ``hand`` after ``action``, through its own ``step``, on a copy:
    every list it holds (and the lists inside them) copied, everything else shared, so a
    search over the reference engine can branch without deep copies."""
    out = object.__new__(type(hand))
    for name, value in hand.__dict__.items():
        if isinstance(value, list):
            value = [list(v) if isinstance(v, list) else v for v in value]
        out.__dict__[name] = value
    out.step(action)
    return out


@functools.cache
def jit_step(env: sf.Env):
    """``jit(env.step)`` for one hand (illegal actions end the hand instead of raising)."""
    return jax.jit(env.step)


# ---------------------------------------------------------------------------- conversions


def to_ref_rules(rules: sf.spoil_five.Rules | ff.FortyFiveRules) -> ref.RefRules | ref45.RefRules45:
    """The reference engine's rules for a Spoil Five or a family rules object."""
    if isinstance(rules, ff.FortyFiveRules):
        fields = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
        return ref45.RefRules45(**fields)
    return ref.RefRules(
        follow=rules.follow,
        renege=rules.renege,
        rob=rules.rob,
        jink=rules.jink,
        deal_packets=tuple(rules.deal_packets),
        ante=rules.ante,
        jink_bonus=rules.jink_bonus,
        ante_after_spoil=rules.ante_after_spoil,
    )


def _seat_sets(sets) -> list[set[int]]:
    lo, hi = np.asarray(sets.lo), np.asarray(sets.hi)
    return [set(members(lo[s], hi[s])) for s in range(lo.shape[0])]


def hands_of(state) -> list[set[int]]:
    """Card ids held by each seat of one (unbatched) hand, any game."""
    return _seat_sets(state.hands)


def discards_of(state: ff.State) -> list[set[int]]:
    """Card ids each seat of one family hand has laid away (rob, joker exchange, discard)."""
    return _seat_sets(state.discards)


def phase_name(state) -> str:
    names = ff.PHASE_NAMES if isinstance(state, ff.State) else sf.spoil_five.SpoilFive.phase_names
    return names[int(state.phase)]


def action_id(action: str | int) -> int:
    """A Spoil Five action from text: a card (``"5H"``), ``"PASS"``, ``"JINK"`` or ``"CLAIM"``."""
    if isinstance(action, (int, np.integer)):
        return int(action)
    named = {"PASS": sf.spoil_five.PASS, "JINK": sf.spoil_five.JINK, "CLAIM": sf.spoil_five.CLAIM}
    return named[action.upper()] if action.upper() in named else sf.card_id(action)


def action_text(env: sf.Env, action: int) -> str:
    """Machine text of an action of ``env``'s game: a card as ``card_str`` (``"TC"``), the
    family's joker ``"JK"``, else the action's name (``"PASS"``, ``"BID_20"``, ...)."""
    a = int(action)
    if a < 52:
        return sf.card_str(a)
    if isinstance(env, ff.FortyFive):
        return ff.card_text(a) if a == ff.JOKER else ff.action_str(a)
    return sf.spoil_five.action_str(a)


_FAMILY = ff.FortyFive(4)


def cards(text: str) -> set[str]:
    """A set of normalised card texts, for comparing legal sets: ``cards("jd 10c jk")`` ->
    {"JD", "TC", "JK"} (the joker for the family; card texts are the same in every game)."""
    return texts(ff.action_id(t) for t in text.replace(",", " ").split())


def texts(actions: Iterable[int]) -> set[str]:
    """The machine texts of family action ids."""
    return {action_text(_FAMILY, a) for a in actions}


# ---------------------------------------------------------------------------- a hand-built table


class _Mirror:
    """A hand-built deal played through ``env.checked_step`` (the compiled path), with the
    game's reference engine played alongside: after every decision both must agree on the
    player to act, the phase, the legal actions, the hands, the tricks and the rewards, plus
    what ``check_more`` compares for the game."""

    env: sf.Env
    state: object
    ref: object

    def _action_id(self, action: str | int) -> int:
        raise NotImplementedError

    def check_more(self) -> None:
        """The game's own fields, against the reference engine."""

    # -- queries
    @property
    def player(self) -> int:
        return int(self.state.current_player)

    @property
    def phase(self) -> str:
        return phase_name(self.state)

    def legal(self) -> set[str]:
        """The legal actions of the player to act, as text (cards, PASS, JINK, ...)."""
        return {action_text(self.env, a) for a in self.env.legal_actions(self.state)}

    def hand(self, seat: int) -> set[str]:
        return {action_text(self.env, c) for c in hands_of(self.state)[seat]}

    @property
    def rewards(self) -> list[float]:
        return np.asarray(self.state.rewards).tolist()

    @property
    def tricks(self) -> list[int]:
        return np.asarray(self.state.tricks_won).tolist()

    # -- decisions
    def act(self, action: str | int) -> None:
        a = self._action_id(action)
        self.state = self.env.checked_step(self.state, a)
        self.ref.step(a)
        self.check()

    def play(self, actions: str | Iterable[str]) -> None:
        """Take each action of ``"5D 3D PASS JINK ..."`` in turn."""
        for a in actions.split() if isinstance(actions, str) else actions:
            self.act(a)

    def finish(self) -> None:
        """Play the lowest legal action until the hand is over (the reference mirrors it)."""
        while not bool(self.state.terminated):
            self.act(self.env.legal_actions(self.state)[0])

    # -- the mirror
    def check(self) -> None:
        s, r = self.state, self.ref
        assert int(s.current_player) == r.current_player
        assert phase_name(s) == r.phase
        assert bool(s.terminated) == r.terminated
        assert self.env.legal_actions(s) == r.legal_actions()
        assert hands_of(s) == [set(h) for h in r.hands]
        assert np.asarray(s.tricks_won).tolist() == r.tricks_won
        assert np.asarray(s.rewards).tolist() == r.rewards
        assert not bool(s.illegal)
        self.check_more()


class Table(_Mirror):
    """Spoil Five: ``hands`` are card texts by seat (``"5D JD 2C 3S 4H"``); the reference engine
    is ``tests/reference.py``, which must also agree on the pot, the rob, the winner and the
    jink."""

    def __init__(
        self,
        env: sf.spoil_five.SpoilFive,
        hands: Sequence[str],
        turnup: str,
        dealer: int = 0,
        carried: int = 0,
    ) -> None:
        ids = [sf.parse_cards(h) for h in hands]
        self.env = env
        self.state = env.init_from_deal(np.array(ids), sf.card_id(turnup), dealer, carried)
        self.ref = ref.RefHand(
            env.num_players, to_ref_rules(env.rules), ids, sf.card_id(turnup), dealer, carried
        )
        self.check()

    def _action_id(self, action: str | int) -> int:
        return action_id(action)

    def check_more(self) -> None:
        s, r = self.state, self.ref
        assert int(s.pot) == r.pot
        assert bool(s.robbed) == r.robbed
        assert int(s.discard) == (-1 if r.discard is None else r.discard)
        assert int(s.winner) == r.winner
        assert int(s.jinker) == r.jinker
        assert int(s.carried_out) == r.carried_out


class Table45(_Mirror):
    """The Forty-Five family: cards are texts (``"5D JD 2C 3S JK"``); the reference engine is
    ``tests/reference_fortyfive.py``, which must also agree on the discards, trump, bidding and,
    at the end, the points, scores and game result."""

    def __init__(
        self,
        env: ff.FortyFive,
        hands: Sequence[str],
        turnup: str | None = None,
        dealer: int = 0,
        scores: Sequence[int] | None = None,
        stock: str = "",
    ) -> None:
        ids = [ff.parse_cards(h) for h in hands]
        up = None if turnup is None else ff.card_id(turnup)
        st = ff.parse_cards(stock)
        self.env = env
        self.state = env.init_from_deal(
            np.array(ids),
            up,
            dealer,
            None if scores is None else np.array(scores),
            np.array(st, np.int32) if st else None,
        )
        ref_stock = st
        if env.rules.auction:  # the engine draws the given cards, then the rest in id order
            dealt = {c for h in ids for c in h} | set(st)
            ref_stock = st + [c for c in range(env.rules.deck_size) if c not in dealt]
        self.ref = ref45.RefHand45(
            env.num_players, to_ref_rules(env.rules), ids, up, dealer, scores, ref_stock
        )
        self.check()

    def _action_id(self, action: str | int) -> int:
        return ff.action_id(action)

    @property
    def scores(self) -> list[int]:
        return np.asarray(self.state.scores).tolist()

    def check_more(self) -> None:
        s, r = self.state, self.ref
        assert discards_of(s) == [set(d) for d in r.discards]
        assert int(s.trump) == r.trump and int(s.turnup) == r.turnup
        assert bool(s.robbed) == r.robbed and bool(s.joker_up) == r.joker_up
        assert int(s.jinker) == r.jinker
        assert int(s.bid) == r.bid and int(s.bidder) == r.bidder
        assert np.asarray(s.passed).tolist() == r.passed
        assert np.asarray(s.scores).tolist() == r.scores
        assert np.asarray(s.hand_points).tolist() == r.hand_points
        assert np.asarray(s.game_rewards).tolist() == r.game_rewards
        assert bool(s.game_over) == r.game_over and int(s.game_winner) == r.game_winner


# ---------------------------------------------------------------------------- many processes
# (``tests/tools/test_distributed.py``, ``tests/rl/test_every_game.py``: real processes joined by
# ``sf.distributed`` on 127.0.0.1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env_vars() -> dict[str, str]:
    """The test process's environment, for one CPU device a process unless told otherwise."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "OMPI_"))}
    flags = env.get("XLA_FLAGS", "").split()  # (each process sets its own device count)
    env["XLA_FLAGS"] = " ".join(f for f in flags if "host_platform_device_count" not in f)
    return {**env, "JAX_PLATFORMS": "cpu"}


def start_all(argvs: list[list[str]], **kw: Any) -> list[subprocess.Popen[str]]:
    return [
        subprocess.Popen(a, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
        for a in argvs
    ]


def communicate_all(
    procs: list[subprocess.Popen[str]], timeout: float = 300
) -> list[tuple[str, str]]:
    """Every process's (stdout, stderr), each within ``timeout`` seconds (the rest killed)."""
    try:
        return [p.communicate(timeout=timeout) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def finish(procs: list[subprocess.Popen[str]], timeout: float = 300) -> list[tuple[str, str]]:
    """Every process's (stdout, stderr), each asserted to have exited 0."""
    outs = communicate_all(procs, timeout)
    for p, (_, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err[-3000:]
    return outs
