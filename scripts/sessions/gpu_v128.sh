#!/usr/bin/env bash
# v128: gathered prefill in token chunks whose X^T stays in L2 (the op's existing _token_chunks, with
# GATHER_BYTES_MAX lowered: each chunk's X^T reuses the freed block of the one before, so its lines are
# rewritten in L2 rather than written back and read again from DRAM). v126: the transpose is 32-45% of
# the op at 2:32-2:128, T = 4096. Predicted: 4096^2 x 4096 128:2:128 40 -> ~30 us at 1024-token chunks,
# 128:2:32 51 -> ~42, 128:2:8 even or slower (more tails). Values: whole, 2048 / 1024 / 512 tokens at K = 4096.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S="4096x4096x4096:128:2:8,4096x4096x4096:128:2:16,4096x4096x4096:128:2:32,4096x4096x4096:128:2:128,4096x4096x8192:128:2:32"
S="$S,4096x4096x8192:128:2:128,11008x4096x4096:128:2:32,4096x11008x4096:128:2:32,4096x11008x4096:128:2:128,1024x4096x4096:128:2:32"
timeout 300 python scripts/ab_wgmma.py GATHER_BYTES_MAX=4294967296,16842752,8454144,4259840,4294967296 --path auto --shapes "$S" 2>&1 | grep -v Warn | tee "$OUT/ab_v128.txt"
echo "total ${SECONDS}s"
