#!/usr/bin/env bash
# v130: the quick grid with `auto_xt` beside `auto`: vnmsparse.spmm on X stored feature-major (no X^T
# transpose), the operand layout the original Spatha is timed with (its B = X^T), so that the Spatha
# comparison also runs on equal terms. Predicted (v126): auto_xt T >= 2048 128:2:128 ~6.5x (auto 3.8),
# 128:2:32 ~4.2 (3.0), 128:2:8 ~1.8 (1.55); Spatha time ratio at 4096^3 2:128 0.82 -> ~1.45, 2:32 1.53 -> ~2.2.
source "$(dirname "$0")/../gpu_lib.sh"
WARM=1 gpu_tests 120 tests/test_bench.py
timeout 480 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,auto_xt,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v130 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -40; grep -A40 "Against the original Spatha" "$OUT/spmm_h200_v130.md" | grep "4096x4096 | 4096" | head -30
rm -f "$OUT/bench.txt"; echo "total ${SECONDS}s"
