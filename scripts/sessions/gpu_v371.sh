#!/usr/bin/env bash
# v371 (NOTES Next (4)): the two-CTA ws forms at mid T, side by side with the route's classic tiles (split K where
# the grid is under a wave, the narrow 128 x 64 where its waves cost less). `mma_sp` against `mma_sp_ws`
# (WS_MIN_FILL = 0, WS_OVER_NARROW = True: the ws form wherever the call is a gathered prefill), T = 128-2048.
# Predicted (H100): at T = 512-1024 on 4096-row weights the ws form 10-30% faster (v367 aside: T = 512 forced
# unsplit 19.1 us against the route's 27.3, not side by side); at T = 128-256 (32-64 CTAs unsplit) slower than
# the split classic tiles; on 1024 x 4096 (8 row tiles) slower below T = 2048.
#   OUT=$OUT bash scripts/sessions/gpu_v371.sh      (~150 s)
source "$(dirname "$0")/../gpu_lib.sh"
card_warm
timeout 300 python scripts/bench_ab.py --path "mma_sp_ws@mma_sp:spmm_mma_sp.WS_MIN_FILL=0.0;spmm_mma_sp.WS_OVER_NARROW=True" \
  -- bench spmm --quick --tokens 128,256,512,1024,2048 --patterns 64:2:8,128:2:8,128:2:16,128:2:32 \
  --paths mma_sp,mma_sp_ws --out "$OUT" --no-plot --tag "${CARD}_v371_midT" > "$OUT/log_v371.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python - "$OUT/spmm_${CARD}_v371_midT.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
head, rows = rows[0], rows[1:]
ix = {n: i for i, n in enumerate(head)}
t = collections.defaultdict(dict)
for r in rows:
    t[(r[ix["shape"]], r[ix["T"]], r[ix["pattern"]])][r[ix["path"]]] = float(r[ix["t_us"]]) if r[ix["status"]] == "ok" else None
for key, p in sorted(t.items(), key=lambda kv: (kv[0][2], kv[0][0], int(kv[0][1]))):
    a, b = p.get("mma_sp"), p.get("mma_sp_ws")
    print(*key, a, b, f"{b / a:.3f}" if a and b else "-")
PY
echo "total ${SECONDS}s"
