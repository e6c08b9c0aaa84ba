#!/usr/bin/env bash
# v281: v280's A-in-registers decode, the loads not allocated in L1 (VNM_LDG_NO_L1: v280's deeper queues lost on
# long CTAs, e.g. LLaMA gate/up 64:2:8 depth 4 / 8 12.2 / 13.2 us against 11.5 by bulk copies, and 128-row tiles
# lost at an equal plan, 128:2:8 5.8 -> 6.3: L1's miss resources are the suspect), depths 2 / 4 / 8.
# Prediction: with no L1 allocation, depth 4 <= the bulk copies on every cell (128:2:8 <= 5.8 us, gate/up <= 11.5),
# depth 8 >= depth 4 on CTAs of >= 8 steps.
#   OUT=$OUT bash scripts/sessions/gpu_v281.sh      (~150 s cold)
source "$(dirname "$0")/../gpu_lib.sh"
warm
S=4096x4096x1:64:2:8,4096x4096x1:128:2:8,4096x4096x1:64:2:16,4096x4096x1:128:2:16,4096x4096x1:128:2:32
S=$S,11008x4096x1:64:2:8,4096x11008x1:64:2:8,11008x4096x1:128:2:16,1024x4096x1:64:2:8,13824x5120x1:64:2:8
S=$S,4096x4096x8:64:2:8,4096x4096x8:128:2:16,11008x4096x4:64:2:8,1024x4096x16:128:2:16
S=$S,5120x5120x1:64:2:8,5120x13824x1:64:2:8,2048x8192x1:64:2:8,4096x4096x1:64:2:32,4096x4096x4:64:2:16
S=$S,4096x4096x2:128:2:8,11008x4096x1:128:2:8
timeout 300 python scripts/ab_decode.py DECODE_AREG=0,4,4+VNM_LDG_NO_L1=1,2+VNM_LDG_NO_L1=1,8+VNM_LDG_NO_L1=1,0 \
  --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_decode_areg_v281.txt" | cut -c1-122
echo "total ${SECONDS}s"
