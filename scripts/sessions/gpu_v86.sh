#!/usr/bin/env bash
# v86 (prepared, not run): issue 3's mma.sp prefill against the original Spatha at 1024 x 4096 x 4096
# (v80: our kernel 82 us vs Spatha's 67 at 128:2:8). Counted: the 128 x 64 tile (166 registers x 128
# threads, 68 KB) fits 3 CTAs per SM, so 512 CTAs take 2 waves of 396 slots (65% full); 4096^2 x 4096
# 2048 CTAs -> 6 waves (86%). The 128 x 64 tile with 32 x 64 warps and 6 stages (128 registers,
# 102 KB: 2 per SM on the H200) gives 0.97 at both; 128 x 32 (6 stages, 2 per SM) 0.97 at 1024 rows.
# Predicted: 1024 x 4096 -15..-25% on a full-wave tile if per-CTA rates hold; 4096^2 -5..-10%;
# 11008 x 4096 (14 waves) even. K splits of 2 on the default tile as a third option at 1024 rows.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=1024x4096x4096:128:2:8,1024x4096x4096:128:2:32,4096x4096x4096:128:2:8,4096x4096x4096:128:2:32,11008x4096x4096:128:2:8
S=$S,1024x4096x4096:2:4,4096x4096x4096:2:4
timeout 250 python scripts/ab_wgmma.py TILE=sm80128x64w64x32s4,sm80128x64w32x64s6,sm80128x32w32x32s6,sm80128x64w64x32s4 \
  --path mma_sp --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v86.txt"
timeout 100 python scripts/ab_wgmma.py SPLITS=1,2,1,2 --path mma_sp --shapes 1024x4096x4096:128:2:8,1024x4096x4096:128:2:32 \
  2>&1 | grep -v Warn | tee "$OUT/ab_v86_splits.txt"
echo "total ${SECONDS}s"
