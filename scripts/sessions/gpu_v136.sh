#!/usr/bin/env bash
# v136: the session's final code on the H200: every GPU suite (wgmma.sp, mma.sp, ops, nn, bench) and
# memcheck (with v132's mid-T case).
source "$(dirname "$0")/../gpu_lib.sh"
checks 360 200 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py tests/test_bench.py
echo "total ${SECONDS}s"
