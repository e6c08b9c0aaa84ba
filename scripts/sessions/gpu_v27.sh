#!/usr/bin/env bash
# v26 (tile choice by waves), v27 (persistent tiles numbered in bands of row tiles, RASTER_ROWS),
# clusters of 4, v29 (Y by TMA stores in persistent tiles):
# the tile tests, the grid, then the A/Bs (bands on LLaMA gate/up 2:4, weights ~ L2; clusters of 4;
# TMA stores), each appended to ab.txt as it finishes. [SANITIZE=1: racecheck and synccheck instead, on the persistent and cluster tiles too.]
# Usage: [TAG=h200_v27] [SANITIZE=1] OUT=$OUT bash scripts/sessions/gpu_v27.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
if [ "${SANITIZE:-0}" = 1 ]; then sanitize 280 racecheck; sanitize 280 synccheck; exit; fi
gpu_tests 200 -k "persistent or cluster or every_tile or grid_limit or tile_choice or routes" tests/test_spmm_wgmma_sp.py
quick_grid 200 "${TAG:-h200_v27}"  # first: it checks v26/v28 and what a timeout would cut last
S=11008x4096x8192:2:4,11008x4096x4096:2:4,4096x11008x8192:2:4,4096x4096x8192:2:4,11008x4096x8192:128:2:16
timeout 120 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s6r1p,wg128x256s6r1,wg128x256s6r1p \
  --shapes $S 2>&1 | tee "$OUT/ab.txt" | tail -6
timeout 100 python scripts/ab_wgmma.py RASTER_ROWS=0,12,6,0,12,6 --define TILE=wg128x256s6r1p --shapes $S 2>&1 | tee -a "$OUT/ab.txt" | tail -6
# clusters of 4 sharing X (cuSPARSELt's fastest 2:4 algorithm here: 4x1x1, L2 43% vs 81% without)
timeout 100 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s6r1c4,wg128x256s6r1,wg128x256s6r1c4 \
  --shapes 11008x4096x8192:2:4,4096x11008x8192:2:4,4096x4096x8192:2:4 2>&1 | tee -a "$OUT/ab.txt" | tail -4
# v29: Y by TMA stores in the persistent tiles (the default from M = 64), against their 16-byte stores
timeout 100 python scripts/ab_wgmma.py EPI_TMA=0,1,0,1 --define TILE=wg128x256s6r1p \
  --shapes 4096x4096x8192:128:2:128,4096x4096x8192:128:2:32,11008x4096x4096:128:2:16,4096x4096x8192:2:4 2>&1 | tee -a "$OUT/ab.txt" | tail -5
