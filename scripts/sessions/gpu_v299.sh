#!/usr/bin/env bash
# v299: VNM_DEC_EARLY on (`auto`) against off (`late`) over v290's decode shapes (LLaMA-7B/13B/70B, BERT-large FFN2,
# T = 1-64), `wgmma_sp` first. Prediction: no cell of `auto` below 0.97 of `late`; large weights (70B) even (their
# slot copies and queues ahead of the wait are a small part of the share), the 64-row tiles +5-15% at T <= 8.
#   OUT=$OUT bash scripts/sessions/gpu_v299.sh      (~200 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 400 python scripts/bench_ab.py --path "late:spmm_mma_sp.DEFINES={'VNM_DEC_EARLY': 0}" \
  -- bench spmm --out "$OUT" --no-plot --tokens 1,2,4,8,16,64 \
  --patterns 2:4,64:2:8,128:2:8,64:2:16,128:2:16,128:2:32,128:2:128 \
  --shapes llama7b.qkvo,llama7b.gate_up,llama7b.down,bert.ffn2,llama13b,llama70b.qo,llama70b.gate_up,llama70b.down \
  --paths wgmma_sp,auto,late --tag ${CARD}_v299_decode > "$OUT/log_v299.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
grep "weight-byte" "$OUT/spmm_${CARD}_v299_decode.md" | grep "auto\|late" | cut -d'|' -f3-7
python scripts/geomean_table.py "$OUT/spmm_${CARD}_v299_decode.csv" wgmma_sp,auto,late | grep -v "^skip"
echo "total ${SECONDS}s"
