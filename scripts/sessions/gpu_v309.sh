#!/usr/bin/env bash
# v309: DECODE_TWO_BLOCKS_WIDE=True (`wide`) against the default (`auto`): V = 64 calls that
# DECODE_OVER_NARROW keeps on the decode kernel at both row tiles go to two V-row blocks a 128-row CTA where the weight
# has more 64-row tiles than SMs (LLaMA-7B gate/up and q/k/v, 13B and 70B gate/up), over the LLaMA and BERT shapes at
# V = 64, M = 8-32, T = 1-8.
# Predicted (v299 / v304's 64:2:M against 128:2:M): 7B gate/up and q/k/v 64:2:8 T = 1-4 -9..-21%; 64:2:16 T = 1
# +2..+6%, T = 2 -5%; every other cell even. Kept only if the changed cells' geomean >= 1.05 and none below 0.95.
# Measured (H100, `spmm_h100_v309_wide.*`): 17 changed cells, 0.76-1.33 (NOTES v309); v311 bounded it and tried it
# on other shapes: refuted, the switch removed (commit 3a721e6 has it).
#   OUT=$OUT bash scripts/sessions/gpu_v309.sh      (~45 s warm; needs 3a721e6's DECODE_TWO_BLOCKS_WIDE)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 300 python scripts/bench_ab.py --path "wide:spmm_wgmma_sp.DECODE_TWO_BLOCKS_WIDE=True" \
  -- bench spmm --out "$OUT" --no-plot --tokens 1,2,3,4,8 --patterns 64:2:8,64:2:16,64:2:32 \
  --shapes bert,llama7b,llama13b,llama70b --paths wgmma_sp,auto,wide --tag ${CARD}_v309_wide > "$OUT/log_v309.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v309_wide.csv" wide auto --min 0.03
echo "total ${SECONDS}s"
