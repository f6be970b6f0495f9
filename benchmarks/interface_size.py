"""The size of what a game must write and of the rules code: the counts the one-engine redesign
(docs/engine_plan.md) reports before and after.  Read from the source, nothing run.

- the base ``Env``: its members (what its class body defines, dunders aside, and the attributes
  its ``__init__`` sets) and its abstract hooks;
- the capability protocols (``core.capabilities.CAPABILITIES``): how many, and their members;
- the share of annotated function parameters in ``core/`` and ``tools/`` whose annotation
  mentions ``Any``;
- the lines of each built-in game's rules code, by layer (the public state and step, the
  rollout kernels, the conversion into the kernels' layout), and of the Oh Hell plugin's
  minimum (its rules, state and env).

    python benchmarks/interface_size.py --json benchmarks/results/interface_size.json
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (loaded by path in tests)
from provenance import provenance

import spoilfive_jax as sf
from spoilfive_jax.core import capabilities as caps

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "spoilfive_jax"
# Each built-in game's rules code by layer (modules of spoilfive_jax/games/<game>/).
RULES = {
    "spoil_five": {
        "public state and step": ("rules.py", "state.py", "game.py"),
        "rollout kernels": ("fast.py",),
        "analysis, with its conversion to the kernels": ("infer.py",),
        "the public state read from the kernel's layout, and back": ("view.py",),
    },
    "forty_five": {
        "public state and step": (
            "rules.py",
            "state.py",
            "game.py",
            "phases.py",
            "legal.py",
            "scoring.py",
        ),
        "rollout kernels": ("fast.py", "fast_play.py", "strength.py"),
        "conversion to the kernels": ("fast_playout.py",),
        "the public state read from the play kernel's layout": ("view.py",),
    },
}
OH_HELL_MINIMUM = ("rules.py", "state.py", "game.py", "env.py")


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def class_members(cls: type) -> list[str]:
    """What a class body defines (dunders aside), and the attributes ``__init__`` sets."""
    body = ast.parse(inspect.getsource(cls)).body[0].body  # type: ignore[attr-defined]
    names: list[str] = []
    for node in body:
        if isinstance(node, ast.FunctionDef):
            names.append(node.name)
            if node.name == "__init__":
                for sub in ast.walk(node):
                    targets = sub.targets if isinstance(sub, ast.Assign) else []
                    targets += [sub.target] if isinstance(sub, ast.AnnAssign) else []
                    names += [t.attr for t in targets if isinstance(t, ast.Attribute)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return [n for n in names if not (n.startswith("__") and n.endswith("__"))]


def any_share(folders: tuple[str, ...]) -> dict[str, int]:
    """Annotated parameters (``self``/``cls`` aside) in the folders' modules, and how many of
    their annotations mention ``Any``."""
    annotated = with_any = 0
    for folder in folders:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                a = node.args
                for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                    if arg is None or arg.annotation is None or arg.arg in ("self", "cls"):
                        continue
                    annotated += 1
                    with_any += "Any" in ast.unparse(arg.annotation)
    return {"annotated": annotated, "with_any": with_any}


def measure() -> dict[str, Any]:
    protocols = {kind.__name__: list(caps.members(kind)) for kind in caps.CAPABILITIES}
    rules = {
        game: {
            layer: {name: lines(PACKAGE / "games" / game / name) for name in names}
            for layer, names in layers.items()
        }
        for game, layers in RULES.items()
    }
    oh_hell = ROOT / "examples" / "oh_hell" / "spoilfive_oh_hell"
    return {
        "env_members": class_members(sf.Env),
        "env_abstract": sorted(sf.Env.__abstractmethods__),
        "protocols": protocols,
        "any": any_share(("core", "tools")),
        "rules_lines": rules,
        "oh_hell_minimum": {name: lines(oh_hell / name) for name in OH_HELL_MINIMUM},
    }


def report(m: dict[str, Any]) -> str:
    protocols = m["protocols"]
    count = sum(len(v) for v in protocols.values())
    widest = max(protocols, key=lambda k: len(protocols[k]))
    share = m["any"]["with_any"] / max(m["any"]["annotated"], 1)
    out = [
        f"- Env: {len(m['env_members'])} members, {len(m['env_abstract'])} abstract hooks",
        f"- capabilities: {len(protocols)} protocols, {count} members "
        f"(the widest: {widest}, {len(protocols[widest])})",
        f"- Any: {m['any']['with_any']} of {m['any']['annotated']} annotated parameters in "
        f"core/ and tools/ ({share:.0%})",
        "",
        "| game | layer | lines | modules |",
        "|---|---|---|---|",
    ]
    for game, layers in m["rules_lines"].items():
        for layer, modules in layers.items():
            names = ", ".join(f"{k} {v}" for k, v in modules.items())
            out.append(f"| {game} | {layer} | {sum(modules.values()):,} | {names} |")
    minimum = m["oh_hell_minimum"]
    names = ", ".join(f"{k} {v}" for k, v in minimum.items())
    out.append(f"| oh_hell (plugin) | its minimum | {sum(minimum.values()):,} | {names} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--json", default=None, help="write the counts here")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = ap.parse_args(argv)
    result = {**measure(), **provenance(__file__, argv)}
    print(report(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return result


if __name__ == "__main__":
    main()
