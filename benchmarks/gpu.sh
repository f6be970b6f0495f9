#!/usr/bin/env bash
# The one prepared accelerator check, from anywhere in the source checkout:
#   bash benchmarks/gpu.sh                 # on a machine with a CUDA GPU
#   bash benchmarks/gpu.sh --dry-run       # on CPU at tiny sizes: checks the commands only
# Extra arguments go to benchmarks/tables.py (e.g. --games spoil_five --sweep 14:20).
# Prints benchmarks/tables.py's tables (one per game: rollouts with every built-in policy, the
# public step, the position analysis; decisions/s and the ratio to pyspiel oh_hell measured in
# the same process) with each path's batch chosen by a measured sweep (2^12..2^20 hands, stopped
# when the throughput stops growing or memory runs out; the sweep is printed), and writes them
# to tables_gpu.json (copy it to benchmarks/results/ and add a figures block to docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
ARGS=(--games all --cores 1 --no-pin --markdown)
if [[ "${1:-}" == "--dry-run" ]]; then
  shift
  export JAX_PLATFORMS=cpu
  ARGS+=(--quick --sweep 6:8 --hands 4096 --positions 4 --samples 8 --peer-seconds 0.2
    --json tables_dry.json)
else
  if ! "$PY" -c "import jax, sys; sys.exit(jax.default_backend() == 'cpu')" 2>/dev/null; then
    "$PY" -m pip install -q "jax[cuda12]"  # the CUDA build of jax
  fi
  "$PY" -c "import pyspiel" 2>/dev/null || "$PY" -m pip install -q open_spiel ||
    echo "open_spiel could not be installed: the ratios read n/a"
  ARGS+=(--sweep 12:20 --hands 8000000 --positions 1000 --samples 1000 --json tables_gpu.json)
fi
"$PY" -c "import jax; print(jax.devices())"
"$PY" benchmarks/tables.py "${ARGS[@]}" "$@"
