#!/usr/bin/env bash
# v386: the whole GPU suite on main at the twentieth session's start (last whole run v336/v341; since then the blocked
# layout, the ws kernel and its forms, the persistent form). Then memcheck of every launch the sanitize script makes.
# On any card (the suite is the card-independent check; issue 3 wants it on an H200 too).
#   OUT=$OUT bash scripts/sessions/gpu_v386.sh      (~450 s)
source "$(dirname "$0")/../gpu_lib.sh"
card_warm 200
WARM=0 gpu_tests 300 --durations=15
mv "$OUT/gpu_tests.txt" "$OUT/tests_gpu_${CARD}_v386.txt"
sanitize $((560 - SECONDS)); mv "$OUT/memcheck.txt" "$OUT/memcheck_${CARD}_v386.txt"
echo "total ${SECONDS}s"
