"""``docs/scale.md`` runs as written: its Python blocks, in order, in one namespace, in an empty
directory.  A block that imports a package this environment lacks (pandas, polars, duckdb: the
reading examples) is left out and named; every other block must run."""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "scale.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def missing_imports(block: str) -> list[str]:
    """The top-level packages a block imports that are not installed."""
    names = set()
    for node in ast.walk(ast.parse(block)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return sorted(n for n in names if importlib.util.find_spec(n) is None)


def test_the_python_blocks_of_docs_scale_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 7
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "scale_doc"}
    ran, left_out = 0, []
    for i, block in enumerate(blocks):
        missing = missing_imports(block)
        if missing:
            left_out.append((i, missing))
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block, f"docs/scale.md block {i}", "exec"), namespace)
        ran += 1
    assert (tmp_path / "hands.parquet").is_file() or any("pyarrow" in m for _, m in left_out)
    assert ran >= 4, left_out  # the library's blocks need nothing more than the package
    print("left out (not installed):", left_out)
