#!/usr/bin/env bash
# v220: persistent cluster grids sized by the driver's count of clusters that run at once
# (CLUSTER_WAVE_BY_DRIVER) instead of SMs / cluster: v215c's 4-CTA persistent tile lost 40% (33 clusters
# launched where maybe 30 fit: the rest wait a whole tile); cuSPARSELt runs 30 of 4. Predicted: pc4 from
# +40% to within +-5% of pc2; pc2 even or better if fewer than 66 of 2 fit.
source "$(dirname "$0")/../gpu_lib.sh"
python - <<'PY'
import torch
from vnmsparse.kernels import spmm_wgmma_sp as W
for c in (2, 4):
    t = W.WgTile(128, 256, 4, 1, True, True, persistent=True, cluster=c)
    n = t.name(torch.bfloat16, False, False, 1)
    print(t, "clusters at once:", W._cluster_wave(0, n, False, t.threads, t.smem(False), c) // c)
PY
WARM=0 gpu_tests 150 tests/test_spmm_wgmma_sp.py -k "cluster or feature_major"
S=4096x4096x8192:2:4,11008x4096x8192:2:4,4096x11008x8192:2:4,11008x4096x1024:2:4,4096x4096x2048:2:4,1024x4096x8192:2:4
timeout 150 python scripts/ab_wgmma.py CLUSTER_WAVE_BY_DRIVER=0,1,0,1 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_cluster_wave.txt"
timeout 150 python scripts/ab_wgmma.py CLUSTER_WAVE_BY_DRIVER=0,1,0,1 --define TILE=wg128x256s4t1pc4 --shapes $S 2>&1 | grep -v "Warn\|warn" | tee -a "$OUT/ab_cluster_wave.txt"
echo "total ${SECONDS}s"
