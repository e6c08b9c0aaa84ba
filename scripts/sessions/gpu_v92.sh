#!/usr/bin/env bash
# v92: issue 3's mma.sp (cp.async) kernel at T = 64, where it is slower than cuBLAS (grid v90:
# 4096^2 64:2:8 16.4 us vs 12.1 dense, gate/up 35.7 vs 26.5, 128:2:8 15.7 / 27.4). Counted at
# T = 64 on the 64 x 64 tile (16 x 64 warps): a step gathers 8 KB of X^T (64 rows x 64 tokens) by
# 16-byte cp.async against 4 KB of weights, so the gather, not the weight stream, sets the pace.
# A/B: narrower token tiles (the X^T gather per CTA shrinks, A is read once per token tile) and K splits.
# Predicted: 32-token tiles -10..-25% at T = 64 if the gather's issue rate bounds it.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 200
S64=""; S128=""; for d in 4096x4096 11008x4096 4096x11008 1024x4096; do
  S64="$S64,${d}x64:64:2:8,${d}x64:64:2:16"; S128="$S128,${d}x64:128:2:8,${d}x64:128:2:16"; done
timeout 150 python scripts/ab_wgmma.py TILE=sm8064x64w16x64s6,sm8064x32w16x32s6,sm8064x16w16x16s6,sm8064x64w16x64s6 --path mma_sp \
  --shapes "${S64#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v92_v64.txt"
timeout 150 python scripts/ab_wgmma.py TILE=sm80128x64w32x64s6,sm80128x32w32x32s6,sm80128x16w32x16s6,sm80128x64w32x64s6 --path mma_sp \
  --shapes "${S128#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v92_v128.txt"
timeout 150 python scripts/ab_wgmma.py SPLITS=0,1,2,4,8 --path mma_sp --shapes "${S64#,},${S128#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v92_splits.txt"
echo "total ${SECONDS}s"
