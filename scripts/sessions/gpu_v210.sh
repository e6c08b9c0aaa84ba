#!/usr/bin/env bash
# v210: plain 2:4 on a feature-major x whose rows are not whole lines apart: v208's copy to whole lines
# (default) against one transpose to rows and X by TMA as rows (UNALIGNED_XT_TO_ROWS), T = 100-1000.
source "$(dirname "$0")/../gpu_lib.sh"
A=11008x4096x100:2:4,11008x4096x200:2:4,11008x4096x1000:2:4,4096x4096x100:2:4,4096x4096x200:2:4,4096x4096x1000:2:4,4096x11008x200:2:4,4096x11008x1000:2:4
timeout 150 python scripts/ab_wgmma.py UNALIGNED_XT_TO_ROWS=0,1,0,1 --path auto --xt 1 --shapes $A 2>&1 | tee "$OUT/ab_xt_to_rows.txt"
echo "total ${SECONDS}s"
