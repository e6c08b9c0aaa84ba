#!/usr/bin/env bash
# v51a: one step per K split in the decode kernel (MIN_SPLIT_STEPS 2 vs 1, in turns), and the
# per-launch kernel times at T = 16 / 64 (transpose, SpMM, reduction) on the main route.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v51.sh
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
timeout 200 python scripts/ab_decode.py MIN_SPLIT_STEPS=2,1,2,1 \
  --shapes 1024x4096x1:128:2:32,4096x4096x1:128:2:32,4096x4096x1:128:2:16,4096x4096x8:128:2:16,1024x4096x8:128:2:32,4096x4096x1:128:2:128,4096x4096x4:128:2:8,11008x4096x1:128:2:16 \
  2>&1 | grep -v Warn | tee "$OUT/ab_decode_v51a.txt"
timeout 120 python scripts/kernel_times.py 4096x4096x16:128:2:8,4096x4096x64:128:2:8,4096x4096x16:64:2:16,4096x4096x64:128:2:16,11008x4096x64:128:2:8,4096x11008x16:128:2:8,1024x4096x16:128:2:16 \
  2>&1 | grep -v Warn | tee "$OUT/kernel_times_v51a.txt"
echo "total ${SECONDS}s"
