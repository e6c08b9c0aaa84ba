#!/usr/bin/env bash
# v34: the decode kernel's A tiles through a ring of slots (DECODE_RING): its GPU tests, then the
# A/B against all-resident (0) with the plan each value gives.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v34.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 150 -k "decode" tests/test_spmm_mma_sp.py
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
timeout 120 python scripts/ab_decode.py DECODE_RING=0,4,2,8,0,4,2,8 --shapes \
11008x4096x1:128:2:8,4096x11008x1:128:2:8,4096x4096x1:128:2:8,11008x4096x8:64:2:8,11008x4096x1:2:4,4096x11008x1:2:4,\
4096x4096x1:2:4,1024x4096x1:2:4,11008x4096x1:128:2:16,11008x4096x4:128:2:32,11008x4096x16:64:2:8,4096x11008x8:64:2:16 \
  2>&1 | tee "$OUT/ab.txt" | tail -13
