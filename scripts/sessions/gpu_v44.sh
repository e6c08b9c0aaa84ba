#!/usr/bin/env bash
# v44 (reverted, NOTES v44: no measurable host gain): kernel launches through ctypes
# (cuLaunchKernel / cuLaunchKernelEx of libcuda) instead of the cuda.bindings wrappers, thought to
# cost ~10 us of host time per launch in argument conversion:
# the GPU suites (every launch path), the host cost per call (profile_host.py, T = 1 and 16),
# and the LLaMA decode e2e, whose eager column is host-bound.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v44.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
warm
for a in "4096 4096 1 128:2:8" "4096 4096 16 128:2:8" "4096 4096 1 2:4"; do
  timeout 60 python scripts/profile_host.py $a 2>&1 | grep -v Warn | head -20 >> "$OUT/host_v44.txt"
done
grep "host time" "$OUT/host_v44.txt"
WARM=0 gpu_tests 200 tests/test_spmm_wgmma_sp.py tests/test_nn.py tests/test_ops.py tests/test_spmm_mma_sp.py tests/test_jit.py
timeout 90 python -m vnmsparse.cli bench e2e --workloads llama-decode --patterns 2:4,64:2:8,128:2:8,128:2:32 \
  --dtypes bf16 --budget-seconds 60 --out "$OUT" --tag h200_e2e_v44 --no-plot > /dev/null 2>&1
grep -B2 -A12 "batch 1 x 512" "$OUT/e2e_h200_e2e_v44.md" | grep "^|" | head -9
echo "total ${SECONDS}s"
