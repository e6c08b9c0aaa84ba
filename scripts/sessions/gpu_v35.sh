#!/usr/bin/env bash
# v35: the README grid with the decode ring (DECODE_RING = 2) and 2:4 on the decode kernel at 1-8
# tokens; the ops/nn GPU suites through the changed routes first.
# Usage: [TAG=h200_v35] OUT=$OUT bash scripts/sessions/gpu_v35.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 200 tests/test_ops.py tests/test_nn.py -k "not compile"
quick_grid 240 "${TAG:-h200_v35}"  # (v36: the same with decode at T <= 16 for V % 128 == 0, M <= 16: TAG=h200_v36)
