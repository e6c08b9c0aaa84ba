#!/usr/bin/env bash
# v68: main after v62 (narrow staged 2:4 tiles at T <= 32) and v67 (the step-major fragment image,
# read by the wgmma.sp and the one-launch decode kernels): the GPU suites, memcheck, then (if the
# tests pass) the README's grid.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 220 90 tests/test_spmm_wgmma_sp.py tests/test_nn.py tests/test_ops.py tests/test_spmm_mma_sp.py -k "not sass" || exit 1
quick_grid 270 h200_v68; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
