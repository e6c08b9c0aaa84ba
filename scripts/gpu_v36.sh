#!/usr/bin/env bash
# v36 (next session): the grid with the decode kernel up to 16 tokens at V % 128 == 0, M <= 16
# (routed from grid v35's own rows, not yet run), whether the decode ring's slot arithmetic costs
# M >= 16 at T = 1 (v35 vs v33: -3..-7%, ring inactive there), and ncu of the ring kernel.
# Usage: [TAG=h200_v36] OUT=$OUT bash scripts/gpu_v36.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/gpu_lib.sh"
quick_grid 240 "${TAG:-h200_v36}"
PYTHONPATH=$PYTHONPATH:$PWD/scripts timeout 60 python scripts/ab_decode.py DECODE_RING=0,2,0,2 --shapes \
  11008x4096x1:128:2:128,4096x4096x1:128:2:16,1024x4096x1:128:2:32,11008x4096x1:2:4,11008x4096x1:128:2:8 \
  2>&1 | tee "$OUT/ab.txt" | tail -6
bash "$(dirname "$0")/gpu_profile.sh" decode_ring_gu_2_4_t1 spmm_mma_sp_decode 11008 4096 1 2:4 mma_sp_decode | tail -8
