#!/usr/bin/env bash
# v217: v215's cluster tile below 2048 tokens (CLUSTER_2_4_MIN_TOKENS), where the default takes 128 x 256
# over more CTAs than SMs: in turns, the default against the tile forced.
source "$(dirname "$0")/../gpu_lib.sh"
S=11008x4096x512:2:4,11008x4096x1024:2:4,11008x4096x1536:2:4,13824x5120x512:2:4,13824x5120x1024:2:4,8192x8192x1024:2:4,8192x8192x1536:2:4,4096x4096x1536:2:4,4096x11008x1536:2:4,28672x8192x512:2:4
timeout 300 python scripts/ab_wgmma.py TILE=auto,wg128x256s4t1pc2 --path wgmma_sp --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_c2_midT.txt"
echo "total ${SECONDS}s"
