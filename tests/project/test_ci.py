"""CI runs what the README tells a newcomer to run: the same install and test command, with the
linters, the type check and the docs build (warnings are errors) in front of it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_test_command() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"^pip install [^\n]*&& python -m pytest -q$", text, flags=re.M)
    assert len(commands) == 1, commands  # exactly one test command
    return commands[0]


def test_ci_runs_the_readme_test_command_and_the_linters() -> None:
    install, test = _readme_test_command().split(" && ")
    lines = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    steps = [ln for ln in lines if ln and not ln.startswith("#") and not ln.startswith("set ")]
    installs = [ln.replace("python -m ", "").replace(" -q", "") for ln in steps if "pip " in ln]
    assert installs == [install], (installs, install)  # the same extras and packages
    assert "[all,bench,dev,docs]" in install  # the linters and mkdocs come with the install
    assert steps[-1] == test
    checks = (
        "ruff check .",
        "ruff format --check .",
        "mypy spoilfive_jax",
        "mkdocs build --strict",
    )
    for lint in checks:
        step = next((s for s in steps if s.startswith(lint)), None)
        assert step is not None, f".ci/run does not run {lint}"
        assert steps.index(step) < steps.index(test)
