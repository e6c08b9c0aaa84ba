#!/usr/bin/env bash
# v209: every GPU suite, the README's grid and memcheck on the session's code (v206's transpose of the
# read rows, v207's widened X^T map, v208's re-pitch).
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 290
quick_grid 170 h200_v209
sanitize 60
echo "total ${SECONDS}s"
