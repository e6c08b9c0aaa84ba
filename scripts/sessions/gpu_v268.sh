#!/usr/bin/env bash
# v268: GPU tests of what this session changed: the as-2:4 route (test_spmm_wgmma_sp.py), autotune's split
# choice bound by functools.partial (test_autotune.py), VNMLinear.cat's bias (test_nn.py).
#   OUT=$OUT bash scripts/sessions/gpu_v268.sh      (~250 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 420 tests/test_autotune.py tests/test_nn.py tests/test_spmm_wgmma_sp.py
echo "total ${SECONDS}s"
