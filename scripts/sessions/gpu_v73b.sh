#!/usr/bin/env bash
# v73b: the nn and mma.sp GPU suites on main after v72 (v73 ran wgmma.sp and ops).
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 130 tests/test_nn.py tests/test_spmm_mma_sp.py -k "not sass"
echo "total ${SECONDS}s"
