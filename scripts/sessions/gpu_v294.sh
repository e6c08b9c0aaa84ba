#!/usr/bin/env bash
# v294 (prepared, not run): `vnmsparse bench spmm --lead-pass` (an untimed pass over the rotation sets before each
# timed replay of short calls), to test v293's x-set reading of the first-place gap. wgmma_sp, auto and auto_again
# run the same kernels at these cells; cuSPARSELt in both runs. Prediction: with the flag the three within 1% (v292 /
# v293: wgmma_sp 3-5% behind on the 64-row decode tiles) and wgmma_sp 3-5% faster than without it; the baselines
# within 2%. If held: make it the default and say so in the bench's method text.
#   OUT=$OUT bash scripts/sessions/gpu_v294.sh      (~120 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 60 python -m pytest -q -m gpu -p no:cacheprovider tests/test_bench.py 2>&1 | tail -1
for c in off on; do
  F=""; [ $c = on ] && F=--lead-pass
  timeout 120 python scripts/bench_ab.py --path "auto_again:spmm_wgmma_sp.TRACE=None" -- bench spmm --out "$OUT" --no-plot \
    --quick --tokens 1,8 --patterns 64:2:8,64:2:16,128:2:8 --paths wgmma_sp,auto,auto_again,cslt $F \
    --tag ${CARD}_v294_$c > /dev/null 2>&1
  echo "$c: exit $? ${SECONDS}s"
  python scripts/geomean_table.py "$OUT/spmm_${CARD}_v294_$c.csv" wgmma_sp,auto,auto_again | grep -v "^skip"
done
# On an H200 (the previous session had only H100s): v290's A/B of the decode route as well.
if [ "$CARD" = h200 ]; then
  timeout 400 python scripts/bench_ab.py --path "auto_before:spmm_wgmma_sp.DECODE_OVER_NARROW={64: (0, 0, None), 128: (0, 0, None)}" \
    -- bench spmm --out "$OUT" --no-plot --tokens 1,2,4,8,16,64 \
    --patterns 2:4,64:2:8,128:2:8,64:2:16,128:2:16,128:2:32,128:2:128 \
    --shapes llama7b.qkvo,llama7b.gate_up,llama7b.down,bert.ffn2,llama13b,llama70b.qo,llama70b.gate_up,llama70b.down \
    --paths wgmma_sp,auto,auto_before --tag ${CARD}_v294_decode > /dev/null 2>&1
  echo "v290 A/B exit $? ${SECONDS}s"
  grep "weight-byte" "$OUT/spmm_${CARD}_v294_decode.md" | grep "auto" | cut -d'|' -f3-7
  python scripts/geomean_table.py "$OUT/spmm_${CARD}_v294_decode.csv" wgmma_sp,auto,auto_before | grep -v "^skip"
fi
echo "total ${SECONDS}s"
