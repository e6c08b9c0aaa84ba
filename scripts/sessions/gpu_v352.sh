#!/usr/bin/env bash
# v352: the cp.async kernel's prefill tiles with 64-wide warp tiles (128 x 128 / 64 x 64 / 3, 64 x 128 / 32 x 64 / 3;
# 128 x 64 where its waves cost less), on v350's addresses. (1) the kernel file's GPU tests (every tile, row-major X,
# patterns, splits, ws tiles), (2) memcheck of the cp.async launches, (3) issue 3's T >= 2048 grid with `mma_sp` and
# cuSPARSELt beside cuBLAS. Predicted (H100 grid v340 x v349's and v352's sweep gains): mma_sp geomean 64:2:8 ~0.8,
# 128:2:8 ~1.0, 128:2:16 ~1.5, 128:2:32 ~2.2x cuBLAS (targets 1.9 / 3.5 / 5); 2:4 ~0.7.
#   OUT=$OUT bash scripts/sessions/gpu_v352.sh      (~560 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
gpu_tests 200 tests/test_spmm_mma_sp.py -k "every_tile or row_major_x_on_every or test_patterns or split_k or warp_specialised or llm_shapes or public_spmm"
mv "$OUT/gpu_tests.txt" "$OUT/tests_mma_sp_${CARD}_v352.txt"
SANITIZE_ARGS=--cp-async-only sanitize 80; mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v352.txt"
left=$((${END:-585} - SECONDS))
[ $left -gt 100 ] || { echo "no time left for the grid (${SECONDS}s)"; exit 0; }
timeout $left python -m vnmsparse.cli bench spmm --out "$OUT" --tokens 2048,4096,8192 --paths mma_sp,cslt \
  --budget-seconds $((left - 40)) --tag ${CARD}_v352_prefill --no-plot > "$OUT/log_v352.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured" "$OUT/spmm_${CARD}_v352_prefill.md"
sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v352_prefill.md" | grep "^|" | head -14
echo "total ${SECONDS}s"
