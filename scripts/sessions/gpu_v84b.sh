#!/usr/bin/env bash
# v84b: v84's one failure was the routing test's expectation (64:2:8 at T = 16 on 256 rows now runs
# the decode kernel, v81's rule): that test again with the fix, then the README's grid.
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 120 tests/test_spmm_wgmma_sp.py -k "routes_by_pattern"
grep -qE "[0-9]+ failed" "$OUT/gpu_tests.txt" && exit 1
quick_grid 200 h200_v84; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
