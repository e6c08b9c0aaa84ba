#!/usr/bin/env bash
# v257: autotune timing candidates back to back over copies of the weight (TIMING "rotate":
# as the benchmark and a model's layers meet their weights) instead of one call after an L2 flush (v253b-v255:
# the flushed calls ranked some decode candidates unlike back-to-back ones). T = 1 tuned too (TUNE_DECODE_TOKENS
# 1-8, set here then; the default since v259), margin 5%. v255 ("flush", same margin): auto_tuned / auto T = 1 1.007 (0.90-1.16), T = 8 0.971
# (0.76-1.05).
# Prediction: T = 1 and 8 geomeans <= 0.97, no cell above 1.05.
#   OUT=$OUT [TOKENS=1,8] bash scripts/sessions/gpu_v257.sh      (~200 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 120
timeout 90 python -m pytest -q -m gpu -p no:cacheprovider tests/test_autotune.py -k "rotate" > "$OUT/tests_rotate_v257.txt" 2>&1
tail -1 "$OUT/tests_rotate_v257.txt"
VNM_AUTOTUNE_MARGIN=0.05 timeout 280 python -c "
import sys
from vnmsparse.kernels import autotune
autotune.clear()
autotune.TIMING = 'rotate'
from vnmsparse.cli import main
sys.exit(main(['bench', 'spmm', '--out', '$OUT', '--quick', '--tokens', '${TOKENS:-1,8}', '--paths', 'auto,auto_tuned',
               '--tag', 'h200_v257_rotate']))" > "$OUT/bench.txt" 2>&1
echo "bench exit $? ${SECONDS}s"; rm -f "$OUT"/*.png "$OUT/bench.txt"
python - "$OUT/spmm_h200_v257_rotate.csv" <<'PY'
import csv, math, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#'))]
t = {(r['shape'], r['T'], r['pattern'], r['path']): float(r['t_us']) for r in rows if r['t_us']}
for T in sorted({k[1] for k in t}, key=int):
    q = [t[(s, T, p, 'auto_tuned')] / t[(s, T, p, 'auto')] for (s, TT, p, path) in t if TT == T and path == 'auto'
         and (s, T, p, 'auto_tuned') in t]
    print(f"T={T:>2} n={len(q)} geomean {math.exp(sum(map(math.log, q)) / len(q)):.3f} range {min(q):.2f}-{max(q):.2f}")
PY
echo "total ${SECONDS}s"
