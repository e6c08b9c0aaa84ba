#!/usr/bin/env bash
# v301: VNM_DEC_X_PREFETCH on by default (v300): the decode and op suites, then memcheck of the representative launches.
#   OUT=$OUT bash scripts/sessions/gpu_v301.sh      (~150 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
checks 200 150 tests/test_ops.py tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py -k "decode or just_written or compile"
mv "$OUT/gpu_tests.txt" "$OUT/tests_gpu_${CARD}_v301.txt"; mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v301.txt"
echo "total ${SECONDS}s"
