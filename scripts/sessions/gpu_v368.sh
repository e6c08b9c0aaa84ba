#!/usr/bin/env bash
# The session's final code (review of v359-v367: no kernel change in the routed tiles' SASS): the kernel file's GPU
# tests, then memcheck of the cp.async launches (the ws forms included) with the time left.
#   OUT=$OUT bash scripts/sessions/gpu_v368.sh
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm 100; echo "warm ${SECONDS}s"
timeout 120 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py > "$OUT/tests_mma_sp_${CARD}_v368.txt" 2>&1
grep -E "^FAILED|passed|failed" "$OUT/tests_mma_sp_${CARD}_v368.txt" | head -8; echo "tests ${SECONDS}s"
SANITIZE_ARGS=--cp-async-only sanitize $((${END:-230} - SECONDS)); mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v368.txt"
echo "total ${SECONDS}s"
