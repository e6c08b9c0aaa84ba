#!/usr/bin/env bash
# v30: the grid after choose_tile keeps the widest tile for persistent tiles (h200_v27 had 2:128
# 10-15% slower at gate/up), the cluster-of-4 A/B on shapes whose fragment image it fits, racecheck.
# Usage: [TAG=h200_v30] OUT=$OUT bash scripts/sessions/gpu_v30.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
quick_grid 200 "${TAG:-h200_v30}"
timeout 100 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s6r1c4,wg128x256s6r1,wg128x256s6r1c4 \
  --shapes 4096x11008x8192:2:4,4096x4096x8192:2:4,4096x4096x4096:2:4 2>&1 | tee "$OUT/ab.txt" | tail -4
sanitize 250 racecheck
