#!/usr/bin/env bash
# v332: on an H200 (the issue's card; this session's v330 / v331 ran on an H100): the whole GPU suite (v330), issue
# 3's decode rule with the `mma_sp` route and memcheck (v331), then synccheck of the representative launches. On
# another card: synccheck, and racecheck of the cp.async mma.sp launches (whose shared memory no mbarrier orders, so
# racecheck's reports there would be real; on the wgmma.sp kernels it flags the mbarrier-ordered ring, NOTES v31).
#   OUT=$OUT bash scripts/sessions/gpu_v332.sh      (~420 s on an H200, ~330 s elsewhere)
source "$(dirname "$0")/../gpu_lib.sh"
if [ "$CARD" = h200 ]; then
  bash "$(dirname "$0")/gpu_v330.sh"
  bash "$(dirname "$0")/gpu_v331.sh"
  sanitize 120 synccheck
else
  warm
  sanitize 150 synccheck
  SANITIZE_ARGS="--cp-async-only" sanitize 150 racecheck
  mv "$OUT/racecheck.txt" "$OUT/racecheck_cp_async_${CARD}_v332.txt"
fi
mv "$OUT/synccheck.txt" "$OUT/synccheck_${CARD}_v332.txt"
echo "total ${SECONDS}s"
