#!/usr/bin/env bash
# v148: persistent tiles preload the next tile's A registers after the epilogue (VNM_WG_PRELOAD_LATE=1):
# v147 traced 4.9k cycles between a persistent 2:32 tile's last group retiring and its epilogue's start
# (the consumers' 12 A loads queued behind the producer's copies of the next tile). Predicted: that gap
# -> <1k, 4096^3 128:2:32 on the persistent tile 38-40 -> ~32 us (then under the one-tile form's 35),
# 2:128 (persistent by default) -5..-10%. Then the persistent / feature-major GPU tests and memcheck.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
timeout 40 python scripts/probes/trace_stages.py 4096x4096x4096:128:2:32 wg128x256s6r1p 2>&1 | grep -v Warn > "$OUT/trace_preload_late_h200_v148.txt"
grep -E "median W|epilogue" "$OUT/trace_preload_late_h200_v148.txt"
S=4096x4096x4096:128:2:32,4096x11008x4096:128:2:128,11008x4096x4096:128:2:16,4096x4096x4096:128:2:8,4096x4096x8192:128:2:64
timeout 70 python scripts/ab_wgmma.py VNM_WG_PRELOAD_LATE=0,1,0,1 --define TILE=wg128x256s6r1p --xt 1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_preload_late_h200_v148.txt"
timeout 40 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s6r1p --xt 1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_persistent_late_h200_v148.txt"
echo "A/B took ${SECONDS}s"
checks 100 60 tests/test_spmm_wgmma_sp.py -k "persistent or every_tile or feature_major or cluster"
echo "total ${SECONDS}s"
