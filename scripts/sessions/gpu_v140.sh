#!/usr/bin/env bash
# v140: plain 2:4 on a feature-major X by TMA (TMA_X = 2: boxes of X^T's rows land as the gathered
# tiles' MN-major slabs; 32 new variants, no spills) and Y^T from the split reduction (no copy).
# Tests (wgmma.sp, ops), memcheck with both, then the A/B (scripts/probes/xt_tma.py). Predicted:
# 2:4 prefill on X^T by TMA within +-5% of row-major X by TMA and 20-40% under the gather of the
# same X^T; Y^T from the reduction 1-2 us under Y + copy at T <= 256.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 330 200 tests/test_spmm_wgmma_sp.py tests/test_ops.py
timeout 150 python scripts/probes/xt_tma.py 4096x4096x4096:2:4,11008x4096x2048:2:4,4096x11008x2048:2:4,4096x4096x16:2:4,11008x4096x64:2:4,4096x4096x256:2:4,4096x4096x16:128:2:8,11008x4096x32:128:2:16,4096x11008x128:128:2:32 2>&1 | grep -v Warn | tee "$OUT/xt_tma_v140.txt"
echo "total ${SECONDS}s"
