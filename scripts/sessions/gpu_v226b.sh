#!/usr/bin/env bash
# v226b: v226's rule (XT_AS_ROWS_UPTO) against no rows-first, in turns, on its cells and its edges; its GPU tests.
# Predicted from gpu_v226.sh: 4096^2 / 5120^2 / down T = 8 -7 / -15 / -13%, gate/up T = 32 -21%, gate/up T = 16
# -25% (v224), the edges (1024 rows T = 8, 4096^2 T = 16, T = 64) even.
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 150 tests/test_spmm_wgmma_sp.py -k "as_rows or feature_major"
S=4096x4096x8:2:4,5120x5120x8:2:4,4096x11008x8:2:4,11008x4096x32:2:4,11008x4096x16:2:4,1024x4096x8:2:4,4096x4096x16:2:4,11008x4096x64:2:4,4096x4096x4:2:4
timeout 120 python scripts/ab_wgmma.py XT_AS_ROWS=0,1,0,1 --path auto --xt 1 --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_xt_as_rows_v226b.txt"
echo "total ${SECONDS}s"
