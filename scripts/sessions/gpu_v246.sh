#!/usr/bin/env bash
# v246 (prepared for the next session): (a) 2-step copies also in decode CTAs of 4-7 steps
# (DECODE_GROUP_MIN_STEPS 8 -> 4): v241 measured them with the runtime-group build that v244 found 4-10% slow
# on 128-row tiles (4096^2 128:2:8 T = 1 6.4 -> 7.5 at 2-step copies; 64-row 7.2 -> 7.0); (b) the T = 8 route
# on the cells where v241 had the narrow wgmma.sp tile ahead (4096^2 V = 64 -13%, 11008-row 2:32 -26%) but
# grid v229 had `auto` within 5% of the better of the two paths.
# Prediction: (a) -3..-8% on 4-step CTAs of 64-row tiles, 128-row within 2%; (b) the narrow tile ahead by >= 8%
# on at least two of the four cells (then a route by V and m at T = 5-8).
#   OUT=$OUT bash scripts/sessions/gpu_v246.sh      (~80 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x1:64:2:8,4096x4096x4:64:2:8,4096x4096x8:64:2:8,4096x4096x1:128:2:8,4096x4096x8:128:2:8,11008x4096x1:128:2:8
S=$S,1024x4096x1:64:2:8,1024x4096x1:128:2:8,4096x4096x1:64:2:16,5120x5120x1:128:2:8
timeout 150 python scripts/ab_decode.py DECODE_GROUP_MIN_STEPS=8,4,8,4 --shapes $S 2>&1 | grep -v "Warn\|warn" \
  | tee "$OUT/ab_decode_group4_v246.txt"
S=4096x4096x8:64:2:8,4096x4096x8:64:2:16,11008x4096x8:128:2:32,4096x11008x8:128:2:32,4096x4096x8:128:2:16
timeout 100 python scripts/ab_decode.py VNM_DECODE=1,0,1,0 --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_decode_route_v246.txt"
echo "total ${SECONDS}s"
