#!/usr/bin/env bash
# v235: does producer thread 0's issue order serialise the cluster tile's loads? v233's stage clocks (pc2 and pc4,
# 4096^2 x 8192 2:4): thread 0 takes slot g just as stage g - 1 lands (median P[g] - F[g-1] -48 / -32 cycles, s4
# -140), whatever the ring depth, so one stage's loads are in flight at a time (F - P ~800-850 = the cadence
# 765); the non-cluster s6r1 tile of v113 ran ~3 stages ahead at a cadence of 605. VNM_WG_SPLIT_ISSUE=1: thread 32
# issues the staged A / metadata bulk copies (its own expect_tx), thread 0 only X's multicast box.
# Prediction: if thread 0's sequence is the bound, P[g] moves >= 1 stage ahead of F[g-1], the cadence drops
# toward ~650 and the 2:4 cluster shapes gain 8-15%; the gathered patterns (bulk copies only in thread 0)
# even. If the stage clocks do not move, the serialisation is in the TMA unit (multicast), not the issue.
source "$(dirname "$0")/../gpu_lib.sh"
for v in 0 1; do
  timeout 60 python scripts/probes/trace_stages.py 4096x4096x8192:2:4 wg128x256s5t1pc2 VNM_WG_SPLIT_ISSUE=$v 2>&1 \
    | grep -v "Warn\|warn" > "$OUT/trace_pc2_split$v.txt"
  echo "split issue $v:"; grep -E "^median|epilogue of tile 2" "$OUT/trace_pc2_split$v.txt"
done
S=4096x4096x8192:2:4,4096x11008x8192:2:4,11008x4096x8192:2:4,8192x8192x8192:2:4,28672x8192x4096:2:4,4096x4096x2048:2:4,4096x4096x8192:128:2:8,4096x4096x8192:128:2:32,11008x4096x8192:128:2:128
timeout 300 python scripts/ab_wgmma.py VNM_WG_SPLIT_ISSUE=0,1,0,1 --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_split_issue_v235.txt"
timeout 90 python scripts/probes/clock_under_load.py 4096x4096x8192:2:4 wg128x256s5t1pc2 wg128x256s5t1pc2+VNM_WG_SPLIT_ISSUE=1 cslt \
  wg128x256s5t1pc2 wg128x256s5t1pc2+VNM_WG_SPLIT_ISSUE=1 2>&1 | grep -v "Warn\|warn" | tee "$OUT/clock_split_issue_v235.txt"
echo "total ${SECONDS}s"
