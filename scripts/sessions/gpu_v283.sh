#!/usr/bin/env bash
# v283: A in registers (v281's rule) against the slots in turns on the quick grid's decode cells that it
# changes (64-row tiles: 64:2:8, 64:2:16; T = 1 / 4 / 8, 1024 rows T = 16); 128-row tiles with A in registers;
# what a call is made of now (decode_floor.py --image: probes and the stage clocks).
# Prediction: `auto` -10..-20% at 64:2:8 / 64:2:16 on LLaMA-7B q/k/v/o and down and on BERT FFN2, gate/up within
# 3%.
#   OUT=$OUT bash scripts/sessions/gpu_v283.sh      (~300 s cold)
source "$(dirname "$0")/../gpu_lib.sh"
warm
S=""
for p in 64:2:8 64:2:16; do
  for t in 1 4 8; do S=$S,4096x4096x$t:$p,11008x4096x$t:$p,4096x11008x$t:$p,1024x4096x$t:$p; done
  S=$S,1024x4096x16:$p
done
timeout 200 python scripts/ab_decode.py DECODE_AREG=0,4,0,4 --shapes ${S#,} 2>&1 | grep -v "Warn\|warn" \
  | tee "$OUT/ab_decode_areg_grid_v283.txt" | cut -c1-84
echo "ab ${SECONDS}s"
# 128-row tiles with A in registers, 8 warps of 16 rows (each loads one m16 tile's A, as on 64-row tiles) or
# v281's 4 of 32. Prediction: 8 warps at depth 4 within 3% of the slots or better (v281's 4-warp loss was the
# two m16 tiles a warp).
S=4096x4096x1:128:2:8,4096x4096x8:128:2:8,4096x4096x1:128:2:16,4096x4096x1:128:2:32,11008x4096x1:128:2:8
S=$S,11008x4096x1:128:2:16,4096x11008x1:128:2:8,5120x5120x1:128:2:8,1024x4096x16:128:2:16,4096x4096x1:128:2:128
S=$S,4096x4096x4:128:2:16
timeout 150 python scripts/ab_decode.py \
  DECODE_AREG_MAX_BM=64,128,128+DECODE_AREG_WM=32,128+DECODE_AREG=2,128+DECODE_AREG=8,64 --shapes $S 2>&1 \
  | grep -v "Warn\|warn" | tee "$OUT/ab_decode_areg128_v283.txt" | cut -c1-124
echo "ab128 ${SECONDS}s"
S=4096x4096x1:64:2:8,4096x4096x1:128:2:8,4096x4096x1:64:2:16,11008x4096x1:64:2:8,4096x11008x1:64:2:8
timeout 90 python scripts/decode_floor.py --image --shapes $S > "$OUT/decode_floor_v283.txt" 2>&1
timeout 90 python scripts/decode_floor.py --image --trace --shapes $S >> "$OUT/decode_floor_v283.txt" 2>&1
grep -v "Warn\|warn" "$OUT/decode_floor_v283.txt" | cut -c1-150
echo "total ${SECONDS}s"
