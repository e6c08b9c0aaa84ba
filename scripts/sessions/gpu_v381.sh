#!/usr/bin/env bash
# v381, one call with the device time left (~460 s): on an H200, issue 3's checks, most needed first (the mma.sp kernel
# file's GPU tests, memcheck of the cp.async launches, the T >= 2048 grid with mma_sp and cuSPARSELt); on any other card
# issue 3's decode grid (T <= 64, every shape) on the current route (the last was v352's).
#   OUT=$OUT bash scripts/sessions/gpu_v381.sh      (H200 ~330 s, H100 ~90 s)
source "$(dirname "$0")/../gpu_lib.sh"
if [ "$CARD" = h200 ]; then
  card_warm 120
  mma_sp_tests "tests_mma_sp_${CARD}_v381" 120
  SANITIZE_ARGS=--cp-async-only sanitize 70; mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v381.txt"
  END=${END:-330} prefill_grid v381
else
  nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
  grid v381_decode 1,8,32,64 mma_sp,cslt 100
  sed -n '/^## Issue/,$p' "$OUT/spmm_${CARD}_v381_decode.md" | grep "decode" | head -4
fi
echo "total ${SECONDS}s"
