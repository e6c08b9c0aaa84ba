#!/usr/bin/env bash
# v42: the decode kernel's K-split reduction by push (st.async into the unit owner's shared
# memory, counted on its receive mbarrier; one relaxed cluster barrier, arrived at the start) in
# place of the pull between two release cluster barriers (MEMBAR.ALL.GPU each, ncu v41). Decode
# tests, memcheck and synccheck, then old (.ab_old: HEAD's sources) and new alternately.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v42.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
warm
WARM=0 gpu_tests 150 tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py
sanitize 60
sanitize 60 synccheck
SHAPES=4096x4096x1:128:2:8,11008x4096x1:128:2:8,4096x11008x1:128:2:8,4096x4096x1:2:4,1024x4096x1:128:2:32,1024x4096x1:2:4,4096x4096x8:128:2:16,4096x4096x4:128:2:32,11008x4096x8:64:2:8
for tree in .ab_old/src src .ab_old/src src; do
  echo "== $tree"
  PYTHONPATH=$PWD/$tree:$PWD/scripts timeout 90 python scripts/ab_decode.py DECODE_MIN_STEPS=2 --shapes $SHAPES 2>&1 | grep -v Warn | tail -9
done | tee "$OUT/ab_decode_push.txt"
echo "total ${SECONDS}s"
