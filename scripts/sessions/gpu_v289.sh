#!/usr/bin/env bash
# v289: every GPU suite on the session's code (DECODE_OVER_NARROW by the bytes of the X slices, v288), then the rule
# against the one before it (`auto_before`) with `wgmma_sp` first in each turn (it takes the first place's ~5%,
# v285), LLaMA-7B/13B/70B at T = 1-8. Prediction: auto_before / auto 1.05-1.2 on the changed 13B / 70B q/o /
# 7B cells (v288's decode-kernel times), 1.00 +- 0.02 elsewhere (the cells where v288's rule lost now keep the
# narrow tile).
#   OUT=$OUT bash scripts/sessions/gpu_v289.sh      (~330 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 300
timeout 200 python scripts/bench_ab.py --path "auto_before:spmm_wgmma_sp.DECODE_OVER_NARROW={64: (0, 0), 128: (0, 0)}" \
  -- bench spmm --out "$OUT" --no-plot --tokens 1,2,4,8 --patterns 64:2:8,128:2:8,64:2:16,128:2:16,128:2:32 \
  --shapes llama7b.gate_up,llama7b.down,llama13b,llama70b.qo,llama70b.gate_up,llama70b.down \
  --paths wgmma_sp,auto,auto_before --tag ${CARD}_v289_rule > "$OUT/log_v289.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_${CARD}_v289_rule.csv" wgmma_sp,auto,auto_before | grep -v "^skip"
echo "total ${SECONDS}s"
