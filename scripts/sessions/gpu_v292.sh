#!/usr/bin/env bash
# v292: what the first vnmsparse path of a turn pays (v285 / v289 / v291): `wgmma_sp`, `auto` and `auto_again` (auto
# once more) run the same kernels at these cells. A: no cuSPARSELt (wgmma_sp follows cuBLAS); B: with it (wgmma_sp
# follows cslt_best). Prediction (the path before decides): B wgmma_sp 2-5% behind auto = auto_again; A within 1%
# unless cuBLAS does it too.
#   OUT=$OUT bash scripts/sessions/gpu_v292.sh      (~100 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
for c in A B; do
  P=wgmma_sp,auto,auto_again; [ $c = B ] && P=$P,cslt
  timeout 100 python scripts/bench_ab.py --path "auto_again:spmm_wgmma_sp.TRACE=None" -- bench spmm --out "$OUT" --no-plot \
    --quick --tokens 1,8 --patterns 64:2:8,64:2:16,128:2:8 --paths $P --tag ${CARD}_v292_$c > /dev/null 2>&1
  echo "$c: exit $? ${SECONDS}s"
  python scripts/geomean_table.py "$OUT/spmm_${CARD}_v292_$c.csv" wgmma_sp,auto,auto_again | grep -v "^skip"
done
