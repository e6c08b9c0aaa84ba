#!/usr/bin/env bash
# v18 as the default (32-bit gather offsets, token chunks past 4 GB): the wgmma.sp GPU tests; the
# launch-order group A/B (VNM_WG_RASTER_GROUP, NOTES v20); ncu on the warp-specialised mma.sp
# kernel (v19), whose first measurement was no faster than the classic one.
# Usage: OUT=$OUT bash scripts/gpu_s3.sh   (<= 8 files in $OUT)
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
SECONDS=0
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py > "$OUT/gpu_tests.txt" 2>&1
grep -E "^FAILED|^E  |passed|failed" "$OUT/gpu_tests.txt" | head -10; echo "tests took ${SECONDS}s"
G=4096x4096x8192:2:4,11008x4096x8192:2:4,4096x11008x8192:2:4,4096x8192x8192:2:4,4096x4096x8192:128:2:8,11008x4096x4096:128:2:16,4096x11008x8192:64:2:16
timeout 200 python scripts/ab_wgmma.py VNM_WG_RASTER_GROUP=0,8,16,0,8,16 --shapes $G 2>&1 | tee "$OUT/ab.txt" | tail -9
bash scripts/gpu_profile.sh ws_128_2_8 spmm_mma_sp_ws 4096 4096 8192 128:2:8 mma_sp_ws ws_64_2_16 spmm_mma_sp_ws 4096 4096 8192 64:2:16 mma_sp_ws 2>&1 | grep -v "^total\|^d\|^-" | head -30
