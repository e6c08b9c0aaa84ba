#!/usr/bin/env bash
# v59c: main after v56c (vectorized split reduction) and v59 (staged A for 2:4 at T <= 64): the
# GPU suites, memcheck, then the README's grid.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
gpu_tests 200 tests/test_spmm_wgmma_sp.py tests/test_nn.py tests/test_ops.py tests/test_spmm_mma_sp.py -k "not sass"
sanitize 80
echo "checks took ${SECONDS}s"
[ "${GRID:-1}" = 1 ] && { quick_grid 260 h200_v59; rm -f "$OUT/bench.txt"; }
echo "total ${SECONDS}s"
