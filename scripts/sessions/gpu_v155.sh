#!/usr/bin/env bash
# v155: the session's closing run on its final code: every GPU suite and memcheck (now with the
# TMA-store epilogue through 4 boxes), then the README's grid (auto, auto_xt, mma.sp, cuBLAS and
# cuSPARSELt side by side; v149's persistence rule, v153's token-contiguous x at small T); and a
# token-contiguous x at ragged T (T % 8 != 0) now one padded copy (was a transpose there and back),
# beside the same calls on row-major x (one transpose). Predicted: feature-major <= row-major.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 330 150 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py tests/test_bench.py
R=4096x4096x2047:128:2:32,11008x4096x1001:128:2:8,4096x11008x4095:128:2:128,4096x4096x13:128:2:16
for xt in 0 1; do
  timeout 60 python scripts/ab_wgmma.py PATH=auto,auto --xt $xt --shapes $R 2>&1 | grep -v Warn | tee -a "$OUT/ab_ragged_feature_major_h200_v155.txt"
done
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,auto_xt,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v155 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -40
echo "total ${SECONDS}s"
