#!/usr/bin/env bash
# Issue 3's Done-when on its card, and only there: on an H200, the mma.sp kernel file's GPU tests, memcheck of the
# cp.async launches, issue 3's grid (T >= 2048, mma_sp and cuSPARSELt) on the v373 route, then the wgmma.sp file's GPU
# tests with the time left. On any other card it runs nothing (the device tool lends H100s for H200 asks).
# Predicted (H200 against v378's H100 grid): mma_sp x cuBLAS within +-5% of the H100's (128:2:8 ~1.0-1.1, 128:2:16
# ~1.5-1.65); H200's cuBLAS and the HBM3e move the short-K shapes most.
#   OUT=$OUT bash scripts/sessions/gpu_v379.sh      (~250-330 s on an H200)
source "$(dirname "$0")/../gpu_lib.sh"
[ "$CARD" = h200 ] || { echo "card: ${CARD:-none}, not an H200: nothing run"; exit 0; }
card_warm
mma_sp_tests "tests_mma_sp_${CARD}_v379" 120
SANITIZE_ARGS=--cp-async-only sanitize 70; mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v379.txt"
echo "memcheck ${SECONDS}s"
END=${GRID_END:-300} prefill_grid v379
left=$((${END_ALL:-330} - SECONDS))
[ $left -gt 30 ] && timeout $left python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py \
  > "$OUT/tests_wgmma_sp_${CARD}_v379.txt" 2>&1; tail -1 "$OUT/tests_wgmma_sp_${CARD}_v379.txt" 2>/dev/null
echo "total ${SECONDS}s"
