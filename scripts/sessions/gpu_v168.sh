#!/usr/bin/env bash
# v168: persistent tiles for plain 2:4 prefill (and 2:8-2:16) again, after v148's late A preload, v158's
# per-warpgroup epilogue and v164's stmatrix staging (persistent was 1-9% slower on 2:4 in v24/v27,
# before all three). Predicted: 2:4 persistent even to -3% (the next tile's TMA loads overlap the
# epilogue; per tile ~22 us of math against ~2.7 us of Y stores at 12 B/clk), gathered 2:8 even to +5%.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
S=11008x4096x8192:2:4,4096x11008x8192:2:4,4096x4096x8192:2:4,1024x4096x8192:2:4,11008x4096x2048:2:4
timeout 200 python scripts/ab_wgmma.py TILE=auto,wg128x256s6r1p,wg128x256s6r1pc2,wg128x256s6r1c2,auto --path wgmma_sp --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_persistent_2to4_h200_v168.txt"
S2=11008x4096x8192:128:2:8,4096x4096x8192:128:2:8,4096x4096x8192:128:2:16
timeout 120 python scripts/ab_wgmma.py TILE=auto,wg128x256s6r1p,auto --path wgmma_sp --shapes $S2 2>&1 | grep -v Warn | tee -a "$OUT/ab_persistent_2to4_h200_v168.txt"
timeout 100 python scripts/ab_wgmma.py RASTER_ROWS=0,8,16,0 --define TILE=wg128x256s6r1p --path wgmma_sp --shapes 11008x4096x8192:2:4,4096x11008x8192:2:4 2>&1 | grep -v Warn | tee -a "$OUT/ab_persistent_2to4_h200_v168.txt"
echo "total ${SECONDS}s"
