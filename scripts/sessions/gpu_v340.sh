#!/usr/bin/env bash
# v340: the whole GPU suite on v339's final code with room to finish (v339's 200 s stopped at 347 of 534), memcheck
# with the cp.async kernel's wide prefill tile forced on the prefill cases (new in sanitize_spmm.py), and on an H200
# (the issue's card) the quick grid's `mma_sp` path (v339 ran on an H100: 0.42 / 0.52 / 0.67 / 0.90 / 1.12 / 1.71 /
# 2.94 x cuBLAS at T >= 2048). Predicted on an H200: the same ratios within ~10% (same die; cuBLAS gains more from
# HBM3e only where memory bound, i.e. T <= 64).
#   OUT=$OUT bash scripts/sessions/gpu_v340.sh      (~450 s)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 300
mv "$OUT/gpu_tests.txt" "$OUT/tests_gpu_${CARD}_v340.txt"
sanitize 70; mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v340.txt"
if [ "$CARD" = h200 ]; then
  timeout 120 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 16,32,64,256,1024,2048,4096,8192 \
    --paths mma_sp --budget-seconds 110 --tag ${CARD}_v340_mma_sp > "$OUT/log_v340.txt" 2>&1
  echo "bench exit $? ${SECONDS}s"
  sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v340_mma_sp.md" | grep "^|" | head -24
fi
echo "total ${SECONDS}s"
