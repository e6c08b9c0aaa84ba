#!/usr/bin/env bash
# v282: every GPU suite and memcheck on v281's code (A in registers on the decode kernel's 64-row tiles, the
# default now; also the first GPU run of c53fdc3's spmm_paths refactor).
#   OUT=$OUT bash scripts/sessions/gpu_v282.sh      (~380 s cold)
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 330
sanitize 200
echo "total ${SECONDS}s"
