#!/usr/bin/env bash
# v157: v155 measured a token-contiguous x at ragged T +5..+80% over the same call on row-major x
# (one transpose), with v155's padded torch copy. Which form makes the gather's X^T rows fastest:
# the copy, two PDL transposes (to rows, back), or the old torch contiguous() + one transpose?
# Predicted: two transposes ~2x the row-major transpose, the torch forms slower. Then the tests.
source "$(dirname "$0")/../gpu_lib.sh"
timeout 90 python scripts/probes/feature_major_repad.py 2047x4096 4095x11008 1001x4096 13x4096 2047x1024 2>&1 | grep -v Warn | tee "$OUT/feature_major_repad_h200_v157.txt"
WARM=0 gpu_tests 100 tests/test_spmm_mma_sp.py -k "feature_major_transposes"
echo "total ${SECONDS}s"
