#!/usr/bin/env bash
# v213 (branch mma-sp-waves, prepared without a GPU): issue 3's cp.async prefill takes 128 x 128 tiles where
# their waves cost less (WIDE_PREFILL_COST, from v212's four points). Predicted: 1024 x 4096 T = 4096 -13..-17%
# (v212), T = 2048 -5..-15% (0.65 wave of 128 x 64 against one of 128 x 128: not measured), T = 8192 and
# 4096-row shapes unchanged (the rule keeps 128 x 64). First the tests of every cp.async tile (the new one too).
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 200 tests/test_spmm_mma_sp.py
S=1024x4096x2048:128:2:16,1024x4096x4096:128:2:16,1024x4096x8192:128:2:16,1024x4096x4096:2:4,1024x4096x2048:2:4,1024x4096x4096:128:2:32,4096x4096x4096:128:2:8,11008x4096x2048:128:2:8
timeout 150 python scripts/ab_wgmma.py WIDE_PREFILL_COST=100,0.84,100,0.84 --path mma_sp --shapes $S 2>&1 | tee "$OUT/ab_mma_sp_waves.txt"
echo "total ${SECONDS}s"
