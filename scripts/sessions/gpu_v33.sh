#!/usr/bin/env bash
# v33: the decode planner by waves of clusters (DECODE_ONE_WAVE): its GPU tests, its A/B against
# v13's rule, and the README grid with it (paths timed in turns).
# Usage: [TAG=h200_v33] OUT=$OUT bash scripts/sessions/gpu_v33.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 150 -k "decode" tests/test_spmm_mma_sp.py
PYTHONPATH=$PYTHONPATH:$PWD/scripts timeout 60 python scripts/ab_decode.py 2>&1 | tee "$OUT/ab.txt" | tail -9
quick_grid 240 "${TAG:-h200_v33}"
