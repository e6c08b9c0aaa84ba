#!/usr/bin/env bash
# v160: every GPU suite and memcheck with v158's per-warpgroup epilogue as the default (and v157's
# two transposes for a ragged token-contiguous x), then the README's grid. Predicted: T >= 2048
# `auto_xt` 2:128 +5..+8%, `auto` 2:4 +2..+4%, the rest within the noise.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 300 120 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py tests/test_bench.py
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,auto_xt,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v160 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -40
# Issue 3's decode rule fails only at T = 64 on 2:8 (v155: LLaMA gate/up 64:2:8 35.6 us against cuBLAS
# 26.1, qkvo 16.2 / 12.7, 128:2:8 15.7 / 12.7), where the cp.async kernel's 64-token tile gives 1.3
# CTAs per SM (T = 16: 24.0 us). Narrower token tiles and K splits there, beside cuBLAS. Predicted:
# 16-token tiles or 2 splits 25-28 us on gate/up, near cuBLAS.
D8=11008x4096x64:64:2:8,4096x4096x64:64:2:8,11008x4096x32:64:2:8,11008x4096x16:64:2:8,1024x4096x64:64:2:8
D128=11008x4096x64:128:2:8,4096x4096x64:128:2:8,4096x4096x64:128:2:16,11008x4096x64:128:2:16,1024x4096x64:128:2:8
for spec in "sm8064x16w16x16s6,sm8064x32w16x32s6 $D8" "sm80128x16w32x16s6,sm80128x32w32x32s6 $D128"; do set -- $spec
  timeout 90 python scripts/ab_wgmma.py TILE=auto,$1 --path mma_sp --shapes $2 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_decode_h200_v160.txt"
  timeout 90 python scripts/ab_wgmma.py SPLITS=0,2,4 --path mma_sp --shapes $2 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_decode_h200_v160.txt"
  timeout 60 python scripts/ab_wgmma.py PATH=dense --shapes $2 2>&1 | grep -v Warn | tee -a "$OUT/ab_mma_sp_decode_h200_v160.txt"
done
echo "total ${SECONDS}s"
