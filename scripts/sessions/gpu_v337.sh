#!/usr/bin/env bash
# v337: the cp.async mma.sp kernel's copies with their addresses worked out once (load_a_codes: fixed trip counts,
# 32-bit offsets from the CTA's first row; the main loop of the 128 x 64 prefill tile 550 -> 242 SASS instructions
# for its 32 HMMA.SP; registers 164-166 there, 96 instead of 124-132 on the 32 x 32 and x 64 warp tiles). Counted
# (NOTES v337): at 0.55x cuBLAS (128:2:8) a scheduler issues ~12 instructions an HMMA.SP and holds one every ~35
# cycles; with ~7.6 the issue slots stop binding. Predicted: mma_sp T >= 2048 +10-30% where issue bound it (V = 128,
# 2:8-2:32), less where L2 does (A re-read per 64-token tile: ~3.6 TB/s at 0.55x); decode tiles (T = 16-64) even or
# better. (1) the mma.sp GPU tests, (2) memcheck of the representative launches, (3) scripts/tile_sweep.py (X^T given)
# on 4096^2 x 8192 over the tiles, (4) the quick grid's mma_sp path against cuBLAS at T = 16-64 and 2048 / 8192
# (same-run ratios against v314 / v331 on an H100, v328 / v331 on an H200).
#   OUT=$OUT bash scripts/sessions/gpu_v337.sh      (~420 s)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py > "$OUT/tests_mma_sp_${CARD}_v337.txt" 2>&1
tail -2 "$OUT/tests_mma_sp_${CARD}_v337.txt"; echo "tests ${SECONDS}s"
grep -q " passed" "$OUT/tests_mma_sp_${CARD}_v337.txt" && ! grep -q "failed" "$OUT/tests_mma_sp_${CARD}_v337.txt" || exit 1
sanitize 100; mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v337.txt"
{ for p in 128:2:8 128:2:16 2:4; do
  timeout 80 python scripts/tile_sweep.py 4096 4096 8192 $p 128,64,64,32,4 128,128,64,32,4 128,256,64,64,3 128,256,64,64,4 64,128,32,32,4 2>&1 | grep -v Warn
done
timeout 60 python scripts/tile_sweep.py 4096 4096 8192 64:2:8 64,128,32,32,4 64,256,32,64,4 2>&1 | grep -v Warn; } | tee "$OUT/tile_sweep_${CARD}_v337.txt"
echo "sweep ${SECONDS}s"
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 16,32,64,2048,8192 --paths mma_sp \
  --budget-seconds 180 --tag ${CARD}_v337_mma_sp > "$OUT/log_v337.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v337_mma_sp.md" | head -24
echo "total ${SECONDS}s"
