"""The test suite's own settings (``tests/conftest.py``): what bounds a worker's memory, where
its compiled programs are kept, and that a worker has one device whatever test comes first."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import conftest
import jax
import jax.numpy as jnp
from jax._src import util as jax_util

_LOWERINGS = ("_pjit_lower", "_cached_lowering_to_hlo")


def _lowering_caches() -> dict[str, object]:
    found = {}
    for cache, name in jax_util._caches.items():
        for wanted in _LOWERINGS:
            if name.startswith(f"<function {wanted} "):
                found[wanted] = cache
    return found


def test_the_lowered_programs_are_dropped_and_the_compiled_ones_kept():
    caches = _lowering_caches()
    assert sorted(caches) == sorted(_LOWERINGS)  # (a JAX release renamed one: see conftest)
    traces = []

    @jax.jit
    def f(x):
        traces.append(1)
        return x * 3 + 1

    assert int(f(jnp.int32(2))) == 7
    assert sum(c.cache_info().currsize for c in caches.values()) > 0
    conftest._drop_lowerings()
    assert [c.cache_info().currsize for c in caches.values()] == [0, 0]
    assert int(f(jnp.int32(4))) == 13 and len(traces) == 1  # compiled program kept: no retrace


def test_the_workers_write_no_persistent_cache_unless_asked_and_subprocesses_share_one():
    assert os.environ["JAX_COMPILATION_CACHE_DIR"]  # (inherited by the CLI subprocesses)
    asked = os.environ[conftest.WORKER_CACHE] == "1"
    assert jax.config.values["jax_enable_compilation_cache"] == asked


def test_a_command_line_run_in_the_worker_leaves_it_one_device():
    """``cli.main`` run in the process before any test computed anything: the settings already
    gave the process its one device (it once got one per core, and a later test failed)."""
    code = f"""
        import sys
        sys.path.insert(0, {os.path.dirname(conftest.__file__)!r})
        import conftest  # (the suite's settings, as a worker imports them first)
        from spoilfive_jax.cli import main
        assert main(["rules"]) == 0
        import jax
        print("devices", jax.device_count())
    """
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}  # (no forced count)
    env["JAX_PLATFORMS"] = "cpu"
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "devices 1"
