#!/usr/bin/env bash
# v221 (branch cluster4, prepared without a GPU): plain 2:4 takes the staged persistent tile in clusters of 4
# where the driver's rounds say (CLUSTER_4_ROUND_COST 0.87 of a round of clusters of 2, from v220's four
# points). Predicted, against v217's clusters of 2: 4096^2 x 8192 and 4096 x 11008 x 8192 -5..-6% (v220),
# 8192-row and 13824-row shapes at 1024+ tiles -3..-8%, the rest unchanged (the rule keeps clusters of 2).
# First the cluster / feature-major / tile tests and memcheck of the 4-CTA tile, then the A/B in turns.
source "$(dirname "$0")/../gpu_lib.sh"
WARM=0 gpu_tests 200 tests/test_spmm_wgmma_sp.py -k "cluster or feature_major or tile"
SANITIZE_ARGS="--tiles pc4" sanitize 120
python - <<'PY'
import torch
from vnmsparse.kernels import spmm_wgmma_sp as W
torch.zeros(1, device="cuda")  # a current context for the driver's count
for t in (W.CLUSTER_2_4_TILE, W.CLUSTER_4_2_4_TILE):
    print(t, "CTAs at once:", W._cluster_wave(0, t.name(torch.bfloat16, False, False, 1), False, t.threads, t.smem(False), t.cluster))
PY
S=4096x4096x8192:2:4,4096x11008x8192:2:4,8192x8192x4096:2:4,8192x8192x8192:2:4,13824x5120x8192:2:4,5120x13824x8192:2:4,28672x8192x4096:2:4,8192x28672x4096:2:4,5120x5120x8192:2:4,4096x4096x4096:2:4,1024x4096x8192:2:4,4096x4096x2048:2:4
timeout 240 python scripts/ab_wgmma.py CLUSTER_4_2_4=0,1,0,1 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_cluster4_route.txt"
echo "total ${SECONDS}s"
