#!/usr/bin/env bash
# v71: the one-launch decode kernel on the (row-block-major) fragment image with each step's codes
# copied with its A (VNM_DEC_STEP_CODES=1) instead of all codes with the first step: v69's
# step-major image did the former and ran T = 1 3-9% faster (gate/up 64:2:8 13.2 -> 12.0 us).
# Predicted: the first step's barrier waits for 1/nsteps of the codes, ~0.3-1 us less at T = 1.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=11008x4096x1:64:2:8,4096x4096x1:128:2:32,4096x4096x1:128:2:8,4096x11008x1:128:2:8,11008x4096x8:64:2:8,4096x4096x4:128:2:16,11008x4096x1:2:4,4096x11008x1:2:4,1024x4096x1:128:2:8,11008x4096x1:128:2:128
timeout 200 python scripts/ab_wgmma.py VNM_DEC_STEP_CODES=0,1,0,1 --path auto --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v71.txt"
echo "total ${SECONDS}s"
