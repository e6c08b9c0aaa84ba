#!/usr/bin/env bash
# v82: main after v80 (plain 2:4 mma.sp prefill on 128-row tiles) and v81 (decode kernel to T = 16
# on weights of <= 1024 rows at M >= 8): the routing test, then the README's grid.
source "$(dirname "$0")/../gpu_lib.sh"
WARM=0 gpu_tests 60 tests/test_spmm_mma_sp.py -k "decode_plan or tile_choice or autotune"
quick_grid 330 h200_v82; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
