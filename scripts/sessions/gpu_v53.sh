#!/usr/bin/env bash
# v53: grid of main after v51a / v52 (the README's table), and the two tests v52's run caught.
source "$(dirname "$0")/../gpu_lib.sh"
warm 120
timeout 60 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py \
  -k "dispatches_to_kernel or routes_by_pattern" 2>&1 | tail -1
quick_grid 300 h200_v53; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
