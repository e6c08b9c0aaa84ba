#!/usr/bin/env bash
# v330 (prepared): every GPU test on the card lent, whole (v328 on the H200 ran 313 of ~538 before its 190 s limit;
# all passed), the compile cache warmed first.
#   OUT=$OUT bash scripts/sessions/gpu_v330.sh      (~400 s)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 500
mv "$OUT/gpu_tests.txt" "$OUT/tests_gpu_${CARD}_v330.txt"
echo "total ${SECONDS}s"
