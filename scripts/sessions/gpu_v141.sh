#!/usr/bin/env bash
# v141: Y^T from the split reduction through 32 x 32 shared-memory tiles (splitk_reduce_t): v140's
# token-strided stores took 4096^2 2:4 T = 256 from 18.8 to 40.1 us (Y + copy 27.6). Predicted: Y^T
# within ~1 us of Y at every split shape. Tests and memcheck of the feature-major / split paths.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 200 120 tests/test_spmm_wgmma_sp.py tests/test_ops.py tests/test_spmm_mma_sp.py -k "feature_major or split or x_by_tma"
timeout 100 python scripts/probes/xt_tma.py 4096x4096x256:2:4,4096x4096x16:2:4,4096x4096x16:128:2:8,11008x4096x32:128:2:16,4096x11008x128:128:2:32,4096x4096x1024:128:2:32 2>&1 | grep -v Warn | tee "$OUT/xt_tma_v141.txt"
echo "total ${SECONDS}s"
