#!/usr/bin/env bash
# v83b (branch prefetch-steps): v83 found 64 or all steps of up-front L2 prefetch 15-30% SLOWER
# than 16 at T <= 64 (and +6% on 2:4 prefill); so fewer: 0 / 4 / 8 / 16 (main). Predicted: if the
# up-front prefetch competes with the ring's own copies for DRAM, 4-8 -3..-10%; 0 loses PDL's overlap.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=11008x4096x16:2:4,11008x4096x64:2:4,4096x11008x16:2:4,4096x11008x64:2:4,4096x4096x64:2:4,4096x4096x16:128:2:8
S=$S,11008x4096x16:128:2:8,4096x11008x64:128:2:8,11008x4096x64:128:2:16,4096x4096x4096:2:4,4096x4096x4096:128:2:8
timeout 200 python scripts/ab_wgmma.py VNM_WG_PDL_PREFETCH_STEPS=16,0,4,8,16,0,4,8 --path auto --shapes $S 2>&1 | grep -v Warn | tee "$OUT/ab_v83b.txt"
echo "total ${SECONDS}s"
