#!/usr/bin/env bash
# v242: (a) the decode planner's fewest splits that fill 2 CTAs an SM (DECODE_FILL=2) with and without 2-step
# copies for CTAs of >= 8 steps (DECODE_GROUP=2), from v241's 4096^2 64:2:8 T = 1 7.2 -> 6.5 us; (b) the
# T <= 8 route (decode kernel / wgmma.sp narrow tiles) at T = 2 and 4, and on LLaMA-13B shapes.
# Prediction: (a) FILL+GROUP -5..-10% on V = 64 shapes of >= 4096 rows, even elsewhere; (b) wgmma.sp ahead
# from ~20 MB of kept values at T = 1 and from ~10 MB at T = 2-4.
#   OUT=$OUT bash scripts/sessions/gpu_v242.sh      (~150 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x1:64:2:8,4096x4096x4:64:2:8,4096x4096x8:64:2:8,4096x4096x1:64:2:16,4096x4096x4:64:2:16,4096x4096x1:128:2:8
S=$S,4096x4096x4:128:2:8,11008x4096x1:128:2:8,11008x4096x4:128:2:8,11008x4096x1:64:2:16,1024x4096x1:64:2:8
S=$S,5120x5120x1:64:2:8,5120x5120x1:128:2:8,5120x5120x1:128:2:32,4096x4096x1:128:2:32,2048x8192x1:64:2:8
timeout 200 python scripts/ab_decode.py DECODE_FILL=0,2+DECODE_GROUP=2,2,0,2+DECODE_GROUP=2 --shapes $S 2>&1 \
  | grep -v "Warn\|warn" | tee "$OUT/ab_decode_fill_v242.txt"
S=""
for t in 2 4; do for p in 64:2:8 128:2:8 64:2:16 128:2:16; do
  for rk in 4096x4096 11008x4096 4096x11008 5120x5120 13824x5120 5120x13824; do S=$S,${rk}x$t:$p; done; done; done
for p in 64:2:8 128:2:8 64:2:16 128:2:16; do for rk in 5120x5120 13824x5120 5120x13824; do S=$S,${rk}x1:$p; done; done
timeout 330 python scripts/ab_decode.py VNM_DECODE=1,0,1,0 --shapes ${S#,} 2>&1 | grep -v "Warn\|warn" \
  | tee "$OUT/ab_decode_route_v242.txt"
echo "total ${SECONDS}s"
