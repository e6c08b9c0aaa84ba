#!/usr/bin/env bash
# v50: main's final code of the session (v47, no v48) through the GPU suites as one run.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v50.sh
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 200 tests/test_spmm_wgmma_sp.py tests/test_ops.py tests/test_nn.py tests/test_spmm_mma_sp.py tests/test_jit.py
echo "total ${SECONDS}s"
