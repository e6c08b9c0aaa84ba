#!/usr/bin/env bash
# v205: every GPU suite on the session's final code (v204's short last X box, v204b's 64-row staged 2:4
# tiles at every T).
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 300
echo "total ${SECONDS}s"
