#!/usr/bin/env bash
# v97: main with the gather's column-word look-ahead at 8 (v96): the GPU suites, memcheck, then the
# README's grid.
source "$(dirname "$0")/../gpu_lib.sh"
checks 300 100 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py || exit 1
quick_grid 220 h200_v97; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
