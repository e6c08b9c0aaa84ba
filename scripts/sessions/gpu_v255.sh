#!/usr/bin/env bash
# v255: autotune keeps the heuristic's choice unless a candidate is faster by a margin in its own timing
# (VNM_AUTOTUNE_MARGIN), and T = 1 tuned too (TUNE_DECODE_TOKENS 1-8 then, the default since v259). v253b (no margin):
# auto_tuned / auto time, geomean over the quick grid's 28 cells, T = 1 1.020 (0.89-1.24), T = 4 0.994
# (0.82-1.08), T = 8 0.976 (0.76-1.15), T = 16 0.974 (0.82-1.02).
# Prediction: with 5% no cell above 1.10, geomeans T = 1 <= 1.00, T = 4-16 0.97-0.99; with 10% fewer wins
# and losses both, geomeans 0.98-1.00.
#   OUT=$OUT [MARGINS="0.05 0.10"] bash scripts/sessions/gpu_v255.sh      (~300 s warm a margin)
source "$(dirname "$0")/../gpu_lib.sh"
warm 200
timeout 100 python -m pytest -q -m gpu -p no:cacheprovider tests/test_autotune.py > "$OUT/tests_autotune_v255.txt" 2>&1
tail -1 "$OUT/tests_autotune_v255.txt"
for margin in ${MARGINS:-0.05}; do
  VNM_AUTOTUNE_MARGIN=$margin timeout 280 python -c "
import sys
from vnmsparse.kernels import autotune
autotune.clear()
autotune.TIMING = 'flush'  # (the default until v259)
from vnmsparse.cli import main
sys.exit(main(['bench', 'spmm', '--out', '$OUT', '--quick', '--tokens', '1,4,8,16', '--paths', 'auto,auto_tuned',
               '--tag', 'h200_v255_margin${margin/./}']))" > "$OUT/bench.txt" 2>&1
  echo "margin $margin exit $? ${SECONDS}s"; rm -f "$OUT"/*.png
  python - "$OUT/spmm_h200_v255_margin${margin/./}.csv" <<'PY'
import csv, math, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#'))]
t = {(r['shape'], r['T'], r['pattern'], r['path']): float(r['t_us']) for r in rows if r['t_us']}
for T in ('1', '4', '8', '16'):
    q = [t[(s, T, p, 'auto_tuned')] / t[(s, T, p, 'auto')] for (s, TT, p, path) in t if TT == T and path == 'auto'
         and (s, T, p, 'auto_tuned') in t]
    print(f"T={T:>2} n={len(q)} geomean {math.exp(sum(map(math.log, q)) / len(q)):.3f} range {min(q):.2f}-{max(q):.2f}")
PY
done
rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
