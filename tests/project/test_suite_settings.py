"""The test suite's own settings (``tests/conftest.py``): what bounds a worker's memory, where
its compiled programs are kept, and that a worker has one device whatever test comes first."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import conftest
import jax
import jax.numpy as jnp
from jax._src.interpreters import pxla


def test_the_lowered_programs_are_dropped_and_the_compiled_ones_kept():
    caches = conftest.lowering_caches()
    assert sorted(caches) == sorted(conftest.LOWERING_CACHES)  # (a JAX release renamed one)
    traces = []

    @jax.jit
    def f(x):
        traces.append(1)
        return x * 3 + 1

    assert int(f(jnp.int32(2))) == 7
    assert sum(c.cache_info().currsize for c in caches.values()) > 0
    conftest._drop_lowerings()
    assert [c.cache_info().currsize for c in caches.values()] == [0, 0]
    compiles = pxla._cached_compilation.cache_info().misses
    assert int(f(jnp.int32(4))) == 13  # the compiled program kept: not traced, nor compiled
    assert len(traces) == 1 and pxla._cached_compilation.cache_info().misses == compiles


def _settings_in_a_fresh_process(code: str, env: dict[str, str], cwd: Path | None = None) -> str:
    """The last line ``code`` prints in a new Python process that imports the suite's settings
    (``tests/conftest.py``) first, as a worker does, with the environment ``env``, in ``cwd``."""
    head = f"""
        import sys
        sys.path.insert(0, {os.path.dirname(conftest.__file__)!r})
        import conftest
    """
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(head) + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=cwd,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()[-1]


def _bare_environment() -> dict[str, str]:
    """This process's environment less the suite's settings (which a child would inherit)."""
    ours = ("XLA_FLAGS", "JAX_COMPILATION_CACHE_DIR", conftest.WORKER_CACHE)
    env = {k: v for k, v in os.environ.items() if k not in ours}
    return env | {"JAX_PLATFORMS": "cpu"}


_REPORT_CACHE = """
    import os, jax
    print(os.environ[conftest.WORKER_CACHE], jax.config.values["jax_enable_compilation_cache"],
          jax.config.values["jax_compilation_cache_dir"], os.environ["JAX_COMPILATION_CACHE_DIR"])
"""


def test_the_workers_keep_no_compiled_programs_on_disk_unless_the_caller_asks(tmp_path):
    # No cache asked for: the workers write none; the subprocesses share the repository's
    # .jax_cache, named by an absolute path (some run in a directory of their own).
    worker, enabled, _, shared = _settings_in_a_fresh_process(
        _REPORT_CACHE, _bare_environment()
    ).split()
    assert (worker, enabled) == ("0", "False")
    assert shared == str(conftest.ROOT / ".jax_cache")
    # A cache asked for (by a relative path): the workers use it too, by its absolute path.
    run = tmp_path / "run"
    run.mkdir()
    env = _bare_environment() | {"JAX_COMPILATION_CACHE_DIR": "kept"}
    worker, enabled, used, shared = _settings_in_a_fresh_process(_REPORT_CACHE, env, run).split()
    assert (worker, enabled) == ("1", "True")
    assert used == shared == str(run / "kept")


def test_a_command_line_run_in_the_worker_leaves_it_one_device():
    """``cli.main`` run in the process before any test computed anything: the settings already
    gave the process its one device (it once got one per core, and a later test failed).  The
    child counts two cores whatever this machine has."""
    code = """
        import spoilfive_jax.tools.cores as cores
        cores.cpu_count = lambda: 2
        from spoilfive_jax.cli import main
        assert main(["rules"]) == 0
        import jax
        print("devices", jax.device_count())
    """
    assert _settings_in_a_fresh_process(code, _bare_environment()) == "devices 1"
