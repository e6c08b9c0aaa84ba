#!/usr/bin/env bash
# v80 (branch mma-m4-tile): issue 3's mma.sp path against the original Spatha on the H200 (venom.md
# section 7, 4096^3 fp16: 0.38 / 0.69 / 1.26 / 2.32 / 5.65x cuBLAS at 2:4 / 2:8 / 2:16 / 2:32 / 2:128;
# grid v73 mma_sp at 4096^2 x 4096 bf16: 0.29 / 0.59 / 1.04 / 1.80 / 3.22, transpose included).
# (1) plain 2:4 on the 128-row tiles (NO_COLS_ROW_TILE: no column lists, so a CTA may straddle
# V-blocks; 2:4 is V = 64 and ran the 64 x 128 tile). Predicted 2:4 prefill -10..-20%.
# (2) kernel_times: what of each mma_sp call is the X^T transpose.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=4096x4096x4096:2:4,11008x4096x4096:2:4,4096x11008x4096:2:4,1024x4096x4096:2:4,4096x4096x64:2:4,11008x4096x16:2:4,4096x4096x1:2:4
timeout 200 python scripts/ab_wgmma.py NO_COLS_ROW_TILE=64,128,64,128 --path mma_sp --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v80.txt"
S=4096x4096x4096:2:4,4096x4096x4096:128:2:8,4096x4096x4096:128:2:16,4096x4096x4096:128:2:32,4096x4096x4096:128:2:128
S=$S,1024x4096x4096:128:2:8,1024x4096x4096:128:2:32,1024x4096x4096:128:2:128
timeout 120 python scripts/kernel_times.py $S --path mma_sp 2>&1 | grep -v Warn | tee "$OUT/kernel_times_v80.txt"
echo "total ${SECONDS}s"
