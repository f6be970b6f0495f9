#!/usr/bin/env bash
# The one prepared accelerator check, from anywhere in the source checkout.  It needs no network:
#   bash benchmarks/gpu.sh                 # a CUDA build of jax already installed
#   bash benchmarks/gpu.sh --dry-run       # on CPU at tiny sizes: checks the commands only
# Nothing is installed from the network.  OpenSpiel (the pyspiel ratios) is used if importable,
# else (not in a dry run) installed with `pip --no-index` from the wheels in $WHEELS (default:
# .whl/ in the checkout; a relative path is read from where the script is called): open_spiel
# and what it needs that is not installed (absl-py, attrs, ml-collections, scipy); else every
# pyspiel ratio reads n/a.  Extra arguments go to benchmarks/tables.py (e.g. --games spoil_five).
# Prints, and writes in the checkout's root:
#   1. benchmarks/tables.py's tables (one per game: rollouts with every built-in policy, the
#      public step, the position analysis; decisions/s and the ratio to pyspiel oh_hell measured
#      in the same process), each path's batch chosen by a measured sweep (2^12..2^20 hands,
#      stopped when the throughput stops growing or memory runs out; the sweep is printed):
#      tables_gpu.json;
#   2. benchmarks/policy_speed.py's table (every policy's speed: the built-in and three user
#      policies through sf.rollout, the public step in a loop with two pickers, every game and
#      the Oh Hell plugin): policy_speed_gpu.json;
#   3. benchmarks/ppo_collect.py's rates (PPO's collection alone, every game, 4,096 tables on the
#      accelerator): ppo_collect_gpu.json;
#   4. benchmarks/solve_speed.py's table (exact solves: whole hands a second, nodes, a pimc
#      decision on them; every world searched at once off a CPU): solve_speed_gpu.json.
# Copy them to benchmarks/results/ and add figures blocks to docs/benchmarks.md.
set -euo pipefail
WHEELS=$(realpath -m "${WHEELS:-$(dirname "${BASH_SOURCE[0]}")/../.whl}")
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python}
DRY=0
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
ARGS=(--games all --cores 1 --no-pin --markdown)
if [[ "${1:-}" == "--dry-run" ]]; then
  shift
  DRY=1
  export JAX_PLATFORMS=cpu
  ARGS+=(--quick --sweep 6:8 --hands 4096 --positions 4 --samples 8 --peer-seconds 0.2
    --json tables_dry.json)
  POLICY=(--hands 512 --reps 1 --peer-seconds 0.2 --json policy_speed_dry.json)
  COLLECT=(--envs 8 --steps 2 --reps 1 --hidden 8 --json ppo_collect_dry.json)
  SOLVE=(--quick --reps 1 --json solve_speed_dry.json)
else
  backend=$("$PY" -c "import jax; print(jax.default_backend())")  # (set -e: jax must import)
  if [[ "$backend" == cpu ]]; then
    echo "benchmarks/gpu.sh: jax sees no accelerator (its backend is cpu): install a CUDA" \
      "build of jax first, or run with --dry-run on CPU" >&2
    exit 1
  fi
  ARGS+=(--sweep 12:20 --hands 8000000 --positions 1000 --samples 1000 --json tables_gpu.json)
  POLICY=(--hands 4000000 --batch 262144 --json policy_speed_gpu.json)
  COLLECT=(--envs 4096 --label gpu --json ppo_collect_gpu.json)
  SOLVE=(--batch 6144 --json solve_speed_gpu.json)
fi
if ! "$PY" -c "import pyspiel" 2>/dev/null; then
  if [[ $DRY == 1 ]]; then
    echo "no open_spiel (a dry run installs nothing): the pyspiel ratios read n/a"
  elif compgen -G "$WHEELS/*.whl" >/dev/null; then
    "$PY" -m pip install -q --no-index --find-links "$WHEELS" open_spiel ||
      echo "open_spiel could not be installed from $WHEELS: the pyspiel ratios read n/a"
  else
    echo "no open_spiel and no wheels in $WHEELS: the pyspiel ratios read n/a"
  fi
fi
"$PY" -c "import jax; print(jax.devices())"
"$PY" benchmarks/tables.py "${ARGS[@]}" "$@"
"$PY" benchmarks/policy_speed.py "${POLICY[@]}"
"$PY" benchmarks/ppo_collect.py "${COLLECT[@]}"
"$PY" benchmarks/solve_speed.py "${SOLVE[@]}"
