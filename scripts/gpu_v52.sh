#!/usr/bin/env bash
# v52: the decode kernel on the wgmma.sp fragment image (one weight image for every T; compiled
# graphs take the decode kernel at 1-8 tokens). Tests, memcheck, A/B against the "sm90" image.
source "$(dirname "$0")/gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
timeout 240 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_nn.py tests/test_ops.py \
  -k "fragment_image or routes or picks or decode or compile or dependent or graph" > "$OUT/gpu_tests.txt" 2>&1; tail -3 "$OUT/gpu_tests.txt"
grep -E "^FAILED|Error" "$OUT/gpu_tests.txt" | head -8
sanitize 100
timeout 150 python scripts/ab_image_decode.py 2>&1 | grep -v Warn | tee "$OUT/ab_v52.txt"
echo "total ${SECONDS}s"
