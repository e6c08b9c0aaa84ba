#!/usr/bin/env bash
# v95: at T = 1-8, how far is the gathered wgmma.sp path from plain 2:4's staged stream? v89: 2:4's
# staged tile (A by bulk copy through 12-19 ring stages, X by TMA) streams 2.5-3.5 TB/s at T = 1,
# the decode kernel 1.35-1.9 TB/s at 128:2:8, the gathered wgmma.sp tile (A into registers, X^T by
# a transpose launch, bn = 64) slower still. A/B of the gathered tile with A in registers (r1,
# main's) against the staged ring (t1), and the decode kernel (PATH=auto), at T = 1 and 8.
# Predicted: t1 -10..-20% against r1 at T = 1 if the A stream bounds it; if not, the B side
# (transpose launch, 64-token gather) does, and a narrow-token gathered tile would be the next step.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 200
S128=""; S64=""; for t in 1 8; do for d in 11008x4096 4096x4096 4096x11008; do
  S128="$S128,${d}x$t:128:2:8,${d}x$t:128:2:16"; S64="$S64,${d}x$t:64:2:8"; done; done
timeout 120 python scripts/ab_wgmma.py TILE=wg128x64s12r1,wg128x64s12t1,wg128x64s12r1,wg128x64s12t1 --shapes "${S128#,}" \
  2>&1 | grep -v Warn | tee "$OUT/ab_v95_128.txt"
timeout 100 python scripts/ab_wgmma.py TILE=wg64x64s12r1,wg64x64s8t1,wg64x64s12r1,wg64x64s8t1 --shapes "${S64#,}" \
  2>&1 | grep -v Warn | tee "$OUT/ab_v95_64.txt"
timeout 100 python scripts/ab_wgmma.py PATH=auto,auto --shapes "${S128#,},${S64#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v95_auto.txt"
echo "total ${SECONDS}s"
