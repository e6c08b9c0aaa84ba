#!/usr/bin/env bash
# (Ran on branch fused-splits, which holds FUSED_SPLITS; refuted, NOTES v199.)
# v199: K splits summed in the wgmma.sp kernel by each tile's last split (FUSED_SPLITS; tiles of <= 64
# tokens), not by a splitk_reduce launch. Predicted from v197-v198 (a split costs ~2.8 us at T = 64
# on 4096^2): 4096^2 128:2:16 T = 64 7.6 -> ~5.5 us, 128:2:8 9.6 -> ~7.5, 2:4 T = 64 -15..-25%;
# shapes that do not split (LLaMA gate/up) even. The wgmma.sp suite, memcheck and racecheck of the
# split launches, the A/B; then the 64-row staged 2:4 tiles at T = 1-23 with rows past T (v198's rule
# covers 64-token boxes only).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
gpu_tests 240 tests/test_spmm_wgmma_sp.py
SANITIZE_ARGS=--split-only sanitize 60
SANITIZE_ARGS=--split-only sanitize 90 racecheck
S=4096x4096x64:128:2:8,4096x4096x16:128:2:8,4096x4096x64:128:2:16,4096x4096x16:128:2:16,4096x4096x64:128:2:32,4096x4096x64:2:4,4096x4096x16:2:4,1024x4096x64:128:2:8,1024x4096x16:128:2:16,4096x11008x64:128:2:16,11008x4096x16:128:2:8,4096x4096x40:64:2:8
timeout 120 python scripts/ab_wgmma.py FUSED_SPLITS=0,1,0,1 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_fused_splits_h200_v199.txt"
S2=11008x4096x1:2:4,11008x4096x4:2:4,11008x4096x8:2:4,11008x4096x12:2:4,11008x4096x17:2:4,11008x4096x20:2:4,11008x4096x23:2:4,13824x5120x1:2:4,13824x5120x20:2:4
timeout 80 python scripts/ab_wgmma.py TILE=auto,wg128x16s19t1,wg128x32s16t1,auto --shapes $S2 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_half_narrow_h200_v199.txt"
echo "total ${SECONDS}s"
