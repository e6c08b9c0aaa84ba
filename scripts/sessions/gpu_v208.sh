#!/usr/bin/env bash
# v208: a feature-major x re-pitched to whole 128-byte lines (REPITCH) and X^T's TMA map widened past T
# (XT_MAP_PADDED, on): tests, then REPITCH A/B (--xt 1: rows T apart, as a feature-major chain leaves them).
source "$(dirname "$0")/../gpu_lib.sh"
WARM=0 gpu_tests 150 tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py -k "pitch or feature_major or read_rows"
A=11008x4096x200:2:4,4096x11008x200:2:4,4096x4096x200:2:4,11008x4096x1000:2:4,4096x4096x1000:2:4,11008x4096x100:2:4
G=4096x4096x200:128:2:16,4096x4096x1000:128:2:16,11008x4096x1000:128:2:32,4096x4096x1000:128:2:128,4096x4096x100:128:2:8
{ timeout 100 python scripts/ab_wgmma.py REPITCH=0,1,0,1 --path auto --xt 1 --shapes $A,$G
  timeout 40 python scripts/ab_wgmma.py REPITCH=0,1 --path mma_sp --xt 1 --shapes 4096x4096x1000:128:2:16,4096x4096x200:128:2:16
  echo "## rows (--xt 0) for reference"; timeout 60 python scripts/ab_wgmma.py PATH=auto --shapes $A,$G
} 2>&1 | tee "$OUT/ab_repitch.txt"
echo "total ${SECONDS}s"
