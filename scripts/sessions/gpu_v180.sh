#!/usr/bin/env bash
# v180 (prepared in the eighteenth session, not yet run): issue 3's last failing decode cells (cp.async
# path, 4096^2 2:8 T = 64: 0.81-0.84 of cuBLAS). v179's profile: 1.9 active warps a scheduler (two
# 4-warp CTAs an SM), each warp issuing every 6.4 cycles (wait / short-scoreboard / long-scoreboard
# stalls): latency-bound on too few warps. The same 64 x 64 CTA tile with more, narrower warps (16 x 32:
# 8 warps, 98 registers, two CTAs an SM: 4 warps a scheduler; 16 x 16: 16 warps, one CTA an SM) keeps
# the CTA count, the split partials and the bytes; each warp issues half (a quarter) of the B fragment
# loads and mma.sp, the A fragments are loaded by 2 (4) warps. Compiled locally: no spills.
# Predicted: 4096^2 64:2:8 T = 64 13.4 -> 10.5-11.5 us (SpMM 10 -> 7-8), the same on the other T = 64
# shapes; T = 32 with 64 x 32 / 16 x 16 warps -5..-15%. Then, if it wins: route it (TILE_TABLE's
# decode warp tile), the mma_sp suite, the grid.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
D=4096x4096x64:64:2:8,4096x4096x64:128:2:8,11008x4096x64:128:2:8,4096x11008x64:64:2:8,1024x4096x64:64:2:8,4096x4096x64:128:2:16,4096x4096x48:64:2:8
timeout 90 python scripts/ab_wgmma.py TILE=auto,sm8064x64w16x32s3,sm8064x64w16x32s4,sm8064x64w16x16s3,auto --path mma_sp --shapes $D 2>&1 | grep -v Warn | tee "$OUT/ab_mma_sp_warps_h200_v180.txt"
D32=4096x4096x32:64:2:8,4096x4096x32:128:2:8,11008x4096x32:64:2:8,4096x11008x32:64:2:8
timeout 50 python scripts/ab_wgmma.py TILE=auto,sm8064x32w16x16s3,auto --path mma_sp --shapes $D32 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_warps_h200_v180.txt"
timeout 40 python scripts/kernel_times.py 4096x4096x64:64:2:8 --path mma_sp 2>&1 | grep -v "Warn\|warn_once" | tee -a "$OUT/ab_mma_sp_warps_h200_v180.txt"
echo "total ${SECONDS}s"
