#!/usr/bin/env bash
# v174: issue 3's cp.async kernel, after v172's 3-stage 64 x 64 decode tile (4 CTAs an SM: -6..-7% at
# 64:2:8 T = 64). (1) The same 64-row tile for V = 128 at T = 64, where 128:2:8 4096^2 is now the
# decode rule's worst cell (0.80 of cuBLAS; the 128 x 64 tile lost with 3-4 stages): 64 row tiles, 4
# CTAs an SM. Predicted -5..-10% if more CTAs in flight is what helped, else even. (2) 3 stages on
# the 64 x 32 / 64 x 16 decode tiles at T = 32 / 16. Predicted even to -5%. (3) The prefill tiles'
# ring depth (4 now) at 3 and 5-6: the prefill is L2-request-bound (v17 ncu), so predicted even.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
D=4096x4096x64:128:2:8,11008x4096x64:128:2:8,1024x4096x64:128:2:8,4096x11008x64:128:2:8,4096x4096x64:128:2:16,4096x4096x64:128:2:32
timeout 60 python scripts/ab_wgmma.py TILE=auto,sm8064x64w16x64s3,sm8064x64w16x64s4,auto --path mma_sp --shapes $D 2>&1 | grep -v Warn | tee "$OUT/ab_mma_sp_h200_v174.txt"
D32=4096x4096x32:64:2:8,11008x4096x32:64:2:8,4096x11008x32:64:2:8,4096x4096x32:128:2:8
timeout 40 python scripts/ab_wgmma.py TILE=auto,sm8064x32w16x32s3,sm8064x32w16x32s4,auto --path mma_sp --shapes $D32 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_h200_v174.txt"
D16=4096x4096x16:64:2:8,11008x4096x16:64:2:8,4096x11008x16:64:2:8,4096x4096x16:128:2:8
timeout 40 python scripts/ab_wgmma.py TILE=auto,sm8064x16w16x16s3,sm8064x16w16x16s4,auto --path mma_sp --shapes $D16 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_h200_v174.txt"
P=4096x4096x4096:128:2:8,11008x4096x4096:128:2:8,4096x4096x4096:128:2:16
timeout 60 python scripts/ab_wgmma.py TILE=auto,sm80128x64w64x32s3,sm80128x64w64x32s6,auto --path mma_sp --shapes $P 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_h200_v174.txt"
P64=4096x4096x4096:64:2:8,11008x4096x4096:64:2:8
timeout 50 python scripts/ab_wgmma.py TILE=auto,sm8064x128w32x32s3,sm8064x128w32x32s5,auto --path mma_sp --shapes $P64 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_h200_v174.txt"
echo "total ${SECONDS}s"
