#!/usr/bin/env bash
# The one device check of issue 50 item 4, for a session lent a GPU machine (16 cores, one H100/H200, no
# network, at most 10 minutes): `dw bench train --device cuda` (dw_cli/bench/gpu_train.py), three cases of
# configs/standard_gpu.yaml of about 100 s each with their setup, plus what the machine is.
#
#   tools/gpu_bench.sh [OUT_DIR]     # default: $OUT if set (the device tool's folder), else runs/gpu_bench
#
# Writes OUT_DIR/gpu_bench.txt (the bench's table: env steps/s against the 50k goal, GPU utilisation) and
# OUT_DIR/machine.txt (nvidia-smi, torch and CPU), and exits with the bench's status (2: no CUDA).
set -u
cd "$(dirname "$0")/.."
out="${1:-${OUT:-runs/gpu_bench}}"
mkdir -p "$out"
python="${PYTHON:-.venv/bin/python}"
[ -x "$python" ] || python=python3
{
  date -u
  nvidia-smi 2>&1 | head -20
  "$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.is_available())'
  nproc
} > "$out/machine.txt" 2>&1
# 60 s a case (the bench's least on a GPU): 3 cases, each with ~30 s of setup and its first update, in 540 s
PYTHONPATH="$PWD" timeout 540 "$python" -m dw_cli.main bench train --device cuda --seconds 60 2>&1 | tee "$out/gpu_bench.txt"
exit "${PIPESTATUS[0]}"
