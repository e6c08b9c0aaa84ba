#!/usr/bin/env bash
# v234: where A passes on its way to the wgmma, in time and in energy (v233: every 2:4 GEMM runs at the
# 700 W limit, so a call's energy sets its time; pc2 207 mJ a call, cuSPARSELt 202). The cluster tile in
# three forms: A staged through the ring by bulk copy then LDS into registers (t1, the default), A by TMA
# into shared memory read by the wgmma itself with the metadata by the producers' cp.async (no t/r: the SS
# form, as cuSPARSELt's), A straight from global memory into registers (r1: no shared memory for A).
# Prediction: the SS form +5..+15% in cycles (v58: the producers' per-row metadata copies), r1 within 5%;
# energy a call within 3% of each other (A is 9 of a stage's 41 KB).
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x8192:2:4,8192x8192x8192:2:4,4096x11008x8192:2:4
T=wg128x256s5t1pc2,wg128x256s5pc2,wg128x256s6r1pc2
timeout 240 python scripts/ab_wgmma.py TILE=$T,$T --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_a_path_v234.txt"
timeout 120 python scripts/probes/clock_under_load.py 4096x4096x8192:2:4 ${T//,/ } cslt wg128x256s5t1pc2 2>&1 \
  | grep -v "Warn\|warn" | tee "$OUT/clock_a_path_v234.txt"
echo "total ${SECONDS}s"
