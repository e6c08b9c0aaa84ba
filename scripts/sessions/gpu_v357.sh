#!/usr/bin/env bash
# v357: racecheck of the cp.async mma.sp launches on v354's code (its copies' addresses changed, not its barriers):
# as many launches as the time allows (v352: the classic kernel 0 hazards in 21 launches).
#   OUT=$OUT END=150 bash scripts/sessions/gpu_v357.sh
source "$(dirname "$0")/../gpu_lib.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
SANITIZE_ARGS=--cp-async-only sanitize $((${END:-585} - SECONDS)) racecheck
mv "$OUT/racecheck.txt" "$OUT/racecheck_cp_async_${CARD}_v357.txt"
grep -cE "rel err" "$OUT/racecheck_cp_async_${CARD}_v357.txt"; grep -E "Race reported|hazard|RACECHECK SUMMARY" "$OUT/racecheck_cp_async_${CARD}_v357.txt" | sort | uniq -c | head
echo "total ${SECONDS}s"
