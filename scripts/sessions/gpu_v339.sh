#!/usr/bin/env bash
# v339: whole-line B copies as the cp.async mma.sp kernel's only form, and its wide prefill tile now 128 x 256 with
# 64 x 64 warp tiles (one CTA an SM) chosen by whole waves at WIDE_PREFILL_COST = 1.25 (v338's sweep). Predicted:
# `mma_sp` at T >= 2048 +10-25% over v337's grid (0.32 / 0.48 / 0.58 / 0.83 / 1.00 / 1.64 / 2.87 on an H100), most
# at 2:4 and V = 128; T <= 64 even or better (the 32- and 64-token tiles copy whole lines too). (1) the whole GPU
# suite, (2) memcheck, (3) the quick grid's `mma_sp` path at T = 16-8192, (4) wide / narrow on other shapes.
#   OUT=$OUT bash scripts/sessions/gpu_v339.sh      (~320 s)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 200
mv "$OUT/gpu_tests.txt" "$OUT/tests_gpu_${CARD}_v339.txt"
sanitize 60; mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v339.txt"
timeout 120 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 16,32,64,256,1024,2048,4096,8192 \
  --paths mma_sp --budget-seconds 110 --tag ${CARD}_v339_mma_sp > "$OUT/log_v339.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v339_mma_sp.md" | grep "^|" | head -24
{ for s in "11008 4096" "4096 11008" "1024 4096"; do for t in 2048 8192; do
  timeout 40 python scripts/tile_sweep.py $s $t 128:2:8 128,64,64,32,4 128,256,64,64,3 2>&1 | grep -v Warn
done; done; } | tee "$OUT/tile_sweep_${CARD}_v339.txt"
echo "total ${SECONDS}s"
