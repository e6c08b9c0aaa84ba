#!/usr/bin/env bash
# v235 checks: VNM_WG_SPLIT_ISSUE on by default (every staged tile: thread 32 issues the fragment image's
# bulk copies): every GPU suite, memcheck of the staged, persistent, cluster and grouped-copy tiles.
source "$(dirname "$0")/../gpu_lib.sh"
# the staged decode tiles take it too (v235's A/B ran prefill shapes only); prediction: even
D=4096x4096x1:64:2:8,4096x4096x16:128:2:8,11008x4096x16:128:2:8,4096x11008x64:128:2:16,4096x4096x64:2:4,11008x4096x8:2:4
timeout 120 python scripts/ab_wgmma.py VNM_WG_SPLIT_ISSUE=0,1,0,1 --path auto --shapes $D 2>&1 | grep -v "Warn\|warn" | tee "$OUT/ab_split_issue_decode_v235.txt"
gpu_tests 400
SANITIZE_ARGS="--tiles t1,p,c2,g4" sanitize 150
echo "total ${SECONDS}s"
