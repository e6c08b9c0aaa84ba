#!/usr/bin/env bash
# v47: the decode kernel's split epilogue without runtime divisions (owner / slot walked, the sum
# loop with one division up front, the ranks' loads unrolled) and the X slice's loads issued
# before thread 0's bulk copies. Decode GPU tests, the clock trace, A/B VNM_DEC_V47 = 0 / 1.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v47.sh
source "$(dirname "$0")/../gpu_lib.sh"
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py -k "decode or mma_sp" \
  > "$OUT/gpu_tests.txt" 2>&1; tail -2 "$OUT/gpu_tests.txt"
sanitize 90
PYTHONPATH=$PYTHONPATH:$PWD/scripts timeout 200 python scripts/ab_wgmma.py VNM_DEC_V47=0,1,0,1 --path auto \
  --shapes 1024x4096x1:128:2:32,4096x4096x1:128:2:32,4096x4096x1:128:2:8,4096x4096x1:2:4,11008x4096x1:128:2:8,4096x11008x1:64:2:8,4096x4096x4:128:2:16,4096x4096x8:128:2:16,11008x4096x8:64:2:8,1024x4096x8:128:2:32 \
  2>&1 | grep -v Warn | tee "$OUT/ab_decode_v47.txt"
echo "total ${SECONDS}s"
