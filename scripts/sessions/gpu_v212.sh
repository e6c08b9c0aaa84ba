#!/usr/bin/env bash
# v212: issue 3's prefill tile against the original Spatha (which is timed on X^T: --xt 1 here). Spatha's
# best (venom.md section 7) is 128 x 64 with 32 x 64 warps, 32 k a stage, 4 stages; ours 128 x 64 with
# 64 x 32 warps, 64 k a stage. Spatha fp16 us: 4096^3 2:4 479.5, 128:2:8 264.1, 128:2:16 144.6, 128:2:32
# 78.5, 64:2:8 284.7, 64:2:16 155.7; 1024 x 4096 x 4096 128:2:16 35.1, 2:4 119.2, 64:2:8 76.8.
source "$(dirname "$0")/../gpu_lib.sh"
{ timeout 120 python scripts/ab_wgmma.py TILE=sm80128x64w64x32s4,sm80128x64w32x64s4,sm80128x64w32x64s3,sm80128x128w32x64s4,sm80128x128w64x32s4 --path mma_sp --xt 1 \
    --shapes 4096x4096x4096:2:4,4096x4096x4096:128:2:8,4096x4096x4096:128:2:16,4096x4096x4096:128:2:32,1024x4096x4096:128:2:16,1024x4096x4096:2:4
  timeout 60 python scripts/ab_wgmma.py TILE=sm8064x128w32x32s4,sm8064x128w32x64s4,sm8064x64w32x64s4 --path mma_sp --xt 1 \
    --shapes 4096x4096x4096:64:2:8,4096x4096x4096:64:2:16,1024x4096x4096:64:2:8
} 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_mma_sp_tiles.txt"
echo "total ${SECONDS}s"
