#!/usr/bin/env bash
# v273: every GPU suite and memcheck with the union route on (v271-v272's rule), and `auto` on the small-V grid
# beside the paths it should pick (auto = wgmma_sp_union where the rule says, as 2:4 at 16:2:32 from T = 256).
#   OUT=$OUT bash scripts/sessions/gpu_v273.sh      (~500 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 330
sanitize 150
timeout 90 python -m vnmsparse.cli bench spmm --out "$OUT" --no-plot --tag h200_v273_union_auto --quick --tokens 16,64,256,2048 \
  --patterns 16:2:32,32:2:32,16:2:64,32:2:64,16:2:128,32:2:128 --paths auto,wgmma_sp_as_2_4,wgmma_sp_union,mma_sp \
  --max-path-seconds 2 > "$OUT/log_v273.txt" 2>&1
echo "bench exit $? ${SECONDS}s"
python scripts/geomean_table.py "$OUT/spmm_h200_v273_union_auto.csv" auto,wgmma_sp_as_2_4,wgmma_sp_union,mma_sp
echo "total ${SECONDS}s"
