#!/usr/bin/env bash
# v215d: ab_wgmma now replays every value's graph in turns per shape (v215-v215c's columns ran one after
# another and drifted ~10% with the clocks). The default against the staged 128 x 256 tile with X
# multicast over 2 row tiles, persistent (4 stages) and not (5 stages).
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x8192:2:4,4096x11008x8192:2:4,11008x4096x8192:2:4,4096x4096x4096:2:4,11008x4096x2048:2:4,1024x4096x8192:2:4,4096x11008x2048:2:4,1024x4096x2048:2:4,4096x4096x2048:2:4,1024x4096x4096:2:4,8192x8192x4096:2:4,13824x5120x4096:2:4
timeout 400 python scripts/ab_wgmma.py TILE=auto,wg128x256s4t1pc2,wg128x256s5t1c2,wg128x256s4t1p \
  --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_staged_pc2_turns.txt"
echo "total ${SECONDS}s"
