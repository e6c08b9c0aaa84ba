#!/usr/bin/env bash
# v196 (v195's stream-K branch was lost with its checkout): the 256 x 128 tile (two m64 blocks per
# consumer) against 128 x 128 / 128 x 256 at mid T on plain 2:4 (LLaMA gate/up T = 300: 258 CTAs
# of 128 x 128 are two waves, 129 of 256 x 128 one; predicted ~41 us against 58.6 if a 256 x 128
# wave costs 1.25 of a 128 x 256 one, v110-v112); cuBLAS beside it; VNM_WG_X_BOX = 16 / 32 on the
# staged 2:4 tiles at T = 17-63 (a box of bn tokens may lie half past T).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=11008x4096x300:2:4,11008x4096x384:2:4,11008x4096x512:2:4,11008x4096x1000:2:4,11008x4096x2048:2:4,13824x5120x300:2:4,13824x5120x512:2:4,28672x8192x300:2:4,4096x11008x300:2:4,4096x4096x300:2:4
F="$OUT/ab_tall_tile_h200_v196.txt"
timeout 200 python scripts/ab_wgmma.py TILE=wg128x128s10r1,wg256x128s10r2,wg128x256s6r1,wg256x128s10r2,auto --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee "$F"
timeout 100 python scripts/ab_wgmma.py PATH=auto,dense --shapes $S 2>&1 | grep -v "Warn\|warn_once" | tee -a "$F"
S2=4096x4096x17:2:4,4096x4096x24:2:4,4096x4096x40:2:4,4096x4096x48:2:4,4096x4096x63:2:4,11008x4096x24:2:4,11008x4096x40:2:4,11008x4096x56:2:4,4096x11008x40:2:4
timeout 120 python scripts/ab_wgmma.py VNM_WG_X_BOX=16,32,64,16,32,64 --path auto --shapes $S2 2>&1 | grep -v "Warn\|warn_once" | tee "$OUT/ab_x_box_small_h200_v196.txt"
echo "total ${SECONDS}s"
