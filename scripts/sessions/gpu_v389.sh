#!/usr/bin/env bash
# v389: issue 3's decode grid (T = 1-64, every shape, mma_sp beside cuBLAS) with v388's split rule (no K splits under 6
# steps) against the rule before it (`mma_sp_v388`: MIN_STEPS_TO_SPLIT = 0) in the same turns; then, on an H200 only,
# racecheck of the cp.async launches (issue 3's last sanitizer on its card).
# Predicted: 2:16 on BERT's K = 1024 layers x0.75-0.92 against the old rule at every T (as v388 on the H100), elsewhere
# even (no other call changes); the decode bar's minimum at 2:16 from 0.90 (H200 v380) to >= 1.0; at 2:8 it stays
# ~0.75-0.85 (K = 1024 at T = 32-64: transpose, SpMM and reduction launches against one cuBLAS call of ~5 us).
#   OUT=$OUT bash scripts/sessions/gpu_v389.sh      (~250 s; ~420 s on an H200)
source "$(dirname "$0")/../gpu_lib.sh"
card_warm 150
timeout 240 python scripts/bench_ab.py --path "mma_sp_v388@mma_sp:spmm_mma_sp.MIN_STEPS_TO_SPLIT=0" \
  -- bench spmm --tokens 1,8,16,32,64 --patterns 64:2:8,128:2:8,64:2:16,128:2:16,128:2:32,128:2:128 \
  --paths mma_sp,mma_sp_v388 --budget-seconds 200 --no-plot --out "$OUT" --tag "${CARD}_v389_decode" > "$OUT/log_v389.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured" "$OUT/spmm_${CARD}_v389_decode.md"
sed -n '/^## Issue/,$p' "$OUT/spmm_${CARD}_v389_decode.md" | grep "decode not slower"
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v389_decode.csv" mma_sp mma_sp_v388 dense --min 0.05 \
  > "$OUT/ab_split_rule_${CARD}_v389.txt"; tail -3 "$OUT/ab_split_rule_${CARD}_v389.txt"
if [ "$CARD" = h200 ]; then
  SANITIZE_ARGS=--cp-async-only sanitize 170 racecheck
  mv "$OUT/racecheck.txt" "$OUT/racecheck_cp_async_${CARD}_v389.txt"
  grep -c "rel err" "$OUT/racecheck_cp_async_${CARD}_v389.txt"
fi
echo "total ${SECONDS}s"
