#!/usr/bin/env bash
# v177: issue 3's last failing decode cells (cp.async path, 4096^2 2:8 T = 64: 0.81-0.84 of cuBLAS in
# grid v176): where the time goes (per-kernel times: transpose, SpMM, split reduction), and three
# ways to more CTAs in flight without more split partials: 32-row tiles (128 row tiles), 2-stage
# 64-row ones, 32-token ones (two token tiles). Predicted: the SpMM ~70% of the call; 32-row tiles
# -5..-10% if CTAs in flight bound it, the others even or slower.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
timeout 60 python scripts/kernel_times.py 4096x4096x64:64:2:8,4096x4096x64:128:2:8,11008x4096x64:128:2:8,1024x4096x64:64:2:8 --path mma_sp 2>&1 | grep -v Warn | tee "$OUT/kernel_times_mma_sp_h200_v177.txt"
D=4096x4096x64:64:2:8,4096x4096x64:128:2:8,1024x4096x64:64:2:8,11008x4096x64:64:2:8
timeout 80 python scripts/ab_wgmma.py TILE=auto,sm8032x64w16x64s3,sm8032x64w16x64s4,sm8064x64w16x64s2,sm8064x32w16x32s3,auto --path mma_sp --shapes $D 2>&1 | grep -v Warn | tee "$OUT/ab_mma_sp_h200_v177.txt"
timeout 50 python scripts/ab_wgmma.py SPLITS=0,2,3,5,6,8 --path mma_sp --shapes 4096x4096x64:64:2:8,4096x4096x64:128:2:8,1024x4096x64:64:2:8 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_h200_v177.txt"
timeout 30 python scripts/ab_wgmma.py PATH=dense,dense --shapes $D 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_h200_v177.txt"
echo "total ${SECONDS}s"
