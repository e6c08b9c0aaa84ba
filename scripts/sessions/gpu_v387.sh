#!/usr/bin/env bash
# v387: gpu_v380.sh PART=2 without its probes (they ran on H100s in v380/v384), for an H200 warm from PART=1: racecheck
# of the cp.async launches, then mma_sp on X^T given (Spatha's terms) at its points, then the GPU tests of the op layer
# (ops, nn, autotune, jit) with the time left.
#   OUT=$OUT bash scripts/sessions/gpu_v387.sh      (~560 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
SANITIZE_ARGS=--cp-async-only sanitize 150 racecheck
mv "$OUT/racecheck.txt" "$OUT/racecheck_cp_async_${CARD}_v387.txt"
grep -cE "rel err" "$OUT/racecheck_cp_async_${CARD}_v387.txt"; tail -1 "$OUT/racecheck_cp_async_${CARD}_v387.txt"
grid v387_spatha 4096,8192 mma_sp_xt 420 --shapes bert.ffn1,bert.ffn2,llama7b.qkvo,8192x8192
sed -n '/^## Against the original Spatha/,/^## /p' "$OUT/spmm_${CARD}_v387_spatha.md" | grep "^|" | head -30
WARM=0 gpu_tests $((565 - SECONDS)) tests/test_ops.py tests/test_nn.py tests/test_autotune.py tests/test_jit.py
mv "$OUT/gpu_tests.txt" "$OUT/tests_ops_${CARD}_v387.txt"
echo "total ${SECONDS}s"
