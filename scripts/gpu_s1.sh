#!/usr/bin/env bash
# Branch next (main + mma-ws): the whole GPU suite (v19's tile test included), memcheck on
# sanitize_spmm.py (its warp-specialised case included), then v19 against the classic mma.sp kernel
# at T >= 2048 on the quick shapes, cuBLAS in the same run.
# Usage: OUT=$OUT bash scripts/gpu_s1.sh   (<= 8 files in $OUT)
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
python -m vnmsparse.cli env > "$OUT/env.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv >> "$OUT/env.txt"
SECONDS=0
timeout 290 python -m pytest -q -m gpu -p no:cacheprovider --durations=8 tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py \
  tests/test_jit.py tests/test_ops.py tests/test_nn.py > "$OUT/gpu_tests.txt" 2>&1
grep -E "^FAILED|^E  |passed|failed" "$OUT/gpu_tests.txt" | head -20; echo "tests took ${SECONDS}s"
SECONDS=0
timeout 120 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python scripts/sanitize_spmm.py \
  > "$OUT/memcheck.txt" 2>&1; echo "memcheck: exit $? $(tail -1 "$OUT/memcheck.txt") (${SECONDS}s)"
grep -i "warp-specialised" "$OUT/memcheck.txt"
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --no-plot --tokens 2048,8192 \
  --paths mma_sp,mma_sp_ws --tag h200_v19ws > "$OUT/bench.txt" 2>&1; grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt"
ls "$OUT"
