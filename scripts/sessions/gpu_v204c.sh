#!/usr/bin/env bash
# v204c: X boxes of 128 tokens on the 128- and 256-token tiles, now that a box past T's end is short
# (v204). v192 chose 64 partly because a box mostly past T was slow; fewer, larger boxes mean fewer TMA
# issues a stage. Predicted: within 2% at T >= 2048 (the fill, not the issue count, bounds it).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=4096x4096x8192:2:4,11008x4096x4096:2:4,4096x11008x4096:2:4,28672x8192x2048:2:4,1024x4096x8192:2:4,11008x4096x512:2:4,11008x4096x200:2:4,4096x4096x300:2:4
timeout 200 python scripts/ab_wgmma.py VNM_WG_X_BOX=64,128,64,128 --path auto --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_x_box_h200_v204c.txt"
echo "total ${SECONDS}s"
