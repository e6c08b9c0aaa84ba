#!/usr/bin/env bash
# v201: every GPU suite on the session's final code (v196-v199's tile routes: 256 x 128 at mid T, the
# 64-row staged 2:4 tiles only up to 10 rows past T).
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 270
echo "total ${SECONDS}s"
