#!/usr/bin/env bash
# v356: issue 3's T >= 2048 grid on v354's code (mma_sp beside cuBLAS and cuSPARSELt, transpose of row-major X
# counted). Predicted from v354's sweep (-7..-9% on the gathered tiles, XROW even) over grid v352 (H100): mma_sp 2:4
# ~0.70, 64:2:8 ~0.84, 128:2:8 ~0.97, 64:2:16 ~1.33, 128:2:16 ~1.48, 128:2:32 ~2.05x (the transpose, 14-50% of the op
# at M >= 16, unchanged).
#   OUT=$OUT END=400 bash scripts/sessions/gpu_v356.sh      (~END s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm 120; echo "warm ${SECONDS}s"
left=$((${END:-585} - SECONDS))
timeout $left python -m vnmsparse.cli bench spmm --out "$OUT" --tokens 2048,8192 --paths mma_sp,cslt \
  --budget-seconds $((left - 30)) --tag ${CARD}_v356_prefill --no-plot > "$OUT/log_v356.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured|skipped" "$OUT/spmm_${CARD}_v356_prefill.md"
sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v356_prefill.md" | grep "^|" | head -14
echo "total ${SECONDS}s"
