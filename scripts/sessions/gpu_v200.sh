#!/usr/bin/env bash
# (Ran on branch slab-x, which holds SLAB_X; refuted, NOTES v200.)
# v200: gathered calls of <= 32 tokens on a row-major X read X in slabs by TMA and copy the kept
# columns in the kernel (SLAB_X, TMA_X = 3) instead of launching the X^T transpose first. Predicted
# from grid v185 (row-major / feature-major X): 4096^2 128:2:8 T = 16 8.7 -> ~7.0 us (feature-major
# 6.7), 128:2:16 6.8 -> ~5.4, LLaMA gate/up 128:2:16 T = 16 8.5 -> ~6.9. The wgmma.sp suite, memcheck
# and racecheck of the slab tiles, the A/B against the transpose and against a feature-major X.
source "$(dirname "$0")/../gpu_lib.sh"
# v200b: slots of a step's ceil(M / 4) boxes in a 32 / 64 KB buffer (8 at M = 8), not 4 of 4 boxes.
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
WARM=0 gpu_tests 200 tests/test_spmm_wgmma_sp.py -k "slab or llm_shapes"
S=4096x4096x16:128:2:8,4096x4096x16:128:2:16,4096x4096x32:128:2:8,4096x4096x24:128:2:16,4096x4096x16:128:2:12,11008x4096x16:128:2:8,11008x4096x16:128:2:16,11008x4096x8:128:2:8,11008x4096x1:128:2:8,4096x11008x16:128:2:8,4096x11008x32:128:2:16,8192x8192x4:128:2:8
F="$OUT/ab_slab_x_h200_v200.txt"
timeout 120 python scripts/ab_wgmma.py SLAB_X=0,1,0,1 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$F"
echo "total ${SECONDS}s"
