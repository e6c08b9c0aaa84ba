#!/usr/bin/env bash
# The first device call of a session (NOTES.md, "Next GPU session"): the wgmma GPU tests and the
# A/B runs of the producer's column-word look-ahead (v15: no register shifts) and of A by TMA.
# Leaves <= 8 files in $OUT. Usage: OUT=$OUT bash scripts/gpu_next.sh
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py 2>&1 | tee "$OUT/gpu_tests.txt" | grep -E "^FAILED|^E  |passed|failed" | head -20
S=4096x4096x8192:2:4,11008x4096x4096:2:4
# B MN-major (X^T by cp.async) vs K-major (X by TMA), with and without the B copies
timeout 120 python scripts/ab_wgmma.py TMA_X_BY_DEFAULT=0,1 --shapes $S 2>&1 | tee -a "$OUT/ab.txt" | tail -3
timeout 120 python scripts/ab_wgmma.py TMA_X_BY_DEFAULT=0,1 --define VNM_WG_SKIP_B=1 --shapes $S 2>&1 | tee -a "$OUT/ab.txt" | tail -3
timeout 300 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --no-plot --tokens 1,4,8,16,64,2048,4096,8192 \
  --paths auto,mma_sp,mma_sp_decode,wgmma_sp,cslt --tag h200_v15q > "$OUT/bench_log.txt" 2>&1
grep -A 20 "^## Geometric" "$OUT"/spmm_h200_v15q.md | head -24
ls "$OUT"
