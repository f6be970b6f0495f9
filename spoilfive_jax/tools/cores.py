"""Every CPU core: one XLA host device per core, opted into explicitly.

XLA:CPU runs one program on one core (its intra-op threading does little for the small
elementwise loops of a rollout).  With ``N`` host devices, the rollout tools shard each batch of
hands over them (``rollout``, ``score_hands``, ``evaluate`` and sessions already spread their batch
axis over ``jax.local_devices()``), so ``N`` programs run side by side, one per core.

The library never changes this on import: the number of host devices is a process-wide JAX
setting that must be fixed before JAX's first computation.  The command line and
``examples/million_hands.py`` call ``use_all_cores()`` first thing; a library user does the
same::

    import jax
    import spoilfive_jax as sf

    sf.use_all_cores()          # before any JAX computation in this process
    sf.rollout(0, sf.make("spoil_five"), "random", 1_000_000)

or, without this helper, ``jax.config.update("jax_num_cpu_devices", os.cpu_count())`` right
after ``import jax`` (equivalently ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` in the
environment before Python starts).  On a GPU or TPU this does nothing: the accelerator's devices
are used as they are.

The host devices meet at every collective (the ``psum`` that totals a sharded batch), and XLA
aborts the whole process when one device is a minute late (``rendezvous.cc``: "Termination timeout
... exceeded").  On a loaded machine a device's thread can be off its core that long, so
``use_all_cores`` gives them ``COLLECTIVE_WAIT_S`` instead, unless ``XLA_FLAGS`` already sets the
deadline.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable

import jax

# Seconds a host device waits at a collective for the others before XLA warns, and then before
# it aborts the process (XLA's own defaults: 20 and 40 more).
COLLECTIVE_WARN_S = 60
COLLECTIVE_WAIT_S = 600


def cpu_count() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def use_all_cores(num_devices: int | None = None, *, warn: bool = True) -> int:
    """Ask JAX for ``num_devices`` CPU devices (default: one per core); returns how many CPU
    devices JAX will use.

    Must run before JAX's first computation in this process.  Called later, it changes nothing
    and returns the count already in force (no error: a notebook that already ran JAX keeps
    working), with a ``RuntimeWarning`` saying so when that count is not the one asked for
    (``warn=False``: silent, as the command line calls it).  An explicit ``jax_num_cpu_devices``
    setting (or ``XLA_FLAGS`` forcing a host device count) is respected; ``XLA_FLAGS`` overriding
    an explicit ``num_devices`` warns too.
    """
    if num_devices is not None and (
        isinstance(num_devices, bool) or not isinstance(num_devices, int) or num_devices < 1
    ):
        raise ValueError(f"num_devices must be a positive integer, got {num_devices!r}")
    wanted = num_devices or cpu_count()
    # (a private JAX helper; without it, ask JAX and let it refuse a late change)
    initialized: Callable[[], bool] | None = None
    try:
        from jax._src import xla_bridge

        initialized = xla_bridge.backends_are_initialized
    except (ImportError, AttributeError):  # pragma: no cover - depends on the JAX version
        pass
    if initialized is not None and initialized():
        return _too_late(wanted, warn)
    _patient_collectives()
    forced = "xla_force_host_platform_device_count" in os.environ.get("XLA_FLAGS", "")
    current = int(jax.config.values["jax_num_cpu_devices"])
    if forced or (current > 0 and num_devices is None):
        count = current if current > 0 else len(jax.devices("cpu"))
        if warn and forced and num_devices is not None and count != num_devices:
            warnings.warn(
                f"use_all_cores({num_devices}): XLA_FLAGS forces {count} host devices, which "
                "stays in force",
                RuntimeWarning,
                stacklevel=2,
            )
        return count
    try:
        jax.config.update("jax_num_cpu_devices", wanted)
    except RuntimeError:  # JAX already ran a computation: keep the devices in force
        return _too_late(wanted, warn)
    return wanted


def _patient_collectives() -> None:
    """Give the host devices' collectives longer deadlines (read when the backend starts)."""
    flags = os.environ.get("XLA_FLAGS", "")
    deadlines = {
        "xla_cpu_collective_call_warn_stuck_timeout_seconds": COLLECTIVE_WARN_S,
        "xla_cpu_collective_call_terminate_timeout_seconds": COLLECTIVE_WAIT_S,
    }
    extra = [f"--{name}={value}" for name, value in deadlines.items() if name not in flags]
    if extra:
        os.environ["XLA_FLAGS"] = " ".join([flags, *extra]).strip()


def _too_late(wanted: int, warn: bool) -> int:
    """The CPU device count in force once JAX has computed, warning if it is not ``wanted``."""
    count = len(jax.devices("cpu"))
    if warn and count != wanted:
        warnings.warn(
            f"use_all_cores: JAX has already run a computation in this process, so it keeps "
            f"{count} CPU device{'s' if count != 1 else ''} (asked for {wanted}); call "
            "sf.use_all_cores() first thing, before any JAX computation (or set XLA_FLAGS="
            "--xla_force_host_platform_device_count=N before Python starts)",
            RuntimeWarning,
            stacklevel=3,
        )
    return count
