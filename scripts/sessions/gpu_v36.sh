#!/usr/bin/env bash
# v36 (next session): the grid with the decode kernel up to 16 tokens at V % 128 == 0, M <= 16
# (routed from grid v35's own rows, not yet run) and the ring's slot advanced without a division
# (v35 vs v33: M >= 16 at T = 1 -3..-7%, ring inactive there), rings of 2 vs 3 slots, ncu of the ring kernel
# (gate/up 128:2:8, T = 1: 2.1 TB/s of weights) and memcheck with the decode ring engaged.
# Usage: [TAG=h200_v36] OUT=$OUT bash scripts/sessions/gpu_v36.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
quick_grid 240 "${TAG:-h200_v36}"
PYTHONPATH=$PYTHONPATH:$PWD/scripts timeout 60 python scripts/ab_decode.py DECODE_RING=2,3,2,3 --shapes \
  11008x4096x1:2:4,4096x11008x1:2:4,11008x4096x1:128:2:8,4096x11008x1:128:2:8,11008x4096x8:64:2:8 \
  2>&1 | tee "$OUT/ab.txt" | tail -6
bash "$(dirname "$0")/gpu_profile.sh" decode_ring_gu_128_2_8_t1 spmm_mma_sp_decode 11008 4096 1 128:2:8 mma_sp_decode | tail -8
sanitize 150
