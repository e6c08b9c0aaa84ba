#!/usr/bin/env bash
# v249: the decode planner's split count, swept (DECODE_MAX_SPLITS caps it; the planner takes the most splits
# within its fewest waves). v248: 64-row tiles at 4096^2 / 5120^2 ran 7-17% faster at 4 splits than 7-8,
# 2048 x 8192 64:2:8 24% slower; 128-row tiles slower at 4 except 11008 x 4096 128:2:32 T = 1 at 2 (-12%).
source "$(dirname "$0")/../gpu_lib.sh"
S=$(python - <<'PY'
shapes = ["4096x4096", "11008x4096", "4096x11008", "1024x4096", "5120x5120", "2048x8192"]
pats = ["64:2:8", "128:2:8", "64:2:16", "128:2:16", "128:2:32"]
print(",".join(f"{s}x{t}:{p}" for s in shapes for p in pats for t in (1, 8)))
PY
)
timeout 400 python scripts/ab_decode.py DECODE_MAX_SPLITS=8,6,4,3,2 --shapes $S 2>&1 | grep -v "Warn\|warn" \
  | tee "$OUT/ab_decode_splits_v249.txt"
echo "total ${SECONDS}s"
