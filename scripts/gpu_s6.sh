#!/usr/bin/env bash
# v21b: the A-in-registers ring deeper (VNM_WG_AREG_SETS) and/or an L2 prefetch of the fragments
# by the producer (VNM_WG_AREG_PREFETCH stages ahead), against the shared-memory A (wg128x256s5).
# Usage: OUT=$OUT bash scripts/gpu_s6.sh   (<= 8 files in $OUT)
set -uo pipefail
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 VNM_CACHE_DIR=${VNM_CACHE_DIR:-/tmp/vnmcache}
OUT=${OUT:-/tmp/vnm_out}; mkdir -p "$OUT"
S=4096x4096x8192:2:4,11008x4096x8192:2:4,4096x4096x8192:128:2:8,11008x4096x4096:128:2:16
timeout 100 python scripts/ab_wgmma.py TILE=wg128x256s5,wg128x256s6r1,wg128x256s5,wg128x256s6r1 --shapes $S 2>&1 | tee "$OUT/ab.txt" | tail -5
timeout 120 python scripts/ab_wgmma.py VNM_WG_AREG_SETS=3,5,3,5 --define TILE=wg128x256s6r1 --shapes $S 2>&1 | tee -a "$OUT/ab.txt" | tail -5
timeout 120 python scripts/ab_wgmma.py VNM_WG_AREG_PREFETCH=0,4,0,4 --define TILE=wg128x256s6r1 --define VNM_WG_AREG_SETS=5 --shapes $S 2>&1 | tee -a "$OUT/ab.txt" | tail -5
