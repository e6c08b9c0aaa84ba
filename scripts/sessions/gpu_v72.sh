#!/usr/bin/env bash
# v72: plain 2:4 at T <= 64 on 64-row staged tiles, two CTAs per SM (v65-v66: the 128-row staged
# tile's ring is full of loads at ~30 GB/s per CTA, so LLaMA gate/up's 86 row tiles stream ~2.3 TB/s
# with 46 SMs idle; 172 tiles of 64 rows reach every SM). Predicted: gate/up T = 64 21.4 -> ~15 us if
# the per-CTA rate holds (v60's two 128-row CTAs per SM with K splits did not gain: a warning).
# Weights rotated past twice the L2.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
timeout 100 python scripts/ab_wgmma.py TILE=wg128x64s12t1,wg64x64s8t1 --shapes 11008x4096x64:2:4,4096x11008x64:2:4,4096x4096x64:2:4,1024x4096x64:2:4 2>&1 | grep -v Warn | tee "$OUT/ab_v72.txt"
timeout 100 python scripts/ab_wgmma.py TILE=wg128x32s16t1,wg64x32s12t1 --shapes 11008x4096x32:2:4,4096x11008x32:2:4,4096x4096x32:2:4 2>&1 | grep -v Warn | tee -a "$OUT/ab_v72.txt"
timeout 100 python scripts/ab_wgmma.py TILE=wg128x16s19t1,wg128x32s16t1,wg64x16s14t1 --shapes 11008x4096x16:2:4,4096x11008x16:2:4,4096x4096x16:2:4,1024x4096x16:2:4 2>&1 | grep -v Warn | tee -a "$OUT/ab_v72.txt"
echo "total ${SECONDS}s"
