#!/usr/bin/env bash
# v279: union at effective M >= 64 between T = 256 (even, v272) and 1024 (1.54x, v271). Prediction: ahead from 512.
#   OUT=$OUT bash scripts/sessions/gpu_v279.sh      (~60 s cold)
source "$(dirname "$0")/../gpu_lib.sh"
timeout 100 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --tag h200_v279_union_wide --quick --tokens 256,384,512,768 \
  --patterns 32:2:128,16:2:256,32:2:256 --paths auto,wgmma_sp_union --max-path-seconds 2 > "$OUT/log_v279.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_h200_v279_union_wide.csv" auto,wgmma_sp_union | grep -v "^skip"
