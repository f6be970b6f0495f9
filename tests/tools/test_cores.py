"""``use_all_cores``: one host device per core, set before JAX's first computation, in a fresh
process each (the setting is process-wide)."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap

import jax
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.tools.cores import use_all_cores


def _process(code: str, deadlines: bool = True) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh process; ``deadlines=False``: without the collective deadlines that
    every process of the suite carries (tests/conftest.py), as a user's process starts."""
    env = {"PATH": "/usr/bin:/bin", "JAX_PLATFORMS": "cpu"} | {
        k: v for k, v in os.environ.items() if k == "XLA_FLAGS" or k.startswith("JAX_")
    }
    if not deadlines:
        flags = env.get("XLA_FLAGS", "").split()
        env["XLA_FLAGS"] = " ".join(f for f in flags if "collective_call" not in f)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        # (a bare environment, but for the suite's compile settings and its compilation cache:
        # tests/conftest.py)
        env=env,
    )


def _run(code: str, deadlines: bool = True) -> str:
    out = _process(code, deadlines)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_use_all_cores_sets_devices_and_rollouts_shard_over_them():
    out = _run(
        """
        import jax, numpy as np
        import spoilfive_jax as sf
        n = sf.use_all_cores(3)
        one = sf.rollout(0, sf.make("spoil_five", 4), "random", 5000)
        print(n, len(jax.devices()), one.rewards.sum(), use_again := sf.use_all_cores(5))
        """
    )
    n, devices, total, again = out.split()
    assert (n, devices, again) == ("3", "3", "3")  # a later call changes nothing
    # the same hands as on this process's one device (results do not depend on the count)
    assert jax.device_count() == 1
    single = sf.rollout(0, sf.make("spoil_five", 4), "random", 5000).rewards.sum()
    assert float(total) == pytest.approx(float(single))


def test_use_all_cores_default_is_one_device_per_core():
    out = _run(
        """
        import jax
        from spoilfive_jax.tools.cores import cpu_count, use_all_cores
        print(use_all_cores() == cpu_count() == len(jax.devices()))
        """
    )
    assert out == "True"


@pytest.mark.parametrize("bad", [0, -1, 2.5, "2", True])
def test_use_all_cores_refuses_bad_counts(bad):
    with pytest.raises(ValueError, match="num_devices"):
        use_all_cores(bad)


# Two host devices total a sum; the first one's thread reaches the total LATE seconds after the
# other, as a thread off its core on a loaded machine would.
_LATE_DEVICE = """
    import time, jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, PartitionSpec as P
    from spoilfive_jax.tools import cores
    cores.COLLECTIVE_WARN_S, cores.COLLECTIVE_WAIT_S = 1, {wait}
    cores.use_all_cores(2)

    def nap(device):
        if int(device) == 0:
            time.sleep({late})
        return np.float32(1)

    @jax.jit
    @jax.shard_map(mesh=Mesh(np.array(jax.devices()), ("d",)), in_specs=P("d"), out_specs=P())
    def total(x):
        device = jax.lax.axis_index("d")
        late = jax.pure_callback(nap, jax.ShapeDtypeStruct((), jnp.float32), device)
        return jax.lax.psum(x.sum() * late, "d")

    print(total(jnp.ones(4)))
"""


@pytest.mark.slow
def test_the_devices_wait_for_a_late_one_as_long_as_use_all_cores_says():
    """XLA aborts the process when a device is later to a collective than its deadline (a
    minute by default, which a loaded 2-core machine exceeded); ``use_all_cores`` sets it."""
    impatient = _process(_LATE_DEVICE.format(wait=1, late=3), deadlines=False)
    assert impatient.returncode != 0 and "Termination timeout" in impatient.stderr
    assert _run(_LATE_DEVICE.format(wait=10, late=3), deadlines=False) == "4.0"
    flags = _run(
        """
        import os
        from spoilfive_jax.tools import cores
        cores.use_all_cores(2)
        print(cores.COLLECTIVE_WAIT_S, os.environ["XLA_FLAGS"])
        """,
        deadlines=False,
    ).split()
    assert int(flags[0]) >= 600
    assert f"--xla_cpu_collective_call_terminate_timeout_seconds={flags[0]}" in flags
    # (a deadline the caller's XLA_FLAGS set is theirs)
    own = "--xla_cpu_collective_call_terminate_timeout_seconds=7"
    kept = _run(
        f"""
        import os
        os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " {own}"
        from spoilfive_jax.tools import cores
        cores.use_all_cores(2)
        print(os.environ["XLA_FLAGS"])
        """,
        deadlines=False,
    ).split()
    assert own in kept and sum("terminate_timeout" in f for f in kept) == 1


@pytest.mark.slow
def test_analysis_shards_over_the_devices_with_the_same_result():
    def analyze():
        env = sf.spoil_five.SpoilFive(4)
        state = sf.position_from_history(
            env, "players=4; dealer=0; turnup=7D; player=1; hand=5D JH AH KC 4S; history="
        )
        res = sf.analyze(0, env, state, num_samples=192, policy="random", batch_size=768)
        return float(np.nansum(res.expected_chips))

    many = _run(
        "import jax, numpy as np\nimport spoilfive_jax as sf\nsf.use_all_cores(3)\n"
        + textwrap.dedent(inspect.getsource(analyze))
        + "print(len(jax.devices()), repr(analyze()))"
    ).split()
    assert many[0] == "3" and jax.device_count() == 1
    assert float(many[1]) == analyze()  # identical, whatever the device count


def test_a_late_call_warns_when_it_cannot_give_what_was_asked():
    """After JAX has computed, the call changes nothing, so it warns: returning the count in
    force without a word cost users an hour."""
    import warnings

    import jax
    import jax.numpy as jnp

    jnp.zeros(1).block_until_ready()  # JAX has computed in this process
    count = len(jax.devices("cpu"))
    with pytest.warns(RuntimeWarning, match="JAX has already run a computation") as record:
        assert use_all_cores(count + 1) == count
    assert f"keeps {count} CPU device" in str(record[0].message)
    assert record[0].filename == __file__  # points at the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert use_all_cores(count) == count  # what is asked is in force: silent
        assert use_all_cores(count + 1, warn=False) == count  # the command line's call


def test_a_late_call_in_a_fresh_process_warns_on_stderr():
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import jax.numpy as jnp, spoilfive_jax as sf; jnp.ones(2).sum().block_until_ready(); "
            "print(sf.use_all_cores(3))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        # (a bare environment, but for the suite's compile settings and its compilation cache:
        # tests/conftest.py)
        env={"PATH": "/usr/bin:/bin", "JAX_PLATFORMS": "cpu"}
        | {k: v for k, v in os.environ.items() if k == "XLA_FLAGS" or k.startswith("JAX_")},
    )
    assert out.returncode == 0 and out.stdout.strip() == "1", out.stderr
    assert "RuntimeWarning: use_all_cores: JAX has already run a computation" in out.stderr


@pytest.mark.slow  # (a long compile: under -m slow, so the default run keeps to its time)
def test_the_command_line_takes_its_device_count():
    """``--devices N`` on a subcommand: N CPU devices instead of one per core, same results."""
    code = """
        import contextlib, io, json, jax
        from spoilfive_jax import cli
        out = io.StringIO()
        argv = ["rollout", "--players", "3", "--policy", "random", "--hands", "500", "--quiet"]
        with contextlib.redirect_stdout(out):
            assert cli.main([*argv, "--json", "-", "--devices", "{n}"]) == 0
        print(len(jax.devices()), json.loads(out.getvalue())["win_rate"])
    """
    three = _run(code.format(n=3)).split(maxsplit=1)
    one = _run(code.format(n=1)).split(maxsplit=1)
    assert three[0] == "3" and one[0] == "1"
    assert three[1] == one[1]  # (results do not depend on the devices)


def test_the_command_line_refuses_a_bad_device_count(capsys):
    from spoilfive_jax import cli

    assert cli.main(["rollout", "--devices", "0"]) == 2
    assert "--devices: expected an integer >= 1" in capsys.readouterr().err
