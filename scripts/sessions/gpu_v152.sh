#!/usr/bin/env bash
# (Measured and reverted: VNM_WG_STAGGER is no longer in the kernel; NOTES v152.)
# v152: are the SMs' epilogues in step? v150-v151: a persistent 2:128 tile's 4 epilogue passes store
# 16 KB each at ~12 B/clk per SM, i.e. ~3 TB/s over 132 SMs (the DRAM's write rate) as if every SM
# stored at once, and the stores are ~75% of the tile's ~11k cycles; the Y bytes over the whole run
# move at only ~1.7 TB/s. If the SMs run in step (all fill, all store), starting half the CTAs
# later (VNM_WG_STAGGER cycles x (CTA % phases)) puts one half's stores into the other's fill and
# math. Predicted: gate/up 2:128 T = 8192 108 -> 80-90 us at ~half a tile (5000), 4096^3 2:32 -5..-10%,
# 2:8 and 2:4 within +-3%; 4 phases about the same as 2.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=11008x4096x8192:128:2:128,4096x4096x4096:128:2:128,4096x11008x4096:128:2:128,4096x4096x4096:128:2:32,4096x4096x8192:128:2:8,4096x4096x8192:2:4
timeout 150 python scripts/ab_wgmma.py VNM_WG_STAGGER=0,2500,5000,0 --define VNM_WG_STAGGER_PHASES=2 --path auto --xt 1 --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_stagger_h200_v152.txt"
timeout 120 python scripts/ab_wgmma.py VNM_WG_STAGGER=0,1300,2600 --define VNM_WG_STAGGER_PHASES=4 --path auto --xt 1 --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_stagger_h200_v152.txt"
timeout 120 python scripts/ab_wgmma.py VNM_WG_STAGGER=0,5000,0,5000 --define VNM_WG_STAGGER_PHASES=2 --path auto --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_stagger_h200_v152.txt"
echo "total ${SECONDS}s"
