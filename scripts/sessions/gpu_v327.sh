#!/usr/bin/env bash
# v327: what the X^T transpose costs at the power limit, by itself and beside the GEMM (NOTES Next 2: ~41 mJ of 163
# at 4096^2 x 8192 128:2:8 in v312, as `auto` minus `auto@xt`). clock_under_load.py's new specs: `transpose` (the
# op's X^T copy alone), `serial` (that copy of the next call's X, then `auto` on a feature-major X) and `overlap` (the
# copy on a second stream beside it). Predicted: the copy alone ~45-60 us at ~350-450 W, ~20-25 mJ (below v312's 41:
# the rest would be its interaction with the GEMM, e.g. X^T's writes evicting the weights from L2); serial ~ auto's
# energy; overlap ~ serial (the persistent GEMM holds every SM's shared memory, so the copy's CTAs wait for it).
# Then, on an H200 only, v323's decode grid.
#   OUT=$OUT bash scripts/sessions/gpu_v327.sh      (~120 s warm; ~240 s more on an H200)
source "$(dirname "$0")/../gpu_lib.sh"
warm
for p in 128:2:8 128:2:16; do
  timeout 120 python scripts/probes/clock_under_load.py 4096x4096x8192:$p dense auto auto@xt transpose serial overlap
done 2>&1 | tee "$OUT/transpose_energy_${CARD}_v327.txt"
echo "probe ${SECONDS}s"
[ "$CARD" = h200 ] && bash scripts/sessions/gpu_v323.sh
echo "total ${SECONDS}s"
