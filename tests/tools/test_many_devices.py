"""Every tool over several host devices, many times, never hangs (``tools.sharding
.one_at_a_time``): a regression test for the tournament that hung for ever on a 2-core machine.

Each run is a fresh process (the device count is process-wide) with a deadline, so a hang is a
failure, not a stuck suite.  Before the fix, the worker's tournaments hung on every run of this
size over 2 and over 4 devices.  By default it runs over 2 devices; -m slow adds 4 (and that
the results are the same) and the soak, 25 rounds a device count.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("devices_stress_worker.py")


def stress(devices: int, rounds: int, timeout: int) -> list[str]:
    """The worker's lines (one a round), or a failure naming the hang."""
    env = {"PATH": "/usr/bin:/bin", "JAX_PLATFORMS": "cpu"} | {
        k: v for k, v in os.environ.items() if k == "XLA_FLAGS" or k.startswith("JAX_")
    }
    try:
        out = subprocess.run(
            [sys.executable, str(WORKER), str(devices), str(rounds)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired as e:
        done = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        pytest.fail(f"{devices} devices: hung after {len(done.splitlines())} of {rounds} rounds")
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert len(lines) == rounds
    return lines


def test_every_tool_over_two_host_devices_finishes() -> None:
    stress(2, 2, timeout=300)


@pytest.mark.slow  # (a process of its own that compiles every tool again: -m slow)
def test_every_tool_over_four_host_devices_finishes_with_the_same_results() -> None:
    two, four = stress(2, 1, timeout=300), stress(4, 1, timeout=300)
    assert four == two  # (results do not depend on the number of devices)


@pytest.mark.slow
@pytest.mark.parametrize("devices", [2, 4])
def test_every_tool_over_host_devices_never_hangs_in_a_soak(devices: int) -> None:
    stress(devices, 25, timeout=1800)
