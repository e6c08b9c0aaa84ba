#!/usr/bin/env bash
# v393: issue 3's H200 checks with the decode knobs (v389 CLUSTER_SPLITS, v391 GATHER_ROWS) on, for a card after
# gpu_v392.sh (or instead of it): their GPU tests on every tile, racecheck and memcheck of the cp.async launches with
# both on (the classic kernel expected 0 hazards; the ws forms' mbarrier hand-off is racecheck's known class, v31),
# then the decode grid (issue 3's bar: not slower than dense from 2:8 on) on BERT-large and LLaMA-7B / 13B, T = 1-64,
# mma_sp_gc (both knobs) against mma_sp and cuBLAS in the same turns.
# Predicted (v391): the H200's decode minimum at 2:8 0.75 -> ~1.0; racecheck 0 hazards outside the ws forms.
#   OUT=$OUT bash scripts/sessions/gpu_v393.sh      (~590 s; END= the grid's end)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
warm_knob "vnm::spmm_mma_sp<"
warm_knob ", true, true, true, " VNM_CLUSTER_SPLITS=1  # (the gathered split variants, clustered)
warm_knob "true, true>" VNM_CLUSTER_SPLITS=1           # (the transposed split variants, clustered)
echo "warm ${SECONDS}s"
mma_sp_tests "tests_v393_${CARD}" 150 -k "gathered_from_x_rows or split_k_as_a_cluster"
T="$OUT/tests_v393_${CARD}.txt"
grep -q " passed" "$T" && ! grep -q "^FAILED" "$T" || { echo "knob tests failed: no sanitizers, no grid"; exit 1; }
SANITIZE_ARGS="--cp-async-only --cluster-splits --gather-rows" sanitize 170 racecheck
mv "$OUT/racecheck.txt" "$OUT/racecheck_cp_async_${CARD}_v393.txt"
grep -c "Race reported\|Error: Race" "$OUT/racecheck_cp_async_${CARD}_v393.txt"
grep -o "spmm_mma_sp[a-z_]*<" "$OUT/racecheck_cp_async_${CARD}_v393.txt" | sort | uniq -c
SANITIZE_ARGS="--cp-async-only --cluster-splits --gather-rows" sanitize 90
mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v393.txt"
echo "sanitizers ${SECONDS}s"
left=$((${END:-590} - SECONDS))
timeout $left python scripts/bench_ab.py \
  --path "mma_sp_gc@mma_sp:spmm_mma_sp.CLUSTER_SPLITS=True;spmm_mma_sp.GATHER_ROWS=True" \
  -- bench spmm --shapes bert,llama7b,llama13b --tokens 1,8,16,32,64 \
  --patterns 64:2:8,128:2:8,64:2:16,128:2:16,128:2:32 --paths mma_sp_gc,mma_sp \
  --budget-seconds $((left - 25)) --no-plot --out "$OUT" --tag "${CARD}_v393_decode" > "$OUT/log_v393.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured|FAIL" "$OUT/spmm_${CARD}_v393_decode.md" | head -5
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v393_decode.csv" mma_sp_gc mma_sp dense --min 0.05 \
  > "$OUT/ab_decode_${CARD}_v393.txt"; tail -30 "$OUT/ab_decode_${CARD}_v393.txt"
echo "total ${SECONDS}s"
