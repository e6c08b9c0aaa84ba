#!/usr/bin/env bash
# v248: (a) fewer K splits for the decode kernel where v247 had the wgmma.sp narrow tile ahead at T = 4-8
# (64-row tiles at 4096^2, 1-step CTAs at 11008 x 4096 128:2:32 / 2:128); (b) the decode kernel at
# 2:128 T = 6 / 8, which the X-slice rule (T x m <= 4 BM) leaves to the narrow tile.
# Prediction: (a) 4 splits -5..-15% on the 1-step 11008-row cells at T = 8, neutral or worse at T = 1;
# (b) the decode kernel ahead by >= 10% on 3 of 4 shapes at T = 6.
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x4:64:2:8,4096x4096x8:64:2:8,4096x4096x8:64:2:16,11008x4096x1:128:2:32,11008x4096x4:128:2:32
S=$S,11008x4096x8:128:2:32,11008x4096x4:128:2:128,4096x11008x8:128:2:32,5120x5120x8:64:2:16,2048x8192x8:64:2:8
S=$S,4096x4096x1:128:2:8,4096x4096x8:128:2:8,4096x4096x1:64:2:8
timeout 200 python scripts/ab_decode.py DECODE_MAX_SPLITS=8,4,2,8,4,2 --shapes $S 2>&1 | grep -v "Warn\|warn" \
  | tee "$OUT/ab_decode_splits_v248.txt"
S=$(python - <<'PY'
shapes = ["4096x4096", "11008x4096", "4096x11008", "1024x4096", "5120x5120", "2048x8192"]
print(",".join(f"{s}x{t}:128:2:128" for s in shapes for t in (6, 8)) + ",1024x4096x16:128:2:128,1024x4096x16:128:2:64")
PY
)
timeout 150 python scripts/ab_decode.py VNM_DECODE=1+DECODE_MAX_X_PER_W=4,0,1+DECODE_MAX_X_PER_W=4,0 --shapes $S 2>&1 \
  | grep -v "Warn\|warn" | tee "$OUT/ab_decode_slice_v248.txt"
echo "total ${SECONDS}s"
