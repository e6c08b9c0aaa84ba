#!/usr/bin/env bash
# v336: one call for whichever card is lent. On an H200: v335 (the prefill's energy bounds and the DSMEM probe), then
# v333's suite (the whole GPU suite on the final code). Elsewhere: v334 (the DSMEM probe alone) and the suite.
#   OUT=$OUT bash scripts/sessions/gpu_v336.sh      (~420 s on an H200, ~250 s elsewhere)
source "$(dirname "$0")/../gpu_lib.sh"
if [ "$CARD" = h200 ]; then bash "$(dirname "$0")/gpu_v335.sh"; else bash "$(dirname "$0")/gpu_v334.sh"; fi
gpu_tests 300
mv "$OUT/gpu_tests.txt" "$OUT/tests_gpu_${CARD}_v336.txt"
echo "total ${SECONDS}s"
