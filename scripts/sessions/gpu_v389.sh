#!/usr/bin/env bash
# v389: the cp.async kernel's K splits as a thread-block cluster (sums through distributed shared memory in the
# epilogue: no fp32 partials, no splitk_reduce launch; CLUSTER_SPLITS, off until this runs) and v388's split rule (no
# splits under 6 steps).
# (1) The mma.sp file's split / cluster GPU tests (the cluster sums bit-identical to splitk_reduce's), memcheck of the
# cp.async launches (the clusters on). (2) Issue 3's decode grid (T = 1-64, every shape, mma_sp beside cuBLAS), same
# turns: mma_sp_cl (both), mma_sp (the rule, no cluster), mma_sp_v388 (neither).
# Predicted: the cluster -0.5..-2 us a split call at T <= 64 (the reduction's tail: v388's 4096 x 1024 x 64 128:2:8
# 7.4 -> 5.5-6.0 us on the H100); the rule x0.75-0.92 on K = 1024 at 2:16; the decode bar's minimum at 2:8 from 0.75
# (H200 v380) to ~0.9-1.0, at 2:16 to >= 1.0.
#   OUT=$OUT bash scripts/sessions/gpu_v389.sh      (~330 s)
source "$(dirname "$0")/../gpu_lib.sh"
card_warm 150
mma_sp_tests "tests_split_${CARD}_v389" 90 -k "split or cluster or llm or public"
SANITIZE_ARGS="--cp-async-only --cluster-splits" sanitize 70; mv "$OUT/memcheck.txt" "$OUT/memcheck_cp_async_${CARD}_v389.txt"
left=$((${END:-400} - SECONDS))
timeout $left python scripts/bench_ab.py --path "mma_sp_cl@mma_sp:spmm_mma_sp.CLUSTER_SPLITS=True" \
  --path "mma_sp_v388@mma_sp:spmm_mma_sp.CLUSTER_SPLITS=False;spmm_mma_sp.MIN_STEPS_TO_SPLIT=0" \
  -- bench spmm --tokens 1,8,16,32,64 --patterns 64:2:8,128:2:8,64:2:16,128:2:16,128:2:32,128:2:128 \
  --paths mma_sp_cl,mma_sp,mma_sp_v388 --budget-seconds $((left - 40)) --no-plot --out "$OUT" \
  --tag "${CARD}_v389_decode" > "$OUT/log_v389.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured" "$OUT/spmm_${CARD}_v389_decode.md"
sed -n '/^## Issue/,$p' "$OUT/spmm_${CARD}_v389_decode.md" | grep "decode not slower"
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v389_decode.csv" mma_sp_cl mma_sp mma_sp_v388 dense --min 0.05 \
  > "$OUT/ab_split_rule_${CARD}_v389.txt"; tail -3 "$OUT/ab_split_rule_${CARD}_v389.txt"
echo "total ${SECONDS}s"
