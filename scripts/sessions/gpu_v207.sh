#!/usr/bin/env bash
# v207: X^T by TMA at ragged T (v206: feature-major 2:4 T = 200 58 us where T = 256 takes 35 and a
# row-major X 33): the rows' pitch (400 B, not whole 128-byte lines) or the last box read past T?
source "$(dirname "$0")/../gpu_lib.sh"
X=11008x4096x192:2:4,11008x4096x200:2:4,11008x4096x256:2:4,4096x11008x200:2:4,4096x4096x200:2:4
{ echo "## pitch T (--xt 1)"; timeout 70 python scripts/ab_wgmma.py XT_MAP_PADDED=0,1 --path auto --xt 1 --shapes $X
  echo "## pitch 64-token aligned (--xt 64)"; timeout 70 python scripts/ab_wgmma.py XT_MAP_PADDED=0,1,0,1 --path auto --xt 64 --shapes $X
  echo "## gathered (--xt 1 / --xt 64)"; G=4096x4096x200:128:2:16,4096x4096x256:128:2:16,11008x4096x200:128:2:32
  timeout 50 python scripts/ab_wgmma.py PATH=auto,auto --xt 1 --shapes $G; timeout 50 python scripts/ab_wgmma.py PATH=auto,auto --xt 64 --shapes $G
} 2>&1 | tee "$OUT/ab_xt_pitch_tail.txt"
echo "total ${SECONDS}s"
