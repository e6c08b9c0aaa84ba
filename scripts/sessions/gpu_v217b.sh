#!/usr/bin/env bash
# v217b: v217 found the cluster tile 2-7% faster at T = 512-1536 too; here the smallest T where the rule
# (128 x 256 over more CTAs than SMs) holds: T = 300-1100, in turns with the default.
source "$(dirname "$0")/../gpu_lib.sh"
S=13824x5120x300:2:4,28672x8192x300:2:4,11008x4096x448:2:4,11008x4096x400:2:4,13824x5120x400:2:4,28672x8192x384:2:4,8192x8192x768:2:4,4096x4096x1100:2:4,11008x4096x2048:2:4
timeout 300 python scripts/ab_wgmma.py TILE=auto,wg128x256s4t1pc2,auto,wg128x256s4t1pc2 --path wgmma_sp --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_c2_lowT.txt"
echo "total ${SECONDS}s"
