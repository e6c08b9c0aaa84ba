#!/usr/bin/env bash
# v116: main with the v114/v115 route (NARROW_TILES for V:2:M at T <= 32, over the decode kernel
# where the compact bytes reach max(10 MB, 40 MB / T)): the GPU suites and memcheck (two new
# sanitizer cases: the gathered 16-token tiles, 128 and 64 rows), an A/B of the route at T = 1
# (the rule's extrapolation: LLaMA-70B 2:8 / 2:16, 117 / 59 MB, now narrow at T = 1; predicted
# -20% like T = 2 in v115), then the README's grid.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 300 150 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py || exit 1
S=""; for p in 128:2:8 128:2:16 64:2:8 128:2:32; do S="$S,28672x8192x1:$p,8192x28672x1:$p,5120x13824x1:$p,11008x4096x1:$p"; done
timeout 120 python scripts/ab_wgmma.py NARROW_GATHERED=0,1,0,1 --path auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v116.txt"
quick_grid 300 h200_v116; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
