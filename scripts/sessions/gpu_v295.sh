#!/usr/bin/env bash
# v295: the bench's replays long on the GPU's clock (the first graph timed, recaptured to >= MIN_REPLAY_S; v294's
# replays at decode sizes held only n_sets calls, ~6 x 6 us, because the eager estimate is host-bound). Predictions:
# wgmma_sp / auto / auto_again within 1% (v292-v294: the first 4-5% behind on 64-row decode tiles); decode speedups
# of every vnmsparse path up 2-8% against v294_off (the replay's unchained first call amortised over ~6x more calls);
# calls column ~30-40 at 4096^2 T = 1. Then the quick decode grid (v291's command) for the weight-byte fractions.
#   OUT=$OUT bash scripts/sessions/gpu_v295.sh      (~250 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 60 python -m pytest -q -m gpu -p no:cacheprovider tests/test_bench.py 2>&1 | tail -1
timeout 150 python scripts/bench_ab.py --path "auto_again:spmm_wgmma_sp.TRACE=None" -- bench spmm --out "$OUT" --no-plot \
  --quick --tokens 1,8 --patterns 64:2:8,64:2:16,128:2:8 --paths wgmma_sp,auto,auto_again,cslt \
  --tag ${CARD}_v295_same > /dev/null 2>&1
echo "same: exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_${CARD}_v295_same.csv" wgmma_sp,auto,auto_again | grep -v "^skip"
timeout 300 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64 \
  --paths wgmma_sp,auto,cslt --tag ${CARD}_v295_decode > /dev/null 2>&1
echo "grid: exit $? ${SECONDS}s"
grep "weight-byte" "$OUT/spmm_${CARD}_v295_decode.md" | grep "auto\|wgmma_sp" | cut -d'|' -f3-7
python scripts/geomean_table.py "$OUT/spmm_${CARD}_v295_decode.csv" wgmma_sp,auto,cslt_best | grep -v "^skip"
echo "total ${SECONDS}s"
