#!/usr/bin/env bash
# v243b: v240-v242's route in turns against the previous one, then the README's grid.
# Prediction: T = 1 LLaMA-7B 2:8 cells -8..-14% (gate/up 128:2:8 even), decode CTAs of >= 8 steps -4..-10%;
# grid `auto` T <= 64 geomeans +1..+3% at 2:8, the rest within the spread.
#   OUT=$OUT bash scripts/sessions/gpu_v243b.sh      (~200 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
S=11008x4096x1:64:2:8,4096x11008x1:64:2:8,11008x4096x1:128:2:8,4096x11008x1:128:2:8,2048x8192x1:64:2:8
S=$S,4096x8192x1:128:2:8,5120x13824x1:128:2:16,13824x5120x1:128:2:16,4096x4096x1:64:2:8,11008x4096x1:64:2:16
timeout 150 python scripts/ab_decode.py DECODE_GROUP=1+NARROW_DECODE_T1_BYTES=1073741824,2,1+NARROW_DECODE_T1_BYTES=1073741824,2 \
  --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_decode_route_v243.txt"
quick_grid 300 h200_v243
echo "total ${SECONDS}s"
