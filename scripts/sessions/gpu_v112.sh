#!/usr/bin/env bash
# v112 (run on commit 7f5b5a5's kernel files, restored for the call): v110's four-warpgroup tile
# took A through the TMA/bulk path (staged), so its TMA fill per MAC did not drop (34 KB a stage
# for 256 x 128 x 64: 1/61 B per MAC against 128 x 256's 32 KB X box, 1/64; A comes by LDG there).
# The r1 form (A by LDG into 2 register sets, 10 stages of X only, no spills) halves it (1/128).
# Predicted -10..-20% against 128 x 256 if the TMA fill rate bounds prefill.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=4096x4096x8192:2:4,11008x4096x4096:2:4,4096x11008x8192:2:4
timeout 100 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s6r1 --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v112.txt"
timeout 100 python scripts/ab_wgmma.py TILE=wg256x128s10r1,wg256x128s10r1 --define VNM_WG_AREG_SETS=2 --shapes $S 2>&1 | grep -v Warn | tee -a "$OUT/ab_v112.txt"
echo "total ${SECONDS}s"
