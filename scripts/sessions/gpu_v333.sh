#!/usr/bin/env bash
# v333: on an H200 only (the issue's card; v330 / v331 / v332 ran on H100s this session): the whole GPU suite (v330),
# then issue 3's decode rule with the `mma_sp` route and memcheck (v331). Elsewhere: racecheck of the cp.async launches
# from the 13th case on (v332's reached 12 of 26 in its 150 s).
#   OUT=$OUT bash scripts/sessions/gpu_v333.sh      (~300 s on an H200, ~170 s elsewhere)
source "$(dirname "$0")/../gpu_lib.sh"
if [ "$CARD" != h200 ]; then
  warm
  SANITIZE_ARGS="--cp-async-only --skip 12" sanitize 120 racecheck
  mv "$OUT/racecheck.txt" "$OUT/racecheck_cp_async_${CARD}_v333.txt"
  exit 0
fi
bash "$(dirname "$0")/gpu_v330.sh"
bash "$(dirname "$0")/gpu_v331.sh"
echo "total ${SECONDS}s"
