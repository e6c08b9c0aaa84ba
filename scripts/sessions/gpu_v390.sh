#!/usr/bin/env bash
# v390: v389 cut to what ~200 s allow: the cluster split sums (CLUSTER_SPLITS) against the partials + splitk_reduce in
# the same turns on BERT-large's layers and LLaMA-7B q/k/v/o at T = 1 / 16 / 64, 128:2:8 and 128:2:16 (every row
# checked against fp32 on a NaN-poisoned output by the bench), no warm (a dozen variants compile on demand).
# Predicted as v389: -0.5..-2 us a split call.
#   OUT=$OUT bash scripts/sessions/gpu_v390.sh      (~120 s)
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
timeout ${LIMIT:-170} python scripts/bench_ab.py --path "mma_sp_cl@mma_sp:spmm_mma_sp.CLUSTER_SPLITS=True" \
  -- bench spmm --shapes bert,llama7b.qkvo --tokens 1,16,64 --patterns 128:2:8,128:2:16 --paths mma_sp_cl,mma_sp \
  --budget-seconds 60 --no-plot --out "$OUT" --tag "${CARD}_v390_cluster" > "$OUT/log_v390.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; grep -E "^Measured|FAIL" "$OUT/spmm_${CARD}_v390_cluster.md" | head -5
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v390_cluster.csv" mma_sp_cl mma_sp dense --min 0 \
  > "$OUT/ab_cluster_${CARD}_v390.txt"; cat "$OUT/ab_cluster_${CARD}_v390.txt" | tail -34
echo "total ${SECONDS}s"
