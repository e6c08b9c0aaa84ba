#!/usr/bin/env bash
# v192: mid-T tile and split choices for plain 2:4 by TMA (also 64:2:8 from T = 256, run as 2:4).
# Grid midT v191: LLaMA gate/up 2:4 T = 300 75 us against 35 at T = 256 and 67 at T = 512 (cuBLAS 40):
# choose_tile takes 128 x 128 tiles there (258 CTAs: two waves) because WIDE_TILE_COST says a 128 x 256
# tile costs 1.4 of a 128 x 128 one; at one CTA an SM the grid says ~1.1-1.2 (T = 128: 31 us a wave of
# 128 x 128, T = 256: 35 a wave of 128 x 256). Predicted: 128 x 256 with 2 K splits (one wave of half-K
# tiles) at q/k/v/o T = 300-512 29 -> ~20-22 us, gate/up T = 300 75 -> ~55 us.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
F="$OUT/ab_midt_h200_v192.txt"
S=11008x4096x300:2:4,11008x4096x384:2:4,11008x4096x512:2:4,11008x4096x640:2:4,4096x4096x300:2:4,4096x4096x384:2:4,4096x4096x512:2:4,4096x4096x768:2:4,4096x11008x300:2:4,4096x11008x512:2:4,1024x4096x300:2:4,1024x4096x1000:2:4
ab() { timeout "$1" python scripts/ab_wgmma.py "${@:2}" --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee -a "$F"; }
ab 60 PATH=dense,auto
ab 120 TILE=wg128x128s10r1,wg128x256s6r1,wg64x128s6r1,wg64x256s6r1
ab 80 SPLITS=1,2,3 --define TILE=wg128x256s6r1
ab 80 SPLITS=1,2,3 --define TILE=wg128x128s10r1
echo "total ${SECONDS}s"
