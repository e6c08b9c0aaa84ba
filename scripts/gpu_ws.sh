#!/usr/bin/env bash
# Branch mma-ws: the warp-specialised mma.sp prefill kernel (NOTES "v19"): the GPU tests of the
# mma.sp file (its tile test included) and of the wgmma.sp file (for_unrolled now shapes that
# producer too: its SASS moved by a few instructions), memcheck on sanitize_spmm.py (which runs
# it at T > 64), and the A/B against the classic kernel at T >= 2048 (quick shapes), cuBLAS in
# the same run.
# Usage: OUT=$OUT bash scripts/gpu_ws.sh   (<= 8 files in $OUT)
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
timeout 360 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py 2>&1 | tee "$OUT/gpu_tests.txt" | grep -E "^FAILED|^E  |passed|failed" | head -20
timeout 200 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python scripts/sanitize_spmm.py \
  > "$OUT/memcheck.txt" 2>&1; echo "memcheck: exit $? $(tail -1 "$OUT/memcheck.txt")"
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --no-plot --tokens 2048,8192 \
  --paths mma_sp,mma_sp_ws --tag h200_v19ws 2>&1 | tee "$OUT/bench.txt" | grep -E "^\| [0-9:]+ \| T"
ls "$OUT"
