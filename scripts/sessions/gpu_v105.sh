#!/usr/bin/env bash
# v105: LLaMA-7B-shaped decode at batch 1 / 8 / 128 end to end (batch 128: the Linears at T = 128,
# where v104's route moved q/k/v/o and down onto the decode tiles), then batch 128 again with the
# route off (MID_T_DECODE_TILES = False). Predicted at batch 128: 2:4 from below dense to ~1.1x,
# 128:2:8 ~1.3x.
source "$(dirname "$0")/../gpu_lib.sh"
warm 200
e2e() {  # e2e TAG MID: the llama-decode workload, bf16, five patterns and cuSPARSELt
  timeout 240 python -c "import sys; from vnmsparse.kernels import spmm_wgmma_sp as W; W.MID_T_DECODE_TILES = bool($2)
from vnmsparse.cli import main; sys.exit(main(sys.argv[1:]))" bench e2e --workloads llama-decode \
    --patterns 2:4,64:2:8,128:2:8,64:2:16,128:2:32 --dtypes bf16 --budget-seconds 200 --out "$OUT" --tag "$1" > "$OUT/log_$1.txt" 2>&1
  echo "e2e $1 exit $?"; grep -A8 "^## Summary" "$OUT/e2e_$1.md" | head -10
}
e2e h200_e2e_v105 1
e2e h200_e2e_v105_midt_off 0
rm -f "$OUT"/*.png
echo "total ${SECONDS}s"
