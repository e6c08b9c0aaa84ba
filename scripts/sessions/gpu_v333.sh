#!/usr/bin/env bash
# v333: the whole GPU suite on the session's final code (v330 ran before the slab tiles went; v332's synccheck after,
# 322 launches correct). On an H200 (the issue's card) also issue 3's decode rule with the `mma_sp` route and
# memcheck (v331, which ran on an H100).
#   OUT=$OUT bash scripts/sessions/gpu_v333.sh      (~300 s on an H200, ~220 s elsewhere)
source "$(dirname "$0")/../gpu_lib.sh"
bash "$(dirname "$0")/gpu_v330.sh"
mv "$OUT/tests_gpu_${CARD}_v330.txt" "$OUT/tests_gpu_${CARD}_v333.txt"
[ "$CARD" = h200 ] && bash "$(dirname "$0")/gpu_v331.sh"
echo "total ${SECONDS}s"
