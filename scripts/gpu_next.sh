#!/usr/bin/env bash
# The first device call of the next session (NOTES.md, "Next GPU session"): GPU tests, the v14 A/B
# (A by TMA in the wgmma.sp kernel), and the host cost of an eager sparse Linear call.
# Leaves <= 8 files in $OUT. Usage: OUT=$OUT bash scripts/gpu_next.sh
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
timeout 240 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_mma_sp.py tests/test_spmm_wgmma_sp.py \
  tests/test_ops.py tests/test_nn.py 2>&1 | tee "$OUT/gpu_tests.txt" | grep -E "^FAILED|^E  |passed|failed" | head -20
timeout 200 python scripts/ab_wgmma.py VNM_WG_TMA_A=0,1 --shapes \
  4096x4096x8192:2:4,11008x4096x4096:2:4,4096x4096x8192:128:2:16,1000x1003x300:64:2:8 2>&1 | tee "$OUT/ab_tma_a.txt" | tail -8
python scripts/profile_host.py > "$OUT/host.txt" 2>&1; head -1 "$OUT/host.txt"
ls "$OUT"
