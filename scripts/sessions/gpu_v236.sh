#!/usr/bin/env bash
# v236: with v235's split issue, only producer threads 0 and 32 in the cluster tile's ring (VNM_WG_TWO_ISSUERS=1:
# the full barrier of count 2, the other 126 producer threads leave at once) against all 128 waiting and
# arriving each stage. v227's one issuer ran 9% slower when thread 0 issued every copy (which v235 found
# to queue). Prediction: time within 1%, energy a call 0..2% lower (126 fewer threads woken a stage).
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x8192:2:4,8192x8192x8192:2:4,4096x11008x8192:2:4,4096x4096x2048:2:4
timeout 120 python scripts/ab_wgmma.py VNM_WG_TWO_ISSUERS=0,1,0,1 --define TILE=wg128x256s5t1pc2 --shapes $S 2>&1 \
  | grep -v "Warn\|warn" | tee "$OUT/ab_two_issuers_v236.txt"
timeout 60 python scripts/probes/clock_under_load.py 4096x4096x8192:2:4 wg128x256s5t1pc2 wg128x256s5t1pc2+VNM_WG_TWO_ISSUERS=1 \
  wg128x256s5t1pc2 wg128x256s5t1pc2+VNM_WG_TWO_ISSUERS=1 2>&1 | grep -v "Warn\|warn" | tee "$OUT/clock_two_issuers_v236.txt"
echo "total ${SECONDS}s"
