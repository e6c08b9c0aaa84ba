#!/usr/bin/env bash
# v219: the TMA-store epilogue (EPI_TMA, off since v29 / v150: 6-22% slower on the other persistent tiles)
# on v215's cluster tile, which the default now runs at these shapes; in turns.
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x8192:2:4,11008x4096x8192:2:4,4096x11008x8192:2:4,11008x4096x1024:2:4,4096x4096x2048:2:4
timeout 200 python scripts/ab_wgmma.py EPI_TMA=0,1,0,1 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_c2_epi_tma.txt"
echo "total ${SECONDS}s"
