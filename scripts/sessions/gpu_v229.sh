#!/usr/bin/env bash
# v229 on main: CLUSTER_2_4_TILE with 5 stages (v228's A/B on branch one-issuer: -2..-2.5% at 4 shapes).
# Here: the same A/B at every shape plain 2:4 routes to the cluster tile (prediction: -1..-3% each, none
# slower), every GPU suite, memcheck of the cluster tiles. The grid follows in gpu_v229_grid.sh.
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x8192:2:4,4096x11008x8192:2:4,11008x4096x8192:2:4,8192x8192x4096:2:4,8192x8192x8192:2:4,13824x5120x8192:2:4,5120x13824x8192:2:4,28672x8192x4096:2:4,5120x5120x8192:2:4,4096x4096x2048:2:4,11008x4096x2048:2:4,1024x4096x8192:2:4
timeout 150 python scripts/ab_wgmma.py TILE=wg128x256s4t1pc2,wg128x256s5t1pc2,wg128x256s4t1pc2,wg128x256s5t1pc2 --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_pc2_s5_v229.txt"
gpu_tests 300
SANITIZE_ARGS="--tiles c2" sanitize 90
echo "total ${SECONDS}s"
