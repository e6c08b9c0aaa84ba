#!/usr/bin/env bash
# v307: both two-block rules (v304 + v306) against neither (`off`: DECODE_TWO_BLOCKS=False) over every bench shape
# (BERT, LLaMA-7B/13B/70B, the VENOM paper's BERT layers) at V = 64, M = 8-128, T = 1-8: the cells outside the
# rules' design set. Predicted: the changed cells >= 0.9 each, geomean >= 1.1; the rest within the run's ~2%.
#   OUT=$OUT bash scripts/sessions/gpu_v307.sh      (~250 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 400 python scripts/bench_ab.py --path "off:spmm_wgmma_sp.DECODE_TWO_BLOCKS=False" \
  -- bench spmm --out "$OUT" --no-plot --tokens 1,2,4,8 --patterns 64:2:8,64:2:16,64:2:32,64:2:64,64:2:128 \
  --shapes bert,llama7b,llama13b,llama70b,venom --paths wgmma_sp,auto,off --tag ${CARD}_v307_twoblocks > "$OUT/log_v307.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/ab_cells.py "$OUT/spmm_${CARD}_v307_twoblocks.csv" auto off --min 0.03
echo "total ${SECONDS}s"
