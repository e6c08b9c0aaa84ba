#!/usr/bin/env bash
# v51f: T = 33-64 tiles. mma.sp (issue 3's path, no PDL): the prefill tiles against the 64-token
# decode tiles; wgmma.sp on gate/up-like shapes (86 row tiles of 128 on 132 SMs): 64-row tiles, splits.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
S=4096x4096x64:64:2:8,11008x4096x64:64:2:8,4096x11008x64:64:2:8,1024x4096x64:64:2:8,4096x4096x40:64:2:8,4096x4096x64:64:2:16
timeout 120 python scripts/ab_wgmma.py TILE=sm8064x64w16x64s6,sm8064x128w32x32s4,sm8064x64w16x64s6,sm8064x128w32x32s4 --path mma_sp --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v51f.txt"
S=4096x4096x64:128:2:8,11008x4096x64:128:2:8,4096x11008x64:128:2:8,1024x4096x64:128:2:8,4096x4096x40:128:2:16
timeout 120 python scripts/ab_wgmma.py TILE=sm80128x64w32x64s6,sm80128x64w64x32s4,sm80128x64w32x64s6,sm80128x64w64x32s4 --path mma_sp --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_v51f.txt"
S=11008x4096x64:128:2:8,11008x4096x16:128:2:8,11008x4096x32:128:2:16,4096x4096x64:128:2:8,11008x4096x64:128:2:32
timeout 120 python scripts/ab_wgmma.py TILE=wg128x64s12r1,wg64x64s12r1,wg128x64s12r1,wg64x64s12r1 --path wgmma_sp --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_v51f.txt"
timeout 120 python scripts/ab_wgmma.py SPLITS=0,1,2,3,4 --path wgmma_sp --shapes 11008x4096x64:128:2:8,11008x4096x32:128:2:16,11008x4096x64:128:2:32 2>&1 | grep -v Warn | tee -a "$OUT/ab_v51f.txt"
echo "total ${SECONDS}s"
