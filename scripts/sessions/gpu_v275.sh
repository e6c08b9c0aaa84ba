#!/usr/bin/env bash
# v275: small V at 1-8 tokens, as 2:4 against `auto` (the decode kernel). Prediction: as 2:4 ahead at M = 8
# (v274, T = 8: 1.55-1.57 against 0.98-1.37), the decode kernel ahead at M >= 16 from T <= 4 (v272, 32:2:16).
#   OUT=$OUT bash scripts/sessions/gpu_v275.sh      (~30 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
timeout 150 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --tag h200_v275_small_v_decode --quick --tokens 1,2,4,8,12 \
  --patterns 16:2:8,32:2:8,16:2:16,32:2:16,16:2:32 --paths auto,wgmma_sp_as_2_4,wgmma_sp_union --max-path-seconds 2 > "$OUT/log_v275.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_h200_v275_small_v_decode.csv" auto,wgmma_sp_as_2_4,wgmma_sp_union
echo "total ${SECONDS}s"
