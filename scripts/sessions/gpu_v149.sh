#!/usr/bin/env bash
# v149 (written at the end of the fourteenth session, not yet run): the first call of the next one.
# 1. every GPU suite and memcheck on v148's code (its persistent-tile change, the 256 x 128 tile's
#    early preload and reduce_splits' grid guard ran only as a subset / not at all on the GPU);
# 2. PERSISTENT_MIN_M re-measured (v148: one tile per CTA won at 2:64 and 2:128 on X feature-major):
#    `auto` with 64 (today) against 1024 (never persistent), in turns, row-major and feature-major X.
#    Predicted: within +-3% at 2:64, 2:128 one tile per CTA -0..-3%.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 330 150 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py tests/test_bench.py
S=4096x4096x4096:128:2:64,4096x4096x4096:128:2:128,11008x4096x4096:128:2:128,4096x11008x4096:128:2:128,1024x4096x8192:128:2:128,4096x11008x8192:64:2:64
for xt in 0 1; do
  timeout 120 python scripts/ab_wgmma.py PERSISTENT_MIN_M=64,1024,64,1024 --path auto --xt $xt --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_persistent_min_m_h200_v149.txt"
done
echo "total ${SECONDS}s"
