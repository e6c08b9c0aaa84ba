#!/usr/bin/env bash
# v266: 64:2:8 "as 2:4" past 66 row tiles. v265's ncu found 64:2:8's per-FLOP loss on 11008+ rows at K = 4096
# (v259) is the route, not the clock: at 4096 rows the call runs as plain 2:4 over the full K (the persistent
# 128 x 256 tile, 1.74 GHz, 107k cycles), at 11008 / 12288 rows gathered (64-row tiles, 1.73-1.75 GHz, 309k /
# 345k cycles: 7% more a row than 4096's). kernels._as_2_4 keeps weights of over sms / 2 row tiles gathered
# (grids v21-v24c: gate/up 5-12% faster gathered), measured before the 2:4 kernel's cluster tile (v215).
# Both routes side by side (wgmma_sp = gathered, wgmma_sp_as_2_4), 64:2:8 on the many-row shapes.
# Prediction: as 2:4 5-8% faster at T >= 1024 on 11008-28672 rows; T = 256-512 even or gathered ahead.
#   OUT=$OUT bash scripts/sessions/gpu_v266.sh      (~250 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
[ "${WARM:-1}" = 1 ] && warm 120
timeout 420 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --tag h200_v266_as_2_4 --patterns 64:2:8 \
  --shapes llama7b.gate_up,llama7b.qkv,llama13b.gate_up,llama70b.gate_up,22016x4096 --tokens 256,512,1024,2048,4096,8192 \
  --paths wgmma_sp,wgmma_sp_as_2_4 > "$OUT/log_v266.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python - "$OUT/spmm_h200_v266_as_2_4.csv" <<'PY'
import csv, math, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#'))]
t = {(r['shape'], int(r['T']), r['path']): float(r['t_us']) for r in rows if r['t_us']}
q = {}
for s, T, path in sorted(t):
    if path == 'wgmma_sp' and (s, T, 'wgmma_sp_as_2_4') in t:
        a, g = t[(s, T, 'wgmma_sp_as_2_4')], t[(s, T, path)]
        q.setdefault(T, []).append(a / g)
        print(f"{s:>18} T={T:>5} gathered {g:8.1f} us  as 2:4 {a:8.1f}  ratio {a / g:.3f}")
for T, v in sorted(q.items()):
    print(f"T={T:>5} as-2:4 / gathered geomean {math.exp(sum(map(math.log, v)) / len(v)):.3f}")
PY
echo "total ${SECONDS}s"
