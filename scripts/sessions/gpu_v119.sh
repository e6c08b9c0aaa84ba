#!/usr/bin/env bash
# v119: the 32-token gathered tiles past T = 32 (two or more token tiles each re-reading the
# weights from L2, against one 64-token tile moving twice the B per stage in half the stages).
# v115 at T = 32: 32-token tiles -3..-13% against the 64-token ones. Predicted at T = 48-64: even
# to -5% on LLaMA-70B shapes, slower on 4096-row weights (the second token tile's A reads).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=""; for t in 48 64; do for p in 128:2:8 128:2:16 64:2:8; do
  S="$S,11008x4096x$t:$p,4096x11008x$t:$p,4096x4096x$t:$p,28672x8192x$t:$p,8192x28672x$t:$p"; done; done
timeout 200 python scripts/ab_wgmma.py TILE=auto,wg128x32s16t1g4,wg64x32s12t1g4,auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v119.txt"
echo "total ${SECONDS}s"
