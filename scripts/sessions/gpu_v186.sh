#!/usr/bin/env bash
# v186: issue 3's last decode cells (4096^2 2:8 T = 64: 0.85 / 0.90 of cuBLAS in grid v185) under
# v185's PDL launch: more, smaller CTAs now fill every slot, where PDL needs no spread and overlaps
# more (v177 measured 32-token tiles +16% and 8 splits +17% without PDL). Predicted: within +-5%
# (the reduction's partials double with the CTAs); route only a >= 5% win on every T = 64 shape.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
F="$OUT/ab_mma_sp_t64_h200_v186.txt"
D=4096x4096x64:64:2:8,4096x4096x64:128:2:8,4096x4096x48:64:2:8,1024x4096x64:64:2:8,11008x4096x64:64:2:8,4096x11008x64:64:2:8
timeout 80 python scripts/ab_wgmma.py TILE=auto,sm8064x32w16x32s3,sm8064x32w16x32s4,auto --path mma_sp --shapes $D 2>&1 | grep -v Warn | tee "$F"
timeout 80 python scripts/ab_wgmma.py SPLITS=0,2,6,8,0 --path mma_sp --shapes $D 2>&1 | grep -v Warn | tee -a "$F"
echo "total ${SECONDS}s"
