#!/usr/bin/env bash
# v193: X by TMA in boxes of at most 64 tokens, only those that start before T (VNM_WG_X_BOX; v192
# found a ragged token tile slower the fewer tokens it has: 172 CTAs of 128 x 256 on LLaMA gate/up
# 2:4, T = 512 / 384 / 300: 65 / 87 / 104 us). Predicted: gate/up T = 300 74 -> ~59 us (T = 384's),
# 4096 x 11008 T = 300 73 -> ~55, q/k/v/o T = 300 28.8 -> ~27; full tiles (T = 512, 4096) even.
# First the wgmma.sp suite (every tile reads ragged T by TMA), then the A/B (256: the old one-box
# form), then the tile A/B again with the fix (to refit WIDE_TILE_COST).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
WARM=0 gpu_tests 200 tests/test_spmm_wgmma_sp.py
F="$OUT/ab_x_box_h200_v193.txt"
S=11008x4096x300:2:4,11008x4096x384:2:4,11008x4096x512:2:4,4096x4096x300:2:4,4096x4096x512:2:4,4096x11008x300:2:4,4096x11008x512:2:4,1024x4096x300:2:4,4096x4096x4095:2:4,11008x4096x2100:2:4,4096x4096x40:2:4,4096x4096x1000:2:4
ab() { timeout "$1" python scripts/ab_wgmma.py "${@:2}" --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee -a "$F"; }
ab 150 VNM_WG_X_BOX=256,64,256,64
ab 90 TILE=wg128x128s10r1,wg128x256s6r1
echo "total ${SECONDS}s"
