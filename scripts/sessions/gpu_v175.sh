#!/usr/bin/env bash
# v175: K splits of the 3-stage 64-row cp.async decode tiles (v172/v174), which fit four CTAs an SM
# where choose_splits plans waves of two: at V = 128, T = 64 the 64-row tile won on 4096 rows (-7%
# 128:2:8, -15% 128:2:16: 4 splits) and lost on 11008 (+6%: 2 splits, 344 CTAs). Predicted: 11008 rows
# best at 3 splits (516 CTAs, one wave of four an SM), 4096 rows at 4-8. Then the mma_sp suite with
# 3 stages on the 64 x 32 / 64 x 16 tiles too.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
D=11008x4096x64:128:2:8,11008x4096x64:64:2:8,4096x11008x64:64:2:8,4096x4096x64:128:2:8,4096x4096x64:64:2:8,4096x4096x64:128:2:16,1024x4096x64:64:2:8
timeout 90 python scripts/ab_wgmma.py SPLITS=0,2,3,4,6,8 --define TILE=sm8064x64w16x64s3 --path mma_sp --shapes $D 2>&1 | grep -v Warn | tee "$OUT/ab_mma_sp_splits_h200_v175.txt"
D32=11008x4096x32:128:2:8,11008x4096x32:64:2:8,4096x4096x32:128:2:8,4096x4096x32:64:2:8
timeout 50 python scripts/ab_wgmma.py SPLITS=0,2,3,4,6 --define TILE=sm8064x32w16x32s3 --path mma_sp --shapes $D32 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_splits_h200_v175.txt"
timeout 50 python scripts/ab_wgmma.py TILE=auto,auto --path mma_sp --shapes $D,$D32 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_splits_h200_v175.txt"
WARM=0 gpu_tests 150 tests/test_spmm_mma_sp.py
echo "total ${SECONDS}s"
