#!/usr/bin/env bash
# v333: on an H200 only (the issue's card; v330 / v331 / v332 ran on H100s this session): the whole GPU suite (v330),
# then issue 3's decode rule with the `mma_sp` route and memcheck (v331). Elsewhere it stops at once.
#   OUT=$OUT bash scripts/sessions/gpu_v333.sh      (~300 s on an H200)
source "$(dirname "$0")/../gpu_lib.sh"
if [ "$CARD" != h200 ]; then echo "lent an ${CARD}: v330 / v331 ran on one this session"; exit 0; fi
bash "$(dirname "$0")/gpu_v330.sh"
bash "$(dirname "$0")/gpu_v331.sh"
echo "total ${SECONDS}s"
