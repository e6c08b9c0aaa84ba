#!/usr/bin/env bash
# v308: every GPU suite and memcheck on the session's final code (v304-v306's two-block decode CTAs and their routes).
#   OUT=$OUT bash scripts/sessions/gpu_v308.sh      (~330 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
checks 330 150
mv "$OUT/gpu_tests.txt" "$OUT/tests_gpu_${CARD}_v308.txt"; mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v308.txt"
echo "total ${SECONDS}s"
