#!/usr/bin/env bash
# (Ran on 8327bb7, whose turn rotation in bench.py was reverted after this run: see NOTES v291.)
# v291: the bench's turns rotated (each turn starts one path later): `wgmma_sp` and `auto` run the same kernels at
# T <= 64 on these cells, and with a fixed order the first of them ran 2-5% slower (v285, v289). Prediction: their
# geomeans within 1% at every pattern and T. Also the README's quick grid at T <= 64 on this card, with v288-v290's
# decode rule.
#   OUT=$OUT bash scripts/sessions/gpu_v291.sh      (~120 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
warm
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64 \
  --paths wgmma_sp,auto,cslt --tag ${CARD}_v291_decode > "$OUT/log_v291.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
grep "weight-byte" "$OUT/spmm_${CARD}_v291_decode.md" | grep "auto\|wgmma_sp" | cut -d'|' -f3-7
python scripts/geomean_table.py "$OUT/spmm_${CARD}_v291_decode.csv" wgmma_sp,auto,cslt_best | grep -v "^skip"
echo "total ${SECONDS}s"
