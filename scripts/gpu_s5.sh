#!/usr/bin/env bash
# v21: A and metadata from the fragment image into the consumers' registers (wgmma.sp with A in
# registers) and the 256 x 128 tile with two m64 blocks per consumer. GPU tests of the new tiles,
# then the A/B against today's tiles (TILE knob of ab_wgmma.py), cuBLAS-free: kernel times only.
# Usage: OUT=$OUT bash scripts/gpu_s5.sh   (<= 8 files in $OUT)
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
SECONDS=0
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider -k "a_in_registers or every_tile" tests/test_spmm_wgmma_sp.py > "$OUT/gpu_tests.txt" 2>&1
grep -E "^FAILED|^E  |passed|failed" "$OUT/gpu_tests.txt" | head -12; echo "tests took ${SECONDS}s"
S24=4096x4096x8192:2:4,11008x4096x8192:2:4,4096x11008x8192:2:4,4096x4096x2048:2:4
timeout 150 python scripts/ab_wgmma.py TILE=wg128x256s5,wg128x256s6r1,wg256x128s10r2,wg128x256s5,wg128x256s6r1,wg256x128s10r2 --shapes $S24 2>&1 | tee "$OUT/ab.txt" | tail -5
S128=4096x4096x8192:128:2:8,11008x4096x4096:128:2:16,4096x4096x8192:128:2:32
timeout 100 python scripts/ab_wgmma.py TILE=wg128x256s5,wg128x256s6r1,wg128x256s5,wg128x256s6r1 --shapes $S128 2>&1 | tee -a "$OUT/ab.txt" | tail -4
timeout 80 python scripts/ab_wgmma.py TILE=wg64x256s3,wg64x256s6r1,wg64x256s3,wg64x256s6r1 --shapes 4096x4096x8192:64:2:16,4096x4096x8192:64:2:8 2>&1 | tee -a "$OUT/ab.txt" | tail -3
