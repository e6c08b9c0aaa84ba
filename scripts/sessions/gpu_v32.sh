#!/usr/bin/env bash
# v32: the README grid with the config's paths timed in turns (bench measure_group), the autotune
# GPU test (decode route off), and ncu on the decode kernel at LLaMA gate/up 128:2:8, T = 1
# (1.5 TB/s of weights where dense streams 3.6).
# Usage: [TAG=h200_v32] OUT=$OUT bash scripts/sessions/gpu_v32.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
quick_grid 240 "${TAG:-h200_v32}"
timeout 60 python -m pytest -q -m gpu -p no:cacheprovider tests/test_autotune.py 2>&1 | tail -2
SCRIPT_DIR=$(dirname "$0")
bash "$SCRIPT_DIR/gpu_profile.sh" decode_gu_128_2_8_t1 spmm_mma_sp_decode 11008 4096 1 128:2:8 mma_sp_decode | tail -14
