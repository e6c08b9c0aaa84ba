#!/usr/bin/env bash
# v233: does moving fewer bytes buy clock at the power limit? (v230b / v232: every 2:4 GEMM runs at the
# 700 W limit; cuSPARSELt's 4-CTA clusters read ~40% less from L2 than our pc2 and run 5% fewer cycles.)
# Sustained clock / power / cycles of the staged persistent 128 x 256 tile alone (p), in clusters of 2 (pc2,
# X multicast over 2) and of 4 (pc4, over 4; v221: +8..+13% in time), then pc4's stage clocks.
# Prediction: clusters raise the sustained clock (fewer L2 bytes: p < pc2 < pc4 in MHz) while pc4 costs
# cycles (its 120-CTA grid, and a stage waits for the slowest of 4 producers: F - P grows).
source "$(dirname "$0")/../gpu_lib.sh"
timeout 120 python scripts/probes/clock_under_load.py 4096x4096x8192:2:4 wg128x256s5t1p wg128x256s5t1pc2 wg128x256s5t1pc4 \
  wg128x256s4t1pc4 cslt wg128x256s5t1pc2 wg128x256s5t1pc4 2>&1 | grep -v "Warn\|warn" | tee "$OUT/clock_clusters_v233.txt"
# Where pc2's energy goes: its loads alone (no wgmma) and its math without X's loads (B stale: zeros or an
# earlier call's X, so the math's power reads low if zeros, v232)
timeout 60 python scripts/probes/clock_under_load.py 4096x4096x8192:2:4 wg128x256s5t1pc2 wg128x256s5t1pc2+VNM_WG_SKIP_MMA=1 \
  wg128x256s5t1pc2+VNM_WG_SKIP_B=1 2>&1 | grep -v "Warn\|warn" | tee -a "$OUT/clock_clusters_v233.txt"
for t in wg128x256s5t1pc4 wg128x256s5t1pc2; do
  timeout 60 python scripts/probes/trace_stages.py 4096x4096x8192:2:4 $t 2>&1 | grep -v "Warn\|warn" > "$OUT/trace_$t.txt"
  grep -E "^median|stages traced|epilogue of tile [23]" "$OUT/trace_$t.txt"
done
echo "total ${SECONDS}s"
