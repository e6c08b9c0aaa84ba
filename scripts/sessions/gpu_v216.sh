#!/usr/bin/env bash
# v216: every GPU suite, the README's grid and memcheck on the session's code (v213's 128 x 128 cp.async
# prefill tiles by waves, v215's persistent cluster tile for plain 2:4 from 2048 tokens).
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 290
quick_grid 170 h200_v216
sanitize 80
echo "total ${SECONDS}s"
