#!/usr/bin/env bash
# v41: the decode planner's fewest steps per CTA (DECODE_MIN_STEPS: more splits, each ending in a
# cluster reduction, vs longer weight streams per CTA), ncu of the decode kernel where its fixed
# cost dominates (1024 x 4096 128:2:32, 0.6 MB; 4096^2 128:2:8, T = 1), and the README's grid with
# v40's programmatic dependent launch.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v41.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
warm
PYTHONPATH=$PYTHONPATH:$PWD/scripts timeout 150 python scripts/ab_decode.py DECODE_MIN_STEPS=2,4,8,2,4,8 \
  --shapes 4096x4096x1:128:2:8,11008x4096x1:128:2:8,4096x11008x1:128:2:8,4096x4096x1:2:4,1024x4096x1:128:2:32,11008x4096x8:64:2:8,4096x4096x8:128:2:16,4096x4096x4:128:2:32 \
  2>&1 | grep -v Warn | tee "$OUT/ab_decode_min_steps.txt"
quick_grid 200 h200_v41; rm -f "$OUT/bench.txt"  # 8 files: the grid's md has its tables
VNM_PDL=0 bash scripts/gpu_profile.sh decode_v41_2_32 spmm_mma_sp_decode 1024 4096 1 128:2:32 mma_sp_decode \
  decode_v41_2_8 spmm_mma_sp_decode 4096 4096 1 128:2:8 mma_sp_decode 2>&1 | grep -v "^total\|^d\|^-" | head -30
echo "total ${SECONDS}s"
