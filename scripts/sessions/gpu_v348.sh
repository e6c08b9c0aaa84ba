#!/usr/bin/env bash
# v348 (after v347 on an H200): issue 3's decode rule ("T <= 64 not slower than dense at any pattern from 2:8 on")
# with the `mma_sp` route on the H200 (v331's, which ran on an H100: minimum 1.16x; 2:4 now reads X's rows, v344),
# then racecheck of the cp.async mma.sp launches (v332's, H100) and synccheck of the representative set.
# Predicted: every cell from 2:8 on >= 1.0 (H100 minimum 1.16 at 4096^2 T = 64); racecheck and synccheck 0 hazards.
#   OUT=$OUT bash scripts/sessions/gpu_v348.sh      (~400 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
V331_MEMCHECK=0 bash "$(dirname "$0")/gpu_v331.sh"  # (memcheck ran in v347)
SANITIZE_ARGS="--cp-async-only" sanitize 120 racecheck
mv "$OUT/racecheck.txt" "$OUT/racecheck_cp_async_${CARD}_v348.txt"
sanitize 100 synccheck
mv "$OUT/synccheck.txt" "$OUT/synccheck_${CARD}_v348.txt"
echo "total ${SECONDS}s"
