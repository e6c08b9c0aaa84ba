#!/usr/bin/env bash
# v109: is the prefill tile bound by its ring depth (v108: both sides wait on barriers)? Fewer
# stages of the same tiles at 4096^2 x 8192. Predicted if depth bounds it: time ~ 1 / stages
# (128 x 256: s4 / s5 / s6 = 1.5 / 1.2 / 1.0), flat if not.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
timeout 200 python scripts/ab_wgmma.py TILE=wg128x256s6r1,wg128x256s5r1,wg128x256s4r1,wg128x256s3r1,wg128x128s10r1,wg128x128s7r1,wg128x128s5r1 \
  --shapes 4096x4096x8192:2:4,4096x4096x8192:128:2:8,11008x4096x4096:128:2:16 2>&1 | grep -v Warn | tee "$OUT/ab_v109_depth.txt"
echo "total ${SECONDS}s"
