#!/usr/bin/env bash
# The first device call of a session (NOTES.md, "Next GPU session"): the wgmma GPU tests and the
# A/B runs of the producer's column-word look-ahead (v15: no register shifts) and of A by TMA.
# Leaves <= 8 files in $OUT. Usage: OUT=$OUT bash scripts/gpu_next.sh
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
timeout 200 python -m pytest -q -m gpu -p no:cacheprovider tests/test_spmm_wgmma_sp.py 2>&1 | tee "$OUT/gpu_tests.txt" | grep -E "^FAILED|^E  |passed|failed" | head -20
G=4096x4096x8192:2:4,11008x4096x4096:2:4,4096x11008x8192:2:4,1000x1003x300:2:4,4096x4096x8192:128:2:8
timeout 120 python scripts/ab_wgmma.py MULTICAST_X=0,1 --shapes $G 2>&1 | tee -a "$OUT/ab.txt" | tail -6
for tool in memcheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool python scripts/sanitize_spmm.py > "$OUT/$tool.txt" 2>&1
  echo "$tool: $(grep -E 'ERROR SUMMARY|worst' "$OUT/$tool.txt" | tr '\n' ' ')"
done
ls "$OUT"
