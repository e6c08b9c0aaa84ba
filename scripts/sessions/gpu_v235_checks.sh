#!/usr/bin/env bash
# v235 checks: VNM_WG_SPLIT_ISSUE on by default (every staged tile: thread 32 issues the fragment image's
# bulk copies): every GPU suite, memcheck of the staged, persistent, cluster and grouped-copy tiles.
source "$(dirname "$0")/../gpu_lib.sh"
gpu_tests 400
SANITIZE_ARGS="--tiles t1,p,c2,g4" sanitize 150
echo "total ${SECONDS}s"
