#!/usr/bin/env bash
# v225 (branch xt-rows = main + v224 + v221 cherry-picked from cluster4, whose v222 / v223 kernel changes were
# refuted: cluster4's pc4 ran 300-330 us at 4096^2 x 8192 against v220's 271.5 on main's kernel).
# Predictions: v221 (CLUSTER_4_2_4) on main's kernel -5..-6% at 4096^2 x 8192 and 4096 x 11008 x 8192, 8192-row
# shapes -3..-8%, the rest even; v224 (XT_AS_ROWS) T = 4 auto_xt -20..-25%, gate/up T = 8 / 16 32 / 22 -> ~19 us.
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 150 tests/test_spmm_wgmma_sp.py -k "as_rows or cluster"
SANITIZE_ARGS="--tiles c4" sanitize 100
S=4096x4096x8192:2:4,4096x11008x8192:2:4,8192x8192x4096:2:4,8192x8192x8192:2:4,13824x5120x8192:2:4,5120x13824x8192:2:4,28672x8192x4096:2:4,5120x5120x8192:2:4,4096x4096x2048:2:4,1024x4096x8192:2:4
timeout 200 python scripts/ab_wgmma.py CLUSTER_4_2_4=0,1,0,1 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_cluster4_route.txt"
D=4096x4096x4:2:4,11008x4096x4:2:4,4096x11008x4:2:4,1024x4096x4:2:4,11008x4096x8:2:4,11008x4096x16:2:4,4096x11008x8:2:4,1024x4096x16:2:4,11008x4096x13:2:4,4096x4096x100:2:4
timeout 100 python scripts/ab_wgmma.py XT_AS_ROWS=0,1,0,1 --path auto --xt 1 --shapes $D 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_xt_as_rows.txt"
echo "total ${SECONDS}s"
