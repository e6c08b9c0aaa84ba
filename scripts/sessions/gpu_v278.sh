#!/usr/bin/env bash
# v278: every GPU suite on the session's final code (the as-2:4 image now built through the mma.sp kernel's
# as-2:4 layout; the small-V routes of v272-v277).
#   OUT=$OUT bash scripts/sessions/gpu_v278.sh      (~200 s cold)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 330
echo "total ${SECONDS}s"
