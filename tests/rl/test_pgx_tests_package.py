"""``tests`` is this repository's test directory even when another distribution installs a
top-level ``tests`` package, as pgx 2.6 does (``tests/conftest.py``'s ``_pin_tests_package``).

Python prefers a regular package anywhere on ``sys.path`` to the namespace package ``tests/``
found earlier, so without the pin ``from tests.forty_five... import`` reads the other package
and collection fails.  Needs no pgx: the other package is made here and put first on the path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _shadow(tmp_path: Path) -> dict[str, str]:
    """The environment of a process that finds a regular ``tests`` package before ours."""
    package = tmp_path / "shadow" / "tests"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("SHADOW = True\n", encoding="utf-8")
    path = os.pathsep.join(p for p in (str(tmp_path / "shadow"), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


def test_the_tests_package_is_this_directory() -> None:
    import tests

    assert [str(Path(p).resolve()) for p in tests.__path__] == [str(ROOT / "tests")]
    assert not hasattr(tests, "SHADOW")


def test_a_tests_package_elsewhere_does_not_shadow_ours(tmp_path: Path) -> None:
    env = _shadow(tmp_path)
    found = subprocess.run(
        [sys.executable, "-c", "import tests; print(tests.__file__)"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert found.strip() == str(tmp_path / "shadow" / "tests" / "__init__.py")  # it does shadow
    # test_endgame imports ``tests.forty_five.test_fast_playout``: it collects all the same
    pytest = [sys.executable, "-m", "pytest", "-q", "-n0", "-p", "no:cacheprovider", "--co"]
    collected = subprocess.run(
        [*pytest, "tests/forty_five/test_endgame.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    assert "test_endgame.py::" in collected.stdout
