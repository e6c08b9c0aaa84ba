#!/usr/bin/env bash
# v302: with the early loads (v296), a deeper register queue on more CTAs: DECODE_AREG_SHORT_STEPS 4 (as now: depth 8
# only for CTAs of <= 4 steps, else 4) / 8 / 16. Prediction: CTAs of 5-8 steps (4096^2 64:2:8 T = 1, per 5) -0.2..-0.5
# us with the whole share in flight before the wait; 13-16 steps (LLaMA-7B 64:2:8) within 3% either way.
#   OUT=$OUT bash scripts/sessions/gpu_v302.sh      (~90 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 200 python scripts/ab_decode.py DECODE_AREG_SHORT_STEPS=4,8,16,4,8,16 --shapes \
4096x4096x1:64:2:8,4096x4096x8:64:2:8,5120x5120x1:64:2:8,4096x4096x4:64:2:16,11008x4096x1:64:2:8,4096x11008x1:64:2:8,\
11008x4096x4:64:2:16,1024x4096x1:64:2:8,8192x8192x1:64:2:16 > "$OUT/ab_areg_${CARD}_v302.txt" 2>&1
echo "ab: exit $? ${SECONDS}s"; cat "$OUT/ab_areg_${CARD}_v302.txt"
