#!/usr/bin/env bash
# v59: T = 16-64 on many row tiles (LLaMA gate/up, 86 row tiles: 86 of 132 SMs at ~27 GB/s each,
# DRAM 44% under ncu, consumers stalled on the A registers' loads). A/B of how A arrives: registers
# by LDG 8 stages ahead (r1), staged by bulk copy through the ring (t1), TMA into shared memory
# (sm80 layout); the producer's L2 prefetch of A ahead of the register loads; more register sets.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 120
S=11008x4096x64:2:4,11008x4096x16:2:4,4096x4096x64:2:4,11008x4096x64:128:2:8,11008x4096x16:128:2:8
ab() { timeout 150 python scripts/ab_wgmma.py "$@" --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_v59.txt"; }
ab TILE=wg128x64s12r1,wg128x64s10t1,wg128x64s8,wg128x64s12r1
ab VNM_WG_AREG_PREFETCH=0,2,4,8,0
ab VNM_WG_AREG_SETS=9,10,7
echo "total ${SECONDS}s"
