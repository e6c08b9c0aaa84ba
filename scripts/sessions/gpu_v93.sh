#!/usr/bin/env bash
# v93/v94: the README's end-to-end table with today's kernels (it quotes kernel v10 / v13): every
# workload, bf16, dense / cuSPARSELt 2:4 / 2:4 / 64:2:8 / 128:2:8 / 64:2:16 / 128:2:32.
source "$(dirname "$0")/../gpu_lib.sh"
warm 200
timeout 420 python -m vnmsparse.cli bench e2e --patterns 2:4,64:2:8,128:2:8,64:2:16,128:2:32 --dtypes bf16 \
  --budget-seconds 380 --out "$OUT" --tag h200_e2e_${TAG:-v93} > "$OUT/e2e_log.txt" 2>&1
echo "e2e exit $?"
grep -A12 "^## Summary" "$OUT"/e2e_h200_e2e_${TAG:-v93}.md | head -14
echo "total ${SECONDS}s"
