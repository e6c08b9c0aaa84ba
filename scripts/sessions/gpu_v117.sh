#!/usr/bin/env bash
# v117: the decode grid over every benchmark shape (BERT-large, LLaMA-7B/13B/70B), T = 1-64, auto
# and cuSPARSELt beside cuBLAS, with the v114 route (NARROW_GATHERED) on, then off in the same call.
source "$(dirname "$0")/../gpu_lib.sh"
ARGS="bench spmm --tokens 1,4,8,16,32,64 --patterns 2:4,64:2:8,128:2:8,64:2:16,128:2:16,128:2:32,128:2:128 --paths auto,cslt --out $OUT"
timeout 280 python -m vnmsparse.cli $ARGS --tag h200_decode_v117 > "$OUT/bench_on.txt" 2>&1
grep -E "^\| [0-9:]+ \| T" "$OUT/bench_on.txt" | head -20
timeout 280 python -c "import sys; from vnmsparse.kernels import spmm_wgmma_sp as W; W.NARROW_GATHERED = False
from vnmsparse.cli import main; sys.argv = ['vnmsparse'] + sys.argv[1:]; main()" $ARGS --tag h200_decode_v117_narrow_off --no-plot > "$OUT/bench_off.txt" 2>&1
grep -E "^\| [0-9:]+ \| T" "$OUT/bench_off.txt" | head -20
rm -f "$OUT"/bench_*.txt
echo "total ${SECONDS}s"
