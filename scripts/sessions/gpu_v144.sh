#!/usr/bin/env bash
# v144: the session's final code on the H200: every GPU suite (wgmma.sp, mma.sp, ops, nn, bench) and
# memcheck (with v140-v143's feature-major x by TMA and Y^T from the reduction), then plain 2:4 at
# T >= 2048 on the quick grid's shapes with auto / auto_xt / cuSPARSELt side by side (v130's auto_xt
# 2:4 1.03x ran the gather of X^T; predicted ~1.15x now, against auto's ~1.23).
source "$(dirname "$0")/../gpu_lib.sh"
checks 330 150 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py tests/test_bench.py
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 2048,4096,8192 --patterns 2:4 \
  --paths auto,auto_xt,cslt --tag h200_v144_2to4 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -20
rm -f "$OUT/bench.txt" "$OUT"/*.png; echo "total ${SECONDS}s"
