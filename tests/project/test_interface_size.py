"""``benchmarks/interface_size.py`` counts what the one-engine redesign reports before and after
(the base Env, the capability protocols, the ``Any`` share, the rules code by layer)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import load_script

import spoilfive_jax as sf
from spoilfive_jax.core import capabilities as caps

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "interface_size.py"


def test_the_interface_counts_are_read_from_the_source(tmp_path, capsys):
    out = tmp_path / "size.json"
    result = load_script(SCRIPT).main(["--json", str(out)])
    assert "information_state" in result["env_members"] and "step" in result["env_members"]
    assert set(result["env_abstract"]) == set(sf.Env.__abstractmethods__)
    assert list(result["protocols"]) == [k.__name__ for k in caps.CAPABILITIES]
    assert result["protocols"]["Rollouts"] == list(caps.members(caps.Rollouts))
    share = result["any"]
    assert 0 < share["with_any"] < share["annotated"]
    layers = result["rules_lines"]["forty_five"]
    assert all(n > 50 for modules in layers.values() for n in modules.values())
    assert json.loads(out.read_text())["protocols"] == result["protocols"]
    printed = capsys.readouterr().out
    assert f"- Env: {len(result['env_members'])} members" in printed
    assert "| oh_hell (plugin) | its minimum |" in printed
