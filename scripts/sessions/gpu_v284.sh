#!/usr/bin/env bash
# v284: the README's quick grid at T <= 64 on the session's decode rule (A in registers on 64-row tiles, v281-v283),
# cuBLAS and cuSPARSELt beside: the decode targets' weight-byte fractions. Prediction (against grid v267): T <= 64
# fraction 64:2:8 0.51 -> ~0.57, 64:2:16 0.36 -> ~0.40, 128-row patterns and 2:4 unchanged within 2%.
#   OUT=$OUT bash scripts/sessions/gpu_v284.sh      (~250 s cold)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 400 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64 \
  --paths auto,wgmma_sp,cslt --tag h200_v284_decode > "$OUT/log_v284.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
grep "weight-byte" "$OUT/spmm_h200_v284_decode.md"
python scripts/geomean_table.py "$OUT/spmm_h200_v284_decode.csv" auto,wgmma_sp,cslt | grep -v "^skip"
echo "total ${SECONDS}s"
