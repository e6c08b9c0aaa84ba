#!/usr/bin/env bash
# v167: the second consumer warpgroup of a persistent tile starts VNM_WG_CONSUMER_LAG SM cycles after
# the first (0 = as now), so one's epilogue stores overlap the other's stage waits and math.
# Predicted: if the SM's stores (~12 B/clk) idle outside the epilogue, persistent 2:128 -10..-25% at a
# lag near half a tile (~4-5k cycles of ~9.7k); if the gather waits behind the stores, even or slower.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm
S=11008x4096x8192:128:2:128,4096x4096x4096:128:2:128,4096x4096x8192:128:2:128,1024x4096x8192:128:2:128
timeout 150 python scripts/ab_wgmma.py VNM_WG_CONSUMER_LAG=0,1500,3000,4500,6000,0 --path auto --xt 1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_consumer_lag_h200_v167.txt"
# the persistent 128 x 256 tile where it is not the default (2:32, 2:64: 4-8 k-steps)
S2=4096x4096x4096:128:2:32,4096x4096x8192:128:2:64,11008x4096x8192:128:2:32
timeout 150 python scripts/ab_wgmma.py VNM_WG_CONSUMER_LAG=0,3000,6000,0 --path wgmma_sp --xt 1 --define TILE=wg128x256s6r1p --shapes $S2 2>&1 | grep -v Warn | tee -a "$OUT/ab_consumer_lag_h200_v167.txt"
timeout 60 python scripts/ab_wgmma.py PATH=auto --xt 1 --shapes $S2 2>&1 | grep -v Warn | tee -a "$OUT/ab_consumer_lag_h200_v167.txt"
echo "total ${SECONDS}s"
