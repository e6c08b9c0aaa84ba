#!/usr/bin/env bash
# v137: Y^T from the epilogue into a feature-major `out` (spmm_sm90a; 40 new variants, SASS of the 171
# others unchanged): its GPU test, memcheck (Y^T cases on the prefill and persistent tiles), and its
# cost against the row-major epilogue. Predicted: within ~2% of the row-major epilogue at T = 4096.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
WARM=1 gpu_tests 60 tests/test_spmm_wgmma_sp.py -k "feature_major_out or cuda_graph"
sanitize 70
timeout 40 python scripts/probes/yt_out.py 4096x4096x4096:128:2:32,4096x4096x4096:128:2:8,11008x4096x2048:2:4,4096x11008x4096:128:2:128 2>&1 | grep -v Warn | tee "$OUT/yt_out_v137.txt"
echo "total ${SECONDS}s"
