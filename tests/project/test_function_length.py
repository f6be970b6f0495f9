"""No function of the package is over ``MAX_LINES`` lines (from its ``def`` to its last line,
nested functions counted in their parent): a longer one is split into named helpers."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "spoilfive_jax"
MAX_LINES = 80

# Functions allowed over the limit while they are being split: "path:function" -> its length
# when listed.  Empty: every function of the package is within the limit.
PENDING: dict[str, int] = {}


def function_lengths(source: str, rel: str) -> dict[str, int]:
    """ "rel:name" -> lines, for every function (methods and nested functions too) of the
    source of file ``rel`` (the longest of a name defined twice)."""
    out: dict[str, int] = {}
    for node in ast.walk(ast.parse(source, filename=rel)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            key = f"{rel}:{node.name}"
            out[key] = max(out.get(key, 0), node.end_lineno - node.lineno + 1)
    return out


def _package_lengths() -> dict[str, int]:
    lengths: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        lengths.update(function_lengths(path.read_text(), path.relative_to(ROOT).as_posix()))
    return lengths


def test_no_function_is_over_the_limit() -> None:
    lengths = _package_lengths()
    too_long = {k: n for k, n in lengths.items() if n > MAX_LINES and k not in PENDING}
    assert not too_long, f"functions over {MAX_LINES} lines (split them): {too_long}"


def test_the_pending_list_holds_only_long_functions() -> None:
    """An entry whose function was split (or renamed) is taken off the list."""
    lengths = _package_lengths()
    stale = [key for key in PENDING if lengths.get(key, 0) <= MAX_LINES]
    assert not stale, f"no longer over {MAX_LINES} lines, remove from PENDING: {stale}"


def test_the_measure() -> None:
    source = "class C:\n    def f(self):\n        def g():\n            pass\n\n        return g\n"
    assert function_lengths(source, "m.py") == {"m.py:f": 5, "m.py:g": 2}
