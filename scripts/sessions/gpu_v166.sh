#!/usr/bin/env bash
# v166: every GPU suite and memcheck with v164's stmatrix staging as the default (and the as_rows
# review commit, 7bec1e1, first run on the GPU), racecheck of the stmatrix epilogue on the persistent
# and row tiles, then the README's grid. Predicted: T >= 2048 auto_xt 2:128 7.8 -> ~8.3x, 2:32 +3..5%,
# the rest within the noise.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 240 150 tests/test_spmm_wgmma_sp.py tests/test_spmm_mma_sp.py tests/test_ops.py tests/test_nn.py tests/test_bench.py
SANITIZE_ARGS="--tiles p,r1" sanitize 90 racecheck
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,auto_xt,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v166 > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -40
echo "total ${SECONDS}s"
