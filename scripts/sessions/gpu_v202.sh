#!/usr/bin/env bash
# v202 (prepared, not run): v200's X slabs with the producer's per-stage proxy fence and bar.sync
# replaced by an empty barrier per slab slot (VNM_WG_SLAB_SYNC=0; the slab producer at 88 registers).
# v200 put the slabs' loss (~100-170 ns a step) on that per-stage work; predicted: LLaMA gate/up
# 128:2:8 T = 16 16.8 -> ~11 us (the transpose path: 10.6), 4096^2 128:2:8 T = 16 8.2 -> ~7.0
# (transpose 7.6, feature-major X 6.6). The slab tests (the landed form), then the A/B, whose fp32
# check flags a wrong result (ERR) of either form.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
WARM=0 gpu_tests 120 tests/test_spmm_wgmma_sp.py -k "slab"
S=4096x4096x16:128:2:8,4096x4096x16:128:2:16,4096x4096x32:128:2:8,4096x4096x24:128:2:16,11008x4096x16:128:2:8,11008x4096x16:128:2:16,11008x4096x8:128:2:8,4096x11008x16:128:2:8,8192x8192x4:128:2:8
timeout 150 python scripts/ab_wgmma.py VNM_WG_SLAB_SYNC=1,0,1,0 --path auto --define SLAB_X=1 --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_slab_sync_h200_v202.txt"
timeout 60 python scripts/ab_wgmma.py SLAB_X=0,0 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee -a "$OUT/ab_slab_sync_h200_v202.txt"
echo "total ${SECONDS}s"
