#!/usr/bin/env bash
# v39 (first call of the session): the kernel cache warmed in parallel, what each launch of a
# T = 9-64 call costs (kernel_times.py: transpose, wgmma.sp, split reduction; NOTES "Next GPU
# session" 2), memcheck, then the GPU suites on main as it is (compiled graphs keep the wgmma.sp
# layout on sm_90a: test_nn's compile tests run it) in the time left of one call.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v39.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
warm
PYTHONPATH=$PYTHONPATH:$PWD/scripts timeout 90 python scripts/kernel_times.py \
  4096x4096x16:128:2:8,4096x4096x16:2:4,1024x4096x16:128:2:32,11008x4096x64:128:2:8,4096x11008x64:128:2:8,4096x4096x1:128:2:8 \
  2>&1 | grep -v Warn | tee "$OUT/kernel_times.txt" | tail -6
sanitize 60
echo "before tests: ${SECONDS}s"
WARM=0 gpu_tests $((575 - SECONDS)) tests/test_spmm_wgmma_sp.py tests/test_nn.py tests/test_ops.py tests/test_spmm_mma_sp.py
