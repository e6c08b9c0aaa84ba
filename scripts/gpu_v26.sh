#!/usr/bin/env bash
# The defaults after v23 (16-byte X^T transpose) and v24 (persistent tiles from M = 64): the GPU
# suites of the wgmma.sp kernel, the op and the nn module; memcheck of sanitize_spmm.py (persistent
# and cluster tiles included); then the quick grid for the README, cuBLAS / cuSPARSELt in the same run.
# Usage: [TAG=h200_v24] OUT=$OUT bash scripts/gpu_v26.sh   (<= 8 files in $OUT)
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
SECONDS=0
timeout 250 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py \
  tests/test_ops.py tests/test_nn.py > "$OUT/gpu_tests.txt" 2>&1
grep -E "^FAILED|^E  |passed|failed" "$OUT/gpu_tests.txt" | head -12; echo "tests took ${SECONDS}s"
timeout 90 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python scripts/sanitize_spmm.py \
  > "$OUT/memcheck.txt" 2>&1; echo "memcheck: exit $? $(tail -1 "$OUT/memcheck.txt")"
timeout 230 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag ${TAG:-h200_v24q} > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -40
