#!/usr/bin/env bash
# v290: DECODE_OVER_NARROW with v289's cap on the compact bytes of 128-row tiles (25 MB) against the rule before
# v288 (`auto_before`), `wgmma_sp` first in each turn, over the benchmark's LLaMA-7B/13B/70B and BERT-large FFN2
# shapes at T = 1-64 (the weight-byte fraction over them). Prediction (from v289's cells): the changed cells
# auto_before / auto ~1.10 geomean, none below 0.97; unchanged 1.00 +- 0.02.
#   OUT=$OUT bash scripts/sessions/gpu_v290.sh      (~150 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 400 python scripts/bench_ab.py --path "auto_before:spmm_wgmma_sp.DECODE_OVER_NARROW={64: (0, 0, None), 128: (0, 0, None)}" \
  -- bench spmm --out "$OUT" --no-plot --tokens 1,2,4,8,16,64 \
  --patterns 2:4,64:2:8,128:2:8,64:2:16,128:2:16,128:2:32,128:2:128 \
  --shapes llama7b.qkvo,llama7b.gate_up,llama7b.down,bert.ffn2,llama13b,llama70b.qo,llama70b.gate_up,llama70b.down \
  --paths wgmma_sp,auto,auto_before --tag ${CARD}_v290_decode > "$OUT/log_v290.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
grep "weight-byte" "$OUT/spmm_${CARD}_v290_decode.md" | grep "auto" | cut -d'|' -f3-7
python scripts/geomean_table.py "$OUT/spmm_${CARD}_v290_decode.csv" wgmma_sp,auto,auto_before | grep -v "^skip"
echo "total ${SECONDS}s"
