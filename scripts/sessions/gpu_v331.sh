#!/usr/bin/env bash
# v331: issue 3's decode rule ("T <= 64 not slower than dense at any pattern from 2:8 on") on the card lent, with the
# `mma_sp` path as a sm_80/86/89 user gets it (its route: decode kernel, split K, narrow tiles; v323 ran
# `mma_sp_decode`, which forces the one-launch kernel at every T), cuBLAS and cuSPARSELt in the same run, then
# memcheck of the representative set. Predicted (H100 grid v314, minimum 1.12x; H200 v251 T <= 64 geomeans
# 1.25-3.87x): every cell from 2:8 on >= 1.0, the smallest ones (4096^2 at T = 64) closest to it.
#   OUT=$OUT bash scripts/sessions/gpu_v331.sh      (~250 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 240 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,32,64 \
  --paths auto,mma_sp,cslt --tag ${CARD}_v331_decode > "$OUT/log_v331.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python - "$OUT/spmm_${CARD}_v331_decode.csv" <<'PY'
import csv, sys, math, collections
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
worst = collections.defaultdict(lambda: (9e9, ""))
for r in rows:
    if r.get("path") != "mma_sp" or not r.get("speedup"):
        continue
    s = float(r["speedup"]); key = r["pattern"]
    if s < worst[key][0]:
        worst[key] = (s, f'{r["shape"]} T={r["T"]}')
for k, (s, where) in sorted(worst.items()):
    print(f"mma_sp minimum {k}: {s:.2f} at {where}")
PY
sed -n '/^## Geometric/,/^## Sustained\|^## Issue/p' "$OUT/spmm_${CARD}_v331_decode.md" | head -30
if [ "${V331_MEMCHECK:-1}" = 1 ]; then
  sanitize 120
  mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v331.txt"
fi
echo "total ${SECONDS}s"
