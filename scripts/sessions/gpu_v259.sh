#!/usr/bin/env bash
# v259: (a) why fused siblings ran prefill slower (v258: LLaMA prefill T = 2048 64:2:8 5.93 -> 6.26 ms, 128:2:32
# 3.89 -> 3.98): the fused shapes (q/k/v 12288 x 4096, gate/up 22016 x 4096) against their parts at T = 2048,
# auto and auto_tuned. Prediction: auto on 12288 x 4096 slower than 3 x 4096 x 4096 (a tile chosen for the
# larger R), auto_tuned within 2% of the parts.
# (b) autotune TIMING "rotate" at prefill T (v257 decode T = 1-16: 0.971-0.988 of auto, no cell above 1.04).
# Prediction: geomean <= 1.0 at T = 64-8192, no cell above 1.05.
#   OUT=$OUT bash scripts/sessions/gpu_v259.sh      (~300 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm 120
tuned() {  # tuned TAG BENCH_SPMM_ARGS...: auto and auto_tuned (rotate, T = 1-8 decode tuned) into spmm_TAG.csv
  local tag=$1; shift
  VNM_AUTOTUNE_MARGIN=0.05 timeout 250 python - "$tag" "$@" > "$OUT/log_$tag.txt" 2>&1 <<'PY'
import sys
from vnmsparse.kernels import autotune
import os
autotune.clear()
from vnmsparse.cli import main
sys.exit(main(['bench', 'spmm', '--out', os.environ['OUT'], '--paths', 'auto,auto_tuned', '--no-plot',
               '--tag', sys.argv[1]] + sys.argv[2:]))
PY
  echo "bench $tag exit $? ${SECONDS}s"
  python - "$OUT/spmm_$tag.csv" <<'PY'
import csv, math, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#'))]
t = {(r['shape'], r['T'], r['pattern'], r['path']): float(r['t_us']) for r in rows if r['t_us']}
for s, T, p, path in sorted(t):
    if path == 'auto':
        print(f"{s:>28} T={T:>5} {p:>8} auto {t[(s, T, p, 'auto')]:8.1f} us  tuned {t.get((s, T, p, 'auto_tuned'), float('nan')):8.1f}")
for T in sorted({k[1] for k in t}, key=int):
    q = [t[(s, T, p, 'auto_tuned')] / t[(s, T, p, 'auto')] for (s, TT, p, path) in t if TT == T and path == 'auto'
         and (s, T, p, 'auto_tuned') in t]
    print(f"T={T:>4} n={len(q)} geomean {math.exp(sum(map(math.log, q)) / len(q)):.3f} range {min(q):.2f}-{max(q):.2f}")
PY
}
tuned h200_v259_fused --shapes 4096x4096,12288x4096,11008x4096,22016x4096,4096x11008 --tokens 2048 --patterns 64:2:8,128:2:32 | grep -v "^T="
tuned h200_v259_prefill --quick --tokens 64,2048,8192 | grep "^T="
echo "total ${SECONDS}s"
