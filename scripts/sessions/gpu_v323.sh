#!/usr/bin/env bash
# v323: the README's quick grid on an H200 (its table is grid v251's code), run only if the device tool lends one
# (the last five sessions got H100s, whose grid v314 is recent): T = 1-64 and 2048-8192, every path, cuBLAS and
# cuSPARSELt in the same run. Predicted against v251 / v267 (H200): T >= 2048 within ~3% (the prefill kernels are
# unchanged since), T <= 64 higher (v295's longer replays, v296-v301's early loads, v288-v319's decode routes: on the
# H100 those took the fractions 0.69 -> 0.75 at 128:2:8), e.g. 2:8 ~0.62, 2:16 ~0.45.
#   OUT=$OUT bash scripts/sessions/gpu_v323.sh      (~500 s warm on an H200; seconds elsewhere)
source "$(dirname "$0")/../gpu_lib.sh"
CARD=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -o "H[0-9]00" | tr A-Z a-z)
if [ "$CARD" != h200 ]; then echo "lent an ${CARD}: the H200 grid is not run"; exit 0; fi
warm
quick_grid 480 ${CARD}_v323
grep "weight-byte" "$OUT/spmm_${CARD}_v323.md" | head -12
echo "total ${SECONDS}s"
