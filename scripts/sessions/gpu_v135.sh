#!/usr/bin/env bash
# v135: LLaMA-7B-shaped decode end to end (batch 1 / 8 / 128: the Linears at T = 1 / 8 / 128) with
# v132's wide splits on and off: batch 128 runs 2:4 (and 64:2:8) Linears at T = 128, where v133 read
# q/k/v/o -6% and down -11..-14%. Predicted batch 128 2:4 1.01 -> ~1.04, 64:2:8 1.09 -> ~1.10 (64:2:8 runs
# as 2:4 only from T = 256); batch 1 / 8 unchanged.
source "$(dirname "$0")/../gpu_lib.sh"
e2e() {  # e2e TAG WIDE: the llama-decode workload, bf16
  timeout 200 python -c "import sys; from vnmsparse.kernels import spmm_wgmma_sp as W; W.WIDE_SPLITS = bool($2)
from vnmsparse.cli import main; sys.exit(main(sys.argv[1:]))" bench e2e --workloads llama-decode \
    --patterns 2:4,64:2:8,128:2:8 --dtypes bf16 --budget-seconds 150 --out "$OUT" --tag "$1" > "$OUT/log_$1.txt" 2>&1
  echo "e2e $1 exit $?"; grep -A8 "^## Summary" "$OUT/e2e_$1.md" | head -10
}
e2e h200_e2e_v135 1
e2e h200_e2e_v135_wide_off 0
rm -f "$OUT"/*.png
echo "total ${SECONDS}s"
