#!/usr/bin/env bash
# v241: (a) what v240's one gain was (V = 64, 4 splits with 2-step copies: 4096^2 64:2:8 T = 1 7.2 -> 6.5 us,
# 11008 x 4096 12.9 -> 11.7): fewer splits or the copies; (b) the route at T <= 8 between the decode kernel and
# the wgmma.sp narrow tiles (v240: LLaMA down 128:2:8 T = 1 13.3 on the decode kernel, 11.4 on wgmma.sp).
# Prediction: (a) fewer splits alone give most of it; (b) down (K = 11008) and other many-step shapes
# faster on wgmma.sp by 5-15%, small weights (BERT FFN2, 2:32) faster on the decode kernel.
#   OUT=$OUT bash scripts/sessions/gpu_v241.sh      (~200 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x1:64:2:8,4096x4096x4:64:2:8,4096x4096x8:64:2:8,11008x4096x1:64:2:8,11008x4096x8:64:2:8,4096x11008x1:64:2:8
S=$S,1024x4096x1:64:2:8,4096x4096x1:64:2:16,4096x4096x1:128:2:8,11008x4096x1:128:2:8
timeout 200 python scripts/ab_decode.py DECODE_GROUP=1,1+DECODE_MAX_SPLITS=4,2+DECODE_MAX_SPLITS=4,2,1+DECODE_MAX_SPLITS=4 \
  --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_decode_splits_v241.txt"
S=""
for t in 1 8; do for p in 64:2:8 128:2:8 64:2:16 128:2:16 128:2:32; do for rk in 4096x4096 11008x4096 4096x11008 1024x4096; do
  S=$S,${rk}x$t:$p; done; done; done
timeout 300 python scripts/ab_decode.py VNM_DECODE=1,0,1,0 --shapes ${S#,} 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_decode_route_v241.txt"
echo "total ${SECONDS}s"
