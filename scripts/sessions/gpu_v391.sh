#!/usr/bin/env bash
# v391: the two decode launches off, both default-off until this runs: the K splits summed over a thread-block cluster
# (v389, CLUSTER_SPLITS: no fp32 partials, no splitk_reduce launch) and X's rows gathered in the cp.async kernel
# (v391, GATHER_ROWS: no transpose launch; T <= 64, m <= 16).
# (1) Their GPU tests (each bit-identical to the default path, and < 1e-2 of fp32), (2) memcheck of the cp.async
# launches with both on, (3) the decode grid on BERT-large and LLaMA-7B, T = 1-64, 2:8 and 2:16 (bench checks each
# output against fp32), same turns: mma_sp_gc (both), mma_sp_cl (the cluster), mma_sp (neither), cuBLAS.
# Predicted (v388's 4096 x 1024 x 64 128:2:8 = transpose 1.9 us + SpMM 4.2 + the reduction's tail ~2.1, H100): the
# cluster -0.5..-2 us a split call, the gather -0.5..-1.5 us a call (the transpose's launch and round trip, less
# ~0.1 us a stage of picking columns out of shared memory); the H200 decode bar's minimum at 2:8 0.75 -> ~1.0.
#   OUT=$OUT bash scripts/sessions/gpu_v391.sh      (~560 s; END= the grid's end)
source "$(dirname "$0")/../gpu_lib.sh"
card_warm 150
warm_knob ", true, true, true, " VNM_CLUSTER_SPLITS=1  # (the gathered split variants, clustered)
warm_knob "true, true>" VNM_CLUSTER_SPLITS=1           # (the transposed split variants, clustered)
echo "warm ${SECONDS}s"
mma_sp_tests "tests_v391_${CARD}" 200 -k "gathered_from_x_rows or split_k_as_a_cluster"
T="$OUT/tests_v391_${CARD}.txt"
SANITIZE_ARGS="--cp-async-only --cluster-splits --gather-rows" sanitize 90
mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v391.txt"
grep -cE "rel err" "$OUT/memcheck_cp_async_${CARD}_v391.txt"
# the grid times only what passed its test (the gathered test also runs clustered on sm_90)
paths=mma_sp_gc,mma_sp_cl,mma_sp
grep -q " passed" "$T" || { echo "no test passed: no grid"; exit 1; }
grep -q "^FAILED.*gathered" "$T" && paths=mma_sp_cl,mma_sp
grep -q "^FAILED.*cluster" "$T" && { echo "the cluster test failed: no grid"; exit 1; }
left=$((${END:-560} - SECONDS))
timeout $left python scripts/bench_ab.py \
  --path "mma_sp_gc@mma_sp:spmm_mma_sp.CLUSTER_SPLITS=True;spmm_mma_sp.GATHER_ROWS=True" \
  --path "mma_sp_cl@mma_sp:spmm_mma_sp.CLUSTER_SPLITS=True" \
  -- bench spmm --shapes bert,llama7b --tokens 1,8,16,32,64 --patterns 64:2:8,128:2:8,64:2:16,128:2:16 \
  --paths $paths --budget-seconds $((left - 30)) --no-plot --out "$OUT" \
  --tag "${CARD}_v391_decode" > "$OUT/log_v391.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured|FAIL" "$OUT/spmm_${CARD}_v391_decode.md" | head -5
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v391_decode.csv" ${paths//,/ } dense --min 0.05 \
  > "$OUT/ab_decode_${CARD}_v391.txt"; tail -6 "$OUT/ab_decode_${CARD}_v391.txt"
echo "total ${SECONDS}s"
