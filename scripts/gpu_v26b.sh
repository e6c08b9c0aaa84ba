#!/usr/bin/env bash
# After v24's loop kept the non-persistent stage counter a constant (the decode tiles' consumer
# loop had grown by ~11 instructions a stage): the tile tests, memcheck, the quick grid.
# Usage: [TAG=h200_v24b] OUT=$OUT bash scripts/gpu_v26b.sh   (<= 8 files in $OUT)
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
SECONDS=0
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider -k "every_tile or persistent or cluster or x_by_tma or split" \
  tests/test_spmm_wgmma_sp.py > "$OUT/gpu_tests.txt" 2>&1
grep -E "^FAILED|^E  |passed|failed" "$OUT/gpu_tests.txt" | head -12; echo "tests took ${SECONDS}s"
timeout 90 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python scripts/sanitize_spmm.py \
  > "$OUT/memcheck.txt" 2>&1; echo "memcheck: exit $? $(tail -1 "$OUT/memcheck.txt")"
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag ${TAG:-h200_v24b} > "$OUT/bench.txt" 2>&1
grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt" | head -40
