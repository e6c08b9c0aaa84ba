#!/usr/bin/env bash
# v65: what holds plain 2:4 at T = 64 at ~2.2 TB/s (v61; v63's deeper A ring was slower, v60's
# two CTAs per SM no faster)? Per CTA the rate falls with the CTA count (v59 splits: 32 CTAs
# 39 GB/s each, 86 25.6, 128 22), and at 32 CTAs the 12-stage ring would imply a ~2.8 us memory
# latency if it were full: so something serial per stage (~415-665 clk) paces it. Three probes on
# the staged tile: its depth (4 / 6 / 8 / 12 stages: flat -> not bytes in flight), no wgmma
# (VNM_WG_SKIP_MMA: faster -> the consumers' chain), no X (VNM_WG_SKIP_B: faster -> X's L2 reads);
# then ncu's per-instruction stall samples of the tile (where the warps wait).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
S=11008x4096x64:2:4,4096x11008x64:2:4,4096x4096x64:2:4
timeout 120 python scripts/ab_wgmma.py TILE=wg128x64s4t1,wg128x64s6t1,wg128x64s8t1,wg128x64s12t1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v65.txt"
timeout 90 python scripts/ab_wgmma.py VNM_WG_SKIP_MMA=0,1 --define TILE=wg128x64s12t1 --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_v65.txt"
timeout 90 python scripts/ab_wgmma.py VNM_WG_SKIP_B=0,1 --define TILE=wg128x64s12t1 --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_v65.txt"
timeout 90 python scripts/ab_wgmma.py SPLITS=1,2,3 --define TILE=wg128x64s12t1 --define VNM_WG_SKIP_MMA=1 --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_v65.txt"
# where the warps of the auto path's kernel (the staged tile, one split) wait
OUT=$OUT bash scripts/gpu_profile.sh staged_2to4_t64 "spmm_wgmma_sp" 11008 4096 64 2:4 auto 2>&1 | tail -16
echo "total ${SECONDS}s"
