#!/usr/bin/env bash
# The first device call of the next session (NOTES.md, "Next GPU session"): main's full GPU test
# suite with memcheck / synccheck (v17's op and nn tests ran only merged with decode-next), then
# the A/B of 32-bit gather offsets in the wgmma.sp producer (VNM_WG_GATHER_OFF32, alternating
# A, B, A, B; ab_wgmma checks every variant against fp32, a ragged shape included).
# Usage: OUT=$OUT bash scripts/gpu_next.sh   (<= 8 files in $OUT)
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
VNM_SANITIZERS=${VNM_SANITIZERS:-memcheck synccheck} bash "$(dirname "$0")/gpu_check.sh"
G=4096x4096x8192:128:2:8,11008x4096x4096:128:2:16,4096x4096x8192:128:2:32,4096x4096x8192:64:2:16,1000x1003x300:128:2:8
timeout 240 python scripts/ab_wgmma.py VNM_WG_GATHER_OFF32=0,1,0,1 --shapes $G 2>&1 | tee "$OUT/ab.txt" | tail -6
# where the gathered kernel's time goes with v18: without the B copies / without the wgmma
S=4096x4096x8192:128:2:8,11008x4096x4096:128:2:16
timeout 120 python scripts/ab_wgmma.py VNM_WG_SKIP_MMA=0,1 --define VNM_WG_GATHER_OFF32=1 --shapes $S 2>&1 | tee -a "$OUT/ab.txt" | tail -3
timeout 120 python scripts/ab_wgmma.py VNM_WG_SKIP_B=0,1 --define VNM_WG_GATHER_OFF32=1 --shapes $S 2>&1 | tee -a "$OUT/ab.txt" | tail -3
# per-tile fixed cost (fill, epilogue) vs per-stage cost: time against K at fixed R and T (slope =
# stages, intercept = what a persistent kernel that overlaps epilogues could win)
K=4096x1024x8192:2:4,4096x2048x8192:2:4,4096x4096x8192:2:4,4096x8192x8192:2:4,4096x2048x8192:128:2:8,4096x4096x8192:128:2:8,4096x8192x8192:128:2:8,4096x16384x8192:128:2:8
timeout 150 python scripts/ab_wgmma.py VNM_WG_GATHER_OFF32=0,1 --shapes $K 2>&1 | tee -a "$OUT/ab.txt" | tail -9
ls "$OUT"
