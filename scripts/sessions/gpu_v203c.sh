#!/usr/bin/env bash
# (Runs on branch `stream-k`, where the SK code lives.) v203c: where stream-K's time goes. v203b: SK lost even with one token tile (70B gate/up T = 256: DP
# 129.8, persistent 136.4, SK 150.3 us), so not (only) lost A sharing. (1) the SK GPU tests with the
# CUTLASS-style count-in (VNM_WG_SK_SYNC=1: no fence.sc by every thread, tails do not look first);
# (2) stage clocks of CTA 0 (a full tile then a head) for the SK and plain persistent tiles; (3) A/B
# SK_SYNC 0 / 1. Predicted: the fence.sc's were most of the overhead (~-10 us at 70B T = 256).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
WARM=0 gpu_tests 200 tests/test_spmm_wgmma_sp.py -k "test_stream_k"
for t in wg128x256s6r1pk wg128x256s6r1p; do
  timeout 60 python scripts/probes/trace_stages.py 28672x8192x256:2:4 $t > "$OUT/trace_$t.txt" 2>&1
  grep -E "median|epilogue|traced" "$OUT/trace_$t.txt"
done
S=28672x8192x256:2:4,11008x4096x512:2:4,11008x4096x1000:2:4,4096x4096x8192:2:4
timeout 150 python scripts/ab_wgmma.py VNM_WG_SK_SYNC=0,1,0,1 --define TILE=wg128x256s6r1pk --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_sk_sync_h200_v203c.txt"
echo "total ${SECONDS}s"
