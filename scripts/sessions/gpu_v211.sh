#!/usr/bin/env bash
# v211: the X^T transpose's tile, TRANSPOSE_TOKENS x TRANSPOSE_K = 64 x 64 (v23's) against 128-wide ones
# (longer runs of each row of X and X^T). Predicted: BERT FFN2 2:128 T = 8192 (v206: 22% of X^T written,
# ~3 TB/s) 38 -> ~33 us; full transposes (2:32 on 4096 rows, ~3.9 TB/s) even.
source "$(dirname "$0")/../gpu_lib.sh"
S=1024x4096x8192:128:2:128,4096x4096x8192:128:2:128,4096x4096x8192:128:2:32,4096x11008x8192:128:2:32,1024x4096x2048:128:2:128,4096x4096x64:128:2:8
{ timeout 120 python scripts/ab_wgmma.py TRANSPOSE_K=64,128,64,128 --path auto --define TRANSPOSE_TOKENS=64 --shapes $S
  timeout 120 python scripts/ab_wgmma.py TRANSPOSE_K=64,128,64,128 --path auto --define TRANSPOSE_TOKENS=128 --shapes $S
} 2>&1 | tee "$OUT/ab_transpose_tile.txt"
echo "total ${SECONDS}s"
