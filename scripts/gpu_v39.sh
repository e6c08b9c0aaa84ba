#!/usr/bin/env bash
# v39 (next session, first call): the kernel cache warmed in parallel, the GPU suites on main as it
# is (compiled graphs now keep the wgmma.sp layout on sm_90a: test_nn's compile tests run it; v37's
# routes and splits), memcheck, and what each launch of a T = 9-64 call costs (kernel_times.py:
# transpose, wgmma.sp, split reduction) for the next T = 9-64 work (NOTES "Next GPU session" 2).
# Usage: OUT=$OUT bash scripts/gpu_v39.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/gpu_lib.sh"
gpu_tests 420 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py
sanitize 60
PYTHONPATH=$PYTHONPATH:$PWD/scripts timeout 60 python scripts/kernel_times.py \
  4096x4096x16:128:2:8,4096x4096x16:2:4,1024x4096x16:128:2:32,11008x4096x64:128:2:8,4096x11008x64:128:2:8 \
  2>&1 | grep -v Warn | tee "$OUT/kernel_times.txt" | tail -5
