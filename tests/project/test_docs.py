"""The README and every page of ``docs/`` run as written, through Sybil.

Each ```python block of a page runs, in order, in one namespace per page, in an empty directory
(with ``examples/`` linked in, for the shipped agent).  A block written as a doctest (``>>>``
lines followed by what they print) has its printed result checked: those are the deterministic
ones (same seed, same numbers).  A block that needs what a test machine lacks says so in a
``<!-- skip: next if(...) -->`` comment before it, evaluated in the page's namespace:
``missing("pandas")`` is true when that package is not installed, ``cluster`` when the block
needs a multi-process job.

The command-line transcripts (``<!-- transcript -->`` blocks) are run again and compared, with
timings masked, in the slow suite; ``python scripts/docs.py transcripts --check`` does the same.
"""

from __future__ import annotations

import doctest
import importlib.util
import re
import unittest
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import load_script
from sybil import Sybil
from sybil.example import SybilFailure
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def missing(package: str) -> bool:
    return importlib.util.find_spec(package) is None


def _setup(namespace: dict[str, object]) -> None:
    namespace.update(__name__="docs", missing=missing, cluster=True)


SYBIL = Sybil(
    parsers=[PythonCodeBlockParser(doctest_optionflags=FLAGS), SkipParser()],
    setup=_setup,
)


def run_page(path: Path) -> tuple[int, list[str]]:
    """Evaluate every example of one page; return how many ran and the skipped ones' reasons.

    A printed result that differs is collected and the page goes on (every mismatch is
    reported at once); an error stops the page, since later examples build on earlier ones."""
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    document = SYBIL.parse(path)
    _setup(document.namespace)
    ran, skipped, mismatches = 0, [], []
    with warnings.catch_warnings():  # the docs show no deprecated use
        warnings.simplefilter("error", DeprecationWarning)
        for example in document:
            try:
                example.evaluate()
            except unittest.SkipTest as skip:
                skipped.append(f"line {example.line}: {skip}")
                continue
            except SybilFailure as failure:
                mismatches.append(f"{name}, line {example.line}: {failure.result}")
            except Exception as error:  # name the page and line; the cause stays chained
                raise AssertionError(f"{name}, line {example.line}: {error}") from error
            ran += 1
    if mismatches:
        raise AssertionError("\n".join(mismatches))
    return ran, skipped


# Pages whose blocks compile the largest programs (pimc, the solver, tournaments of bots,
# training): under -m slow, so the default run stays within its time; every other page's blocks
# (the README's among them) run by default.
HEAVY_PAGES = {"docs/analysis.md", "docs/tournaments.md", "docs/rl.md"}


def _page_param(path: Path) -> Any:
    name = str(path.relative_to(ROOT))
    return pytest.param(path, id=name, marks=[pytest.mark.slow] if name in HEAVY_PAGES else [])


@pytest.mark.parametrize("path", [_page_param(p) for p in PAGES])
def test_the_python_blocks_of_the_page_run(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    ran, skipped = run_page(path)
    blocks = path.read_text(encoding="utf-8").count("```python")
    assert ran + len(skipped) >= blocks, (ran, skipped)  # every block was seen
    print(f"{path.name}: {ran} examples ran; skipped: {skipped}")


def test_a_wrong_printed_result_fails(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```python\n>>> print(1 + 1)\n3\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=r"(?s)page\.md, line 2: .*Expected:\s+3\s+Got:\s+2"):
        run_page(page)


def test_a_skip_needs_its_condition(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        '<!-- skip: next if(missing("no_such_package_xyz"), reason="not installed") -->\n'
        "```python\nraise RuntimeError\n```\n\n"
        '<!-- skip: next if(missing("json"), reason="not installed") -->\n'
        "```python\nraise RuntimeError('ran')\n```\n",
        encoding="utf-8",
    )
    with pytest.raises(AssertionError, match="ran"):
        run_page(page)


# ------------------------------------------------------------------------ transcripts and figures


DOCS = load_script(ROOT / "scripts" / "docs.py")
TRANSCRIPTS = [
    (page, i, block)
    for page in PAGES
    for i, (_, block) in enumerate(DOCS.transcripts(page.read_text(encoding="utf-8")))
]


@pytest.mark.slow  # (a CLI process a command: about a minute and a half of CPU in all)
@pytest.mark.parametrize(
    ("page", "index", "block"),
    TRANSCRIPTS,
    ids=[f"{p.relative_to(ROOT)}:{i}" for p, i, _ in TRANSCRIPTS],
)
def test_the_transcript_is_what_the_commands_print(page: Path, index: int, block: object) -> None:
    fresh = block.run()  # type: ignore[attr-defined]
    old, new = block.text(), fresh.text()  # type: ignore[attr-defined]
    assert DOCS.masked(new) == DOCS.masked(old), (
        f"{page.relative_to(ROOT)}, transcript {index} is out of date "
        f"(python scripts/docs.py transcripts):\n{DOCS.diff(old, new)}"
    )


def test_the_docs_have_transcripts_and_figures() -> None:
    assert sum(len(block.steps) for _, _, block in TRANSCRIPTS) >= 15  # commands
    figures = [m["name"] for p in PAGES for m in DOCS.FIGURES.finditer(p.read_text("utf-8"))]
    expected = {"headline", "tables", "memory", "analysis", "step_profile", "pimc", "ismcts"}
    assert expected | {"ladder", "pimc_rollout"} <= set(figures)


def test_the_figures_are_written_from_the_saved_json() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        new, stale = DOCS.regenerate_figures(text)
        assert not stale, f"{page.relative_to(ROOT)} (python scripts/docs.py figures):\n{stale}"
        assert new == text


def test_a_transcript_is_parsed_excerpted_and_masked() -> None:
    block = DOCS.Transcript.parse(
        ' stdin="a b|c" head=1 tail=1 ', "$ cat f.txt\n# x\n\n$ spoilfive rules\none\ntwo\n"
    )
    assert block.options == {"stdin": "a b|c", "head": "1", "tail": "1"}
    assert block.steps == [("cat f.txt", ["# x"]), ("spoilfive rules", ["one", "two"])]
    assert block.text() == "$ cat f.txt\n# x\n\n$ spoilfive rules\none\ntwo\n"
    assert block.excerpt(["1", "2", "3", "4"]) == ["1", "...", "4"]
    assert block.excerpt(["1", "2", "3"]) == ["1", "2", "3"]  # nothing worth cutting
    a = "Spoil Five · 1,000 hands · 1.7 s (587,552 hands/s) · se 0.004014678"
    b = "Spoil Five · 1,000 hands · 12.0 s (83 hands/s) · se 0.004014649"
    assert DOCS.masked(a) == DOCS.masked(b)
    assert DOCS.masked(a) != DOCS.masked(a.replace("1,000 hands", "2,000 hands"))
    with pytest.raises(ValueError, match="starts with a"):
        DOCS.Transcript.parse("", "no command\n")


@pytest.mark.parametrize(
    "fresh_process",
    # (a fresh interpreter a command, as the script runs them: two imports of JAX, half a
    # minute on a loaded 2-core machine; -m slow also runs every transcript of the docs so)
    [False, pytest.param(True, marks=pytest.mark.slow)],
    ids=["in_process", "fresh_process"],
)
def test_a_stale_transcript_is_found_and_rewritten(
    fresh_process: bool, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript whose printed text is out of date is reported and rewritten with what the
    command prints now, and the rewritten one is up to date; by default the commands run in
    this process (``cli.main``, stdout and stderr read together as the script reads them)."""
    if not fresh_process:
        from spoilfive_jax import cli

        def in_process(args: list[str], cwd: str, stdin: list[str] | None) -> list[str]:
            assert stdin is None  # (the page below feeds the command nothing)
            cli.main(args)
            out, err = capsys.readouterr()
            return DOCS.printed_lines(out + err)

        monkeypatch.setattr(DOCS, "run_cli", in_process)
    page = "<!-- transcript -->\n```text\n$ spoilfive rollout --jink --no-jink\nold text\n```\n"
    new, stale = DOCS.regenerate_transcripts(page)
    assert stale and "old text" in stale[0]
    assert "--jink and --no-jink contradict each other" in new
    assert DOCS.regenerate_transcripts(new)[1] == []


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_of_the_repository(path: Path) -> None:
    """``mkdocs build --strict`` checks the links between pages of ``docs/``; this checks the
    README's too, and that no page links outside the repository."""
    text = path.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://|#|mailto:", target):
            continue
        file = (path.parent / target.split("#")[0]).resolve()
        assert file.is_relative_to(ROOT), f"{path.name} links outside the repository: {target}"
        assert file.exists(), f"{path.name} links to a missing file: {target}"
