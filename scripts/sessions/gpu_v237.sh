#!/usr/bin/env bash
# v237: clusters of 4 again, now that thread 0 no longer serialises the ring (v235). v233: pc4's stage clocks
# were pc2's (cadence 765) while it read 17 of a stage's 41 KB from L2 against pc2's 25, i.e. both were bound
# by thread 0's queue, not by L2; with split issue pc2 runs 57 B/clk/SM into shared memory, 6.7 TB/s of L2
# reads, near the L2's bandwidth. cuSPARSELt's c4 ran 28% faster a tile than its c1 (v54).
# Prediction: pc4's cadence drops 10-20% below pc2's, paying back its 9 rounds on 120 CTAs against 8 on 132:
# 4096^2 x 8192 even to -8%.
source "$(dirname "$0")/../gpu_lib.sh"
timeout 100 python scripts/ab_wgmma.py TILE=wg128x256s5t1pc2,wg128x256s5t1pc4,wg128x256s5t1pc2,wg128x256s5t1pc4 \
  --shapes 4096x4096x8192:2:4,8192x8192x8192:2:4,4096x11008x8192:2:4 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_pc4_split_v237.txt"
timeout 40 python scripts/probes/clock_under_load.py 4096x4096x8192:2:4 wg128x256s5t1pc2 wg128x256s5t1pc4 2>&1 \
  | grep -v "Warn\|warn" | tee "$OUT/clock_pc4_split_v237.txt"
echo "total ${SECONDS}s"
