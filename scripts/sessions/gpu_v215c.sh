#!/usr/bin/env bash
# v215c: v215b's lead, the staged persistent 128 x 256 tile with X multicast over 2 row tiles (4 stages:
# 4096^2 x 8192 251 us against 271-290 for the default, 11008 x 4096 786 against 846-855), in turns
# with the default, beside its form without the cluster and in clusters of 4.
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x8192:2:4,4096x11008x8192:2:4,11008x4096x8192:2:4,4096x4096x4096:2:4,11008x4096x2048:2:4,1024x4096x8192:2:4,4096x11008x2048:2:4,1024x4096x2048:2:4,4096x4096x2048:2:4
timeout 400 python scripts/ab_wgmma.py TILE=auto,wg128x256s4t1pc2,wg128x256s4t1p,wg128x256s4t1pc4,auto,wg128x256s4t1pc2,auto,wg128x256s4t1pc2 \
  --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_staged_pc2.txt"
echo "total ${SECONDS}s"
