#!/usr/bin/env bash
# (Ran on the commit before its revert: the bench lead-in (LEAD_CALLS) was taken out again after this run, NOTES v293.)
# v293: v292 again with the bench's lead-in (LEAD_CALLS: a few untimed calls of the path right before each timed
# replay). Prediction: wgmma_sp, auto and auto_again within 1% of each other in A and B (v292: wgmma_sp 3-5% behind
# on the 64-row decode tiles). Then the bench's GPU test.
#   OUT=$OUT bash scripts/sessions/gpu_v293.sh      (~100 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 60 python -m pytest -q -m gpu -p no:cacheprovider tests/test_bench.py 2>&1 | tail -1
for c in A B; do
  P=wgmma_sp,auto,auto_again; [ $c = B ] && P=$P,cslt
  timeout 100 python scripts/bench_ab.py --path "auto_again:spmm_wgmma_sp.TRACE=None" -- bench spmm --out "$OUT" --no-plot \
    --quick --tokens 1,8 --patterns 64:2:8,64:2:16,128:2:8 --paths $P --tag ${CARD}_v293_$c > /dev/null 2>&1
  echo "$c: exit $? ${SECONDS}s"
  python scripts/geomean_table.py "$OUT/spmm_${CARD}_v293_$c.csv" wgmma_sp,auto,auto_again | grep -v "^skip"
done
