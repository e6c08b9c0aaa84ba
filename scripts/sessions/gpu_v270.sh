#!/usr/bin/env bash
# v270: v269's small-V rule past what it measured: T = 256-1024 at M = 16 / 32, and M = 64 / 128 at every T >= 256.
# Prediction: as 2:4 ahead at T = 256-1024 too (the mma.sp kernel at 0.2-0.6x); at M = 64 / 128 the gathered
# kernel ~1-2x, as 2:4 ~1.3x: even or gathered ahead at M = 128.
#   OUT=$OUT bash scripts/sessions/gpu_v270.sh      (~120 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 120
timeout 300 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --tag h200_v270_small_v --quick --tokens 256,1024,2048,8192 \
  --patterns 16:2:16,32:2:32,16:2:64,32:2:64,16:2:128,32:2:128 --paths auto,wgmma_sp_as_2_4 > "$OUT/log_v270.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python - "$OUT/spmm_h200_v270_small_v.csv" <<'PY'
import csv, math, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#'))]
t = {(r['shape'], int(r['T']), r['pattern'], r['path']): float(r['t_us']) for r in rows if r['t_us']}
q = {}
for (s, T, p, path), v in t.items():
    if path == 'auto' and (s, T, p, 'wgmma_sp_as_2_4') in t:
        q.setdefault((p, T), []).append(t[(s, T, p, 'wgmma_sp_as_2_4')] / v)
for (p, T), v in sorted(q.items()):
    print(f"{p:>9} T={T:>5} as-2:4 / auto geomean {math.exp(sum(map(math.log, v)) / len(v)):.3f} range {min(v):.2f}-{max(v):.2f}")
PY
echo "total ${SECONDS}s"
