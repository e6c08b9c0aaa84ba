#!/usr/bin/env bash
# v396: the next session's first call (any card; on an H200 also issue 3's racecheck). Issue 3's decode bar fails on
# split calls (2:8 on K = 1024, T = 16-64: H100 v392 0.77-1.00 of cuBLAS), three launches each: transpose, SpMM,
# reduction. Two default-off ways to drop one: (a) the gather alone on split calls (v391's kernel; GATHER_ROWS_MAX_STEPS
# lifted: mma_sp_gs), (b) the splits summed by each tile's last CTA (v397, SPLIT_FIXUP: mma_sp_fx), and both (mma_sp_gf:
# the gather takes the transpose away, so the fixup applies only where the gather does not).
# (1) their GPU tests, (2) the A/B against the default and cuBLAS on BERT-large and LLaMA-7B, T = 1-64, (3) racecheck
# (H200) or memcheck of the cp.async launches with both.
# Predicted: (a) from v392's gc - cl, -0.4..-1.7 us on BERT's 2:8 split calls, slower on LLaMA gate/up (+2.3..+6.6 us);
# (b) -0.8..-2 us on every split call (the reduction's launch and tail, v388: ~2.1 us at 4096 x 1024 x 64 128:2:8, less
# the last CTA's sum, ~0.2-0.4 us): H100 2:8 minimum 0.77 -> ~0.95-1.05.
#   OUT=$OUT bash scripts/sessions/gpu_v396.sh      (~450 s; END= the grid's end)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm_knob "vnm::spmm_mma_sp<"
warm_knob "true>" VNM_SPLIT_FIXUP=1           # (the split variants, summed by the last CTA)
warm_knob "transpose_pad" VNM_SPLIT_FIXUP=1   # (the transposes that zero its counters)
echo "warm ${SECONDS}s"
mma_sp_tests "tests_v396_${CARD}" 150 -k "gathered_from_x_rows or summed_by_the_last_cta"
T="$OUT/tests_v396_${CARD}.txt"
grep -q " passed" "$T" && ! grep -q "^FAILED" "$T" || { echo "knob tests failed: no grid"; exit 1; }
left=$((${END:-280} - SECONDS))
G="spmm_mma_sp.GATHER_ROWS_MAX_STEPS=1000000;spmm_mma_sp.GATHER_ROWS_MAX_TOKENS=64"
timeout $left python scripts/bench_ab.py --path "mma_sp_gs@mma_sp:$G" \
  --path "mma_sp_fx@mma_sp:spmm_mma_sp.SPLIT_FIXUP=True" --path "mma_sp_gf@mma_sp:$G;spmm_mma_sp.SPLIT_FIXUP=True" \
  -- bench spmm --shapes bert,llama7b --tokens 1,8,16,32,64 --patterns 64:2:8,128:2:8,64:2:16,128:2:16 \
  --paths mma_sp_fx,mma_sp_gs,mma_sp_gf,mma_sp --budget-seconds $((left - 20)) --no-plot --out "$OUT" \
  --tag "${CARD}_v396_decode" > "$OUT/log_v396.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured|FAIL" "$OUT/spmm_${CARD}_v396_decode.md" | head -8
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v396_decode.csv" mma_sp mma_sp_fx mma_sp_gs mma_sp_gf dense --min 0.05 \
  > "$OUT/ab_decode_${CARD}_v396.txt"; tail -5 "$OUT/ab_decode_${CARD}_v396.txt"
tool=memcheck; [ "$CARD" = h200 ] && tool=racecheck
SANITIZE_ARGS="--cp-async-only --gather-rows --split-fixup" sanitize 150 $tool
mv "$OUT/$tool.txt" "$OUT/${tool}_cp_async_${CARD}_v396.txt"
grep -o "spmm_mma_sp[a-z_]*<" "$OUT/${tool}_cp_async_${CARD}_v396.txt" | sort | uniq -c
echo "total ${SECONDS}s"
