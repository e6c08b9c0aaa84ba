#!/usr/bin/env bash
# v247: the T <= 8 route by shape, pattern and T (decode kernel vs the wgmma.sp narrow tile), after v246
# put the narrow tile ahead at T = 8 on 4096^2 V = 64 (-13%) and 11008-row 128:2:32 (-22%) but behind on
# 4096^2 128:2:16 (+24%).
source "$(dirname "$0")/../gpu_lib.sh"
S=$(python - <<'PY'
shapes = ["4096x4096", "11008x4096", "4096x11008", "1024x4096", "5120x5120", "2048x8192"]
pats = ["64:2:8", "128:2:8", "64:2:16", "128:2:16", "128:2:32", "128:2:128"]
print(",".join(f"{s}x{t}:{p}" for s in shapes for p in pats for t in (2, 4, 6, 8)))
PY
)
timeout 500 python scripts/ab_decode.py VNM_DECODE=1,0,1,0 --shapes $S 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_decode_route_v247.txt"
echo "total ${SECONDS}s"
