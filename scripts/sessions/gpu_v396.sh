#!/usr/bin/env bash
# v396: the next session's first call (any card; on an H200 also issue 3's racecheck): (1) the gathered test on the
# default decode tiles, (2) v395's A/B, the gather alone on split calls (GATHER_ROWS_MAX_STEPS lifted: mma_sp_gs) against
# the default (the gather on unsplit calls at T <= 32 only, v392) and cuBLAS, BERT-large and LLaMA-7B, T = 1-64,
# (3) racecheck (H200) or memcheck of the cp.async launches with the gather past its regime (--gather-rows).
# Predicted (v392's gc - cl): -0.4..-1.7 us on BERT's 2:8 split calls (H100 minimum 0.77 -> ~0.9 of cuBLAS), slower on
# LLaMA gate/up (+2.3..+6.6 us at 2:8).
#   OUT=$OUT bash scripts/sessions/gpu_v396.sh      (~400 s; END= the grid's end)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm_knob "vnm::spmm_mma_sp<"
echo "warm ${SECONDS}s"
mma_sp_tests "tests_gathered_${CARD}_v396" 120 -k "gathered_from_x_rows"
T="$OUT/tests_gathered_${CARD}_v396.txt"
grep -q " passed" "$T" && ! grep -q "^FAILED" "$T" || { echo "gathered test failed: no grid"; exit 1; }
left=$((${END:-230} - SECONDS))
timeout $left python scripts/bench_ab.py \
  --path "mma_sp_gs@mma_sp:spmm_mma_sp.GATHER_ROWS_MAX_STEPS=1000000;spmm_mma_sp.GATHER_ROWS_MAX_TOKENS=64" \
  -- bench spmm --shapes bert,llama7b --tokens 1,8,16,32,64 --patterns 64:2:8,128:2:8,64:2:16,128:2:16 \
  --paths mma_sp_gs,mma_sp --budget-seconds $((left - 20)) --no-plot --out "$OUT" \
  --tag "${CARD}_v396_decode" > "$OUT/log_v396.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured|FAIL" "$OUT/spmm_${CARD}_v396_decode.md" | head -8
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v396_decode.csv" mma_sp_gs mma_sp dense --min 0.05 \
  > "$OUT/ab_decode_${CARD}_v396.txt"; tail -4 "$OUT/ab_decode_${CARD}_v396.txt"
tool=memcheck; [ "$CARD" = h200 ] && tool=racecheck
SANITIZE_ARGS="--cp-async-only --gather-rows" sanitize 160 $tool
mv "$OUT/$tool.txt" "$OUT/${tool}_cp_async_${CARD}_v396.txt"
grep -o "spmm_mma_sp[a-z_]*<" "$OUT/${tool}_cp_async_${CARD}_v396.txt" | sort | uniq -c
echo "total ${SECONDS}s"
