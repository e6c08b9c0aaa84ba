#!/usr/bin/env bash
# v84: main with the up-front L2 prefetch of 4 steps (v83b): the wgmma.sp and ops GPU suites,
# memcheck, then the README's grid.
source "$(dirname "$0")/../gpu_lib.sh"
checks 200 90 tests/test_spmm_wgmma_sp.py tests/test_ops.py || exit 1
quick_grid 200 h200_v84; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
