#!/usr/bin/env bash
# v323: the README's quick grid at T <= 64 on an H200 (its table's decode columns are grid v251's code), run only if
# the device tool lends one (the last five sessions got H100s, whose grid v314 is recent): T = 1-64, `auto`, issue
# 3's decode kernel (`mma_sp_decode`), cuBLAS and cuSPARSELt in the same run. (The prefill kernels are unchanged
# since v251 / v267; their T >= 2048 columns stand.) Predicted: weight-byte fractions above v286's (2:4 0.88, 2:8
# 0.56-0.57, 2:16 0.39-0.40): v295's longer replays, v296-v301's early loads and v288-v319's decode routes took the
# H100's from v298's 0.69-0.71 / 0.51 to 0.72-0.75 / 0.54-0.55 (v314), so ~0.6 at 2:8, ~0.43 at 2:16.
#   OUT=$OUT bash scripts/sessions/gpu_v323.sh      (~200 s warm on an H200; seconds elsewhere)
source "$(dirname "$0")/../gpu_lib.sh"
if [ "$CARD" != h200 ]; then echo "lent an ${CARD}: the H200 grid is not run"; exit 0; fi
warm
timeout 200 python -m vnmsparse.cli bench spmm --out "$OUT" --quick --tokens 1,4,8,16,64 \
  --paths auto,mma_sp_decode,cslt --tag ${CARD}_v323_decode > "$OUT/log_v323.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
grep "weight-byte" "$OUT/spmm_${CARD}_v323_decode.md" | head -12
sed -n '/^## Geometric/,/^## Sustained\|^## Issue/p' "$OUT/spmm_${CARD}_v323_decode.md" | head -40
echo "total ${SECONDS}s"
