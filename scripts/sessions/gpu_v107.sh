#!/usr/bin/env bash
# v107: grouped copies with fewer K splits where today's splits leave a CTA few steps (4096-row
# weights at T = 16-64: 32 row tiles x 4 splits of 8 steps at 2:8). Predicted: 2 splits of 16
# grouped steps -5..-10% if the copy size outweighs half the CTAs; the 64-row grouped tile (64 row
# tiles, two CTAs per SM) with 2 splits between.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=""; for t in 16 64; do S="$S,4096x4096x$t:128:2:8,4096x4096x$t:128:2:16,4096x11008x$t:128:2:16,4096x11008x$t:128:2:32,1024x4096x$t:128:2:8"; done
for tile in wg128x64s12r1 wg128x64s12t1g4 wg64x64s8t1g4; do
  timeout 100 python scripts/ab_wgmma.py SPLITS=0,1,2,4 --define TILE=$tile --shapes "${S#,}" 2>&1 | grep -v Warn | tee -a "$OUT/ab_v107_splits.txt"
done
echo "total ${SECONDS}s"
