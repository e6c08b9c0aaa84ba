#!/usr/bin/env bash
# v66: v65 found plain 2:4 at T = 64 paced by the weight stream itself (no wgmma at all: gate/up
# 21.4 -> 18.4 us, 2.8 TB/s on 86 CTAs; depth flat from 8 stages). Suspect: the fragment image is
# row-block-major, so 86 CTAs at the same step read 4 KB chunks 256 KB apart (and 512 B code chunks
# 32 KB apart): a fixed stride that may camp on few DRAM channels, where cuBLAS's 112-row boxes
# spread over many rows. A/B: the same image renumbered step-major (VNM_WG_IMAGE_STEP_MAJOR=1),
# with and without the wgmma; predicted, if camping: 2:4 T = 64 toward cuBLAS's 3.5 TB/s
# (gate/up 21.4 -> ~15 us). Then ncu's stall samples of the staged tile (v65's run named a path
# that does not exist).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
S=11008x4096x64:2:4,4096x11008x64:2:4,4096x4096x64:2:4,11008x4096x16:2:4
timeout 120 python scripts/ab_wgmma.py VNM_WG_IMAGE_STEP_MAJOR=0,1,0,1 --define TILE=wg128x64s12t1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v66.txt"
timeout 90 python scripts/ab_wgmma.py VNM_WG_IMAGE_STEP_MAJOR=0,1 --define TILE=wg128x64s12t1 --define VNM_WG_SKIP_MMA=1 --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_v66.txt"
G=11008x4096x64:128:2:8,4096x4096x64:128:2:8,11008x4096x8192:2:4
timeout 90 python scripts/ab_wgmma.py VNM_WG_IMAGE_STEP_MAJOR=0,1 --shapes $G 2>&1 | grep -v Warn | tee -a "$OUT/ab_v66.txt"
# (v66 profiled the staged tile: consumers wait on full barriers, the producer on empty ones: a full ring in flight)
echo "total ${SECONDS}s"
