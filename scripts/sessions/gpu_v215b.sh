#!/usr/bin/env bash
# v215b: v215's one lead, the staged 128 x 256 tile with X multicast over 2 row tiles (5 stages), against
# the default in turns (v215's later columns ran ~10% slower than its first: clocks), beside the register
# form in clusters of 2 (v25: even) and the staged persistent form in clusters of 2.
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x8192:2:4,4096x11008x8192:2:4,11008x4096x8192:2:4,4096x4096x4096:2:4,11008x4096x2048:2:4,1024x4096x8192:2:4,4096x11008x2048:2:4
timeout 400 python scripts/ab_wgmma.py TILE=auto,wg128x256s5t1c2,wg128x256s6r1c2,auto,wg128x256s5t1c2,wg128x256s4t1pc2,auto,wg128x256s5t1c2 \
  --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_staged_c2.txt"
echo "total ${SECONDS}s"
