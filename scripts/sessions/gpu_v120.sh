#!/usr/bin/env bash
# v120: LLaMA-7B-shaped decode end to end with the v114 route on / off (NARROW_GATHERED). Predicted
# at batch 8 (the Linears at T = 8, gate/up, down and fused q/k/v over 10 MB at 2:8): 64:2:8
# 1.23 -> ~1.35x, 128:2:8 1.31 -> ~1.40, 64:2:16 ~+4%, 128:2:32 and batch 1 / 128 unchanged.
source "$(dirname "$0")/../gpu_lib.sh"
warm 200
e2e() {  # e2e TAG NARROW
  timeout 200 python -c "import sys; from vnmsparse.kernels import spmm_wgmma_sp as W; W.NARROW_GATHERED = bool($2)
from vnmsparse.cli import main; sys.exit(main(sys.argv[1:]))" bench e2e --workloads llama-decode \
    --patterns 2:4,64:2:8,128:2:8,64:2:16,128:2:32 --dtypes bf16 --budget-seconds 150 --out "$OUT" --tag "$1" > "$OUT/log_$1.txt" 2>&1
  echo "e2e $1 exit $?"; grep -A8 "^## Summary" "$OUT/e2e_$1.md" | head -10
}
e2e h200_e2e_v120 1
e2e h200_e2e_v120_narrow_off 0
rm -f "$OUT"/*.png "$OUT"/log_*.txt
echo "total ${SECONDS}s"
