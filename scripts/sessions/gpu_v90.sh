#!/usr/bin/env bash
# v90: main with plain 2:4 on the staged wgmma.sp tile at T = 1-8 (v89): the GPU suites, memcheck,
# then the README's grid.
source "$(dirname "$0")/../gpu_lib.sh"
checks 300 100 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py || exit 1
quick_grid 220 h200_v90; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
