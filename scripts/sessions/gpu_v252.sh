#!/usr/bin/env bash
# v252: copies of 4 steps (16 KB a 64-row block: v239's probe took 16 KB copies at the DRAM rate, 4 KB ones at
# ~18 GB/s a CTA) in decode CTAs of 8+ steps, and a deeper ring; v240 measured 4-step copies only in 4-step CTAs.
# Prediction: group 4 -5..-10% on CTAs of 11-16 steps (LLaMA T = 1), even on 8-step ones, 4-step CTAs unchanged.
#   OUT=$OUT bash scripts/sessions/gpu_v252.sh      (~40 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
S=11008x4096x1:64:2:8,4096x11008x1:64:2:8,2048x8192x1:64:2:8,4096x11008x1:128:2:8,11008x4096x4:64:2:8
S=$S,13824x5120x1:64:2:8,5120x13824x1:128:2:8,5120x13824x1:64:2:8,4096x11008x1:64:2:16,4096x4096x1:64:2:8
timeout 200 python scripts/ab_decode.py DECODE_GROUP=2,4,2+DECODE_RING=3,4+DECODE_RING=3,2,4 --shapes $S 2>&1 \
  | grep -v "Warn\|warn" | tee "$OUT/ab_decode_group_v252.txt"
echo "total ${SECONDS}s"
