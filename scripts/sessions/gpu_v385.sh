#!/usr/bin/env bash
# v385, for an H200 with ~350 s: issue 3's correctness checks on its card, the mma.sp kernel file's GPU tests and
# memcheck of the cp.async launches (gpu_v380.sh's PART=1 without its grids).
#   OUT=$OUT bash scripts/sessions/gpu_h200_only.sh gpu_v385.sh   (~330 s)
source "$(dirname "$0")/../gpu_lib.sh"
card_warm 110
mma_sp_tests "tests_mma_sp_${CARD}_v385" 130
SANITIZE_ARGS=--cp-async-only sanitize 80; mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v385.txt"
echo "total ${SECONDS}s"
