#!/usr/bin/env bash
# The first device call of the next session (NOTES.md, "Next GPU session"): GPU tests, then the two
# profiles. Leaves <= 8 files in $OUT. Usage: OUT=$OUT bash scripts/gpu_next.sh
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
timeout 240 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py \
  tests/test_ops.py tests/test_nn.py 2>&1 | tee "$OUT/gpu_tests.txt" | grep -E "^FAILED|^E  |passed|failed" | head -20
NCU="ncu --clock-control none --launch-skip 2 -c 1"
timeout 150 $NCU --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --print-details all \
  -k regex:spmm_wgmma python scripts/profile_spmm.py 4096 4096 8192 2:4 wgmma_sp > "$OUT/ncu_wgmma_tma.txt" 2>&1
timeout 120 $NCU --section SpeedOfLight --section LaunchStats --section WarpStateStats --section SourceCounters \
  -k regex:decode -o "$OUT/dec" python scripts/profile_spmm.py 4096 4096 1 128:2:128 mma_sp_decode > /dev/null 2>&1
ncu -i "$OUT/dec.ncu-rep" --page details > "$OUT/ncu_decode_floor.txt" 2>&1
ncu -i "$OUT/dec.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu_decode_floor_sass.csv" 2>&1
rm -f "$OUT/dec.ncu-rep"
grep -E "Duration|Elapsed|SM Active|DRAM Thr" "$OUT/ncu_wgmma_tma.txt" "$OUT/ncu_decode_floor.txt"
ls "$OUT"
