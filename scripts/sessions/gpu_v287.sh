#!/usr/bin/env bash
# v287: (a) the decode kernel (A in registers since v281, one-step prefetch since v286) against the narrow
# wgmma.sp tiles at T <= 8 on the weights where narrow_over_decode gives the narrow tile (NARROW_GATHERED=0: the
# decode kernel; v115/v121 set the 24 / 40 MB x token thresholds on the older kernel). Prediction: decode wins on
# 64-row tiles up to ~35 MB of compact values at T = 2-8 (LLaMA-7B gate/up / down 64:2:8 T = 4-8 12.7-13.5 ->
# ~11.5-12.5 us), loses on LLaMA-70B (112 MB); 128-row tiles (slots) closer to the old threshold.
# (b) 128-row decode tiles: A in registers against the slots with the one-step prefetch (v283 refuted it with the
# whole share prefetched ahead of both). Prediction: within 3%, registers ahead where a CTA has <= 8 steps.
# (c) stage clocks with the one-step prefetch. Prediction: the X slice lands ~1 kcycle earlier than v283's 4.75.
#   OUT=$OUT bash scripts/sessions/gpu_v287.sh      (~300 s cold)
source "$(dirname "$0")/../gpu_lib.sh"
warm
S=11008x4096x2:64:2:8,11008x4096x4:64:2:8,11008x4096x8:64:2:8,4096x11008x4:64:2:8,4096x11008x8:64:2:8
S=$S,13824x5120x1:64:2:8,13824x5120x4:64:2:8,13824x5120x8:64:2:8,28672x8192x1:64:2:8,28672x8192x8:64:2:8
S=$S,5120x5120x4:64:2:8,8192x8192x4:64:2:8
S=$S,11008x4096x2:128:2:8,11008x4096x8:128:2:8,4096x11008x8:128:2:8,13824x5120x4:128:2:8,28672x8192x1:128:2:8
S=$S,28672x8192x8:128:2:8,11008x4096x4:64:2:16,11008x4096x8:64:2:16,13824x5120x2:64:2:16,13824x5120x8:64:2:16
S=$S,28672x8192x1:64:2:16,28672x8192x8:64:2:16,11008x4096x4:128:2:16,11008x4096x8:128:2:16,28672x8192x8:128:2:16
S=$S,28672x8192x2:128:2:32,28672x8192x8:128:2:32
timeout 300 python scripts/ab_decode.py VNM_DECODE=1,1+NARROW_GATHERED=0,1,1+NARROW_GATHERED=0 --shapes $S 2>&1 \
  | grep -v "Warn\|warn" | tee "$OUT/ab_narrow_decode_v287.txt" | cut -c1-84
echo "ab ${SECONDS}s"
S=4096x4096x1:128:2:8,4096x4096x8:128:2:8,4096x4096x1:128:2:16,11008x4096x1:128:2:8,4096x11008x1:128:2:8
S=$S,1024x4096x1:128:2:32,4096x4096x1:128:2:128,5120x5120x1:128:2:8,4096x4096x4:128:2:16,11008x4096x1:128:2:16
timeout 150 python scripts/ab_decode.py DECODE_AREG_MAX_BM=64,128,64,128 --shapes $S 2>&1 \
  | grep -v "Warn\|warn" | tee "$OUT/ab_decode_areg128_v287.txt" | cut -c1-124
echo "ab128 ${SECONDS}s"
S=4096x4096x1:64:2:8,4096x4096x1:128:2:8,11008x4096x1:64:2:8,4096x11008x1:64:2:8
timeout 90 python scripts/decode_floor.py --image --trace --shapes $S > "$OUT/decode_floor_v287.txt" 2>&1
grep -v "Warn\|warn" "$OUT/decode_floor_v287.txt" | cut -c1-150
echo "total ${SECONDS}s"
