#!/usr/bin/env bash
# v347: issue 3's and 4's Done-when checks on the card lent (the H200 is the issues' card; v333 never ran): (1) every
# GPU test (532 passed in 143 s on the H100, v333's code + v344's XROW), (2) memcheck of the representative set,
# (3) the T >= 2048 grid on every benchmark shape (not --quick: BERT-large and LLaMA-7B/13B/70B), `auto`, `auto_xt`,
# `mma_sp` and cuSPARSELt in one run. Predicted (H200 grid v328 and the H100's v340 / v344 gains): `auto` as v328
# (1.34 / 1.34 / 1.58 / 1.71 / 2.33 / 3.21x at 2:4 ... 128:2:32, within 3%); `mma_sp` 2:4 0.31 -> ~0.40 (XROW),
# 128:2:8 0.57 -> ~0.75, 128:2:16 1.00 -> ~1.25, 128:2:32 1.67 -> ~1.9 (v337-v340's +20-30% on the H100). With
# v349's loop (H100 sweep, 4096^2 x 8192: 128:2:8 -19%, 64:2:8 -30%, 2:4 -11%), mma_sp's prefill cells a further
# +10..+25%: 2:4 ~0.45, 128:2:8 ~0.9, 128:2:16 ~1.4, 128:2:32 ~2.0 (still short of 1.9 / 3.5 / 5).
#   OUT=$OUT bash scripts/sessions/gpu_v347.sh      (~560 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
gpu_tests 230
mv "$OUT/gpu_tests.txt" "$OUT/tests_gpu_${CARD}_v347.txt"
sanitize 100; mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v347.txt"
left=$((585 - SECONDS))
[ $left -gt 100 ] || { echo "no time left for the grid (${SECONDS}s)"; exit 0; }
timeout $left python -m vnmsparse.cli bench spmm --out "$OUT" --tokens 2048,4096,8192 \
  --paths auto,auto_xt,mma_sp,cslt --budget-seconds $((left - 40)) --tag ${CARD}_v347_prefill > "$OUT/log_v347.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured" "$OUT/spmm_${CARD}_v347_prefill.md"
sed -n '/^## Geometric/,/^## Issue/p' "$OUT/spmm_${CARD}_v347_prefill.md" | grep "^|" | head -14
echo "total ${SECONDS}s"
