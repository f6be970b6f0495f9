#!/usr/bin/env bash
# One-command GPU check (run from the project root on a machine with a CUDA GPU):
#   bash benchmarks/gpu.sh
# Installs the CUDA build of jax, then prints the rollout/scorer table at accelerator batch
# sizes and the engine step table.  Paste the output into the README's benchmark section.
set -euo pipefail
python -m pip install -q -e . "jax[cuda12]"
python -c "import jax; print(jax.devices())"
python benchmarks/rollout_speed.py --players 2,5,10 --batch 65536,262144,1048576 \
  --hands 4000000 --reps 2 --no-peers --json rollout_gpu.json
python benchmarks/throughput.py --players 5 --batch 16384,65536 --no-peers --json step_gpu.json
