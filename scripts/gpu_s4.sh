#!/usr/bin/env bash
# v20: both mma.sp kernels copy gathered B rows with whole 128-byte lines per warp (ncu of v19: L2
# tag requests at 80-90%). GPU tests of the mma.sp file, memcheck, the A/B against the old split
# (VNM_MMA_B_WHOLE_ROWS=0) for the classic and the warp-specialised kernel, the quick bench.
# Usage: OUT=$OUT bash scripts/gpu_s4.sh   (<= 8 files in $OUT)
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
SECONDS=0
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py > "$OUT/gpu_tests.txt" 2>&1
grep -E "^FAILED|^E  |passed|failed" "$OUT/gpu_tests.txt" | head -10; echo "tests took ${SECONDS}s"
timeout 120 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python scripts/sanitize_spmm.py \
  > "$OUT/memcheck.txt" 2>&1; echo "memcheck: exit $? $(tail -1 "$OUT/memcheck.txt")"
G=4096x4096x8192:2:4,4096x4096x8192:64:2:8,4096x4096x8192:128:2:8,11008x4096x4096:128:2:16,4096x4096x8192:128:2:32
for p in mma_sp mma_sp_ws; do echo "== $p"
  timeout 120 python scripts/ab_wgmma.py VNM_MMA_B_WHOLE_ROWS=0,1,0,1 --path $p --shapes $G 2>&1 | tee -a "$OUT/ab.txt" | tail -6
done
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --no-plot --tokens 2048,8192 \
  --paths mma_sp,mma_sp_ws --tag h200_v20ws > "$OUT/bench.txt" 2>&1; grep -E "^\| [0-9:]+ \| T|^\| pattern" "$OUT/bench.txt"
