#!/usr/bin/env bash
# v287 (decode kernel, A in registers since v281, one-step prefetch since v286):
# (d) VNM_DEC_X_FIRST=1: each thread's first chunk of the X slice and column words asked for before A's register
# queue (v283: the slice landed ~2 us after the PDL wait, behind the first AREG steps of A). Prediction: 64-row
# tiles at T = 1 -0.3..-0.8 us on 4096^2 / 1024 x 4096, LLaMA gate/up / down within 3%; T = 8 less.
# (a) the decode kernel against the narrow wgmma.sp tiles at T <= 8 on the weights where narrow_over_decode gives
# the narrow tile (NARROW_GATHERED=0: the decode kernel; v115/v121 set the 24 / 40 MB x token thresholds on the
# older kernel). Prediction: decode wins on 64-row tiles up to ~35 MB of compact values at T = 2-8 (LLaMA-7B
# gate/up / down 64:2:8 T = 4-8 12.7-13.5 -> ~11.5-12.5 us), loses on LLaMA-70B (112 MB); 128-row tiles
# (slots) closer to the old threshold.
# (c) stage clocks with the one-step prefetch, X_FIRST off and on. Prediction: the X slice lands ~1 kcycle earlier
# than v283's 4.75 with X_FIRST.
# (b) 128-row decode tiles: A in registers against the slots with the one-step prefetch (v283 refuted it with the
# whole share prefetched ahead of both). Prediction: within 3%, registers ahead where a CTA has <= 8 steps.
#   OUT=$OUT bash scripts/sessions/gpu_v287.sh      (~450 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
S=""
for p in 64:2:8 64:2:16; do
  for t in 1 4 8; do S=$S,4096x4096x$t:$p,4096x11008x$t:$p,1024x4096x$t:$p; done
done
S=${S#,},11008x4096x1:64:2:8,4096x4096x1:128:2:8,5120x5120x1:64:2:8,2048x8192x1:64:2:8
timeout 150 python scripts/ab_decode.py DECODE_AREG=4,4+VNM_DEC_X_FIRST=1,4,4+VNM_DEC_X_FIRST=1 --shapes $S 2>&1 \
  | grep -v "Warn\|warn" | tee "$OUT/ab_decode_xfirst_v287.txt" | cut -c1-84
echo "ab_xfirst ${SECONDS}s"
S=11008x4096x2:64:2:8,11008x4096x4:64:2:8,11008x4096x8:64:2:8,4096x11008x4:64:2:8,4096x11008x8:64:2:8
S=$S,13824x5120x1:64:2:8,13824x5120x4:64:2:8,13824x5120x8:64:2:8,28672x8192x1:64:2:8,28672x8192x8:64:2:8
S=$S,5120x5120x4:64:2:8,8192x8192x4:64:2:8
S=$S,11008x4096x2:128:2:8,11008x4096x8:128:2:8,4096x11008x8:128:2:8,13824x5120x4:128:2:8,28672x8192x1:128:2:8
S=$S,28672x8192x8:128:2:8,11008x4096x4:64:2:16,11008x4096x8:64:2:16,13824x5120x2:64:2:16,13824x5120x8:64:2:16
S=$S,28672x8192x1:64:2:16,28672x8192x8:64:2:16,11008x4096x4:128:2:16,11008x4096x8:128:2:16,28672x8192x8:128:2:16
S=$S,28672x8192x2:128:2:32,28672x8192x8:128:2:32
timeout 220 python scripts/ab_decode.py VNM_DECODE=1,1+NARROW_GATHERED=0,1,1+NARROW_GATHERED=0 --shapes $S 2>&1 \
  | grep -v "Warn\|warn" | tee "$OUT/ab_narrow_decode_v287.txt" | cut -c1-84
echo "ab_narrow ${SECONDS}s"
S=4096x4096x1:64:2:8,4096x4096x1:128:2:8,11008x4096x1:64:2:8,4096x11008x1:64:2:8
timeout 60 python scripts/decode_floor.py --image --trace --shapes $S > "$OUT/decode_floor_v287.txt" 2>&1
timeout 60 python scripts/decode_floor.py --image --trace --shapes $S --define VNM_DEC_X_FIRST=1 >> "$OUT/decode_floor_v287.txt" 2>&1
grep -v "Warn\|warn" "$OUT/decode_floor_v287.txt" | cut -c1-150
S=4096x4096x1:128:2:8,4096x4096x8:128:2:8,4096x4096x1:128:2:16,11008x4096x1:128:2:8,4096x11008x1:128:2:8
S=$S,1024x4096x1:128:2:32,4096x4096x1:128:2:128,5120x5120x1:128:2:8,4096x4096x4:128:2:16,11008x4096x1:128:2:16
timeout 100 python scripts/ab_decode.py DECODE_AREG_MAX_BM=64,128,64,128 --shapes $S 2>&1 \
  | grep -v "Warn\|warn" | tee "$OUT/ab_decode_areg128_v287.txt" | cut -c1-124
echo "total ${SECONDS}s"
