#!/usr/bin/env bash
# v244: does the decode kernel's group code (v240) cost the calls it does not group? Grid v243 read the
# V = 128 decode cells at T <= 8 +3..+7% against grid v229 (dense in the same cells +0..+4%). The old kernel
# (old_src/: src of aaede43, a temporary copy) and the new one with 1- and 2-step copies, each its own
# process, alternated twice.
# Prediction: old and new-1 within 1% (a few integer instructions a step), new-2 as v243 where CTAs have >= 8 steps.
#   OUT=$OUT bash scripts/sessions/gpu_v244.sh      (~100 s warm)
source "$(dirname "$0")/../gpu_lib.sh"
S=4096x4096x1:128:2:8,4096x4096x8:128:2:8,1024x4096x1:128:2:8,1024x4096x1:128:2:16,11008x4096x1:128:2:8
S=$S,4096x4096x1:128:2:32,4096x4096x1:64:2:8,11008x4096x1:64:2:8,4096x11008x1:64:2:8,1024x4096x4:128:2:8
for i in 1 2; do
  PYTHONPATH=$PWD/old_src/src timeout 100 python scripts/ab_decode.py DECODE_RING=2,2 --shapes $S 2>&1 | grep -v "Warn\|warn" \
    | tee -a "$OUT/ab_decode_old_new_v244.txt" | cut -c1-60
  timeout 100 python scripts/ab_decode.py DECODE_GROUP=1,2 --shapes $S 2>&1 | grep -v "Warn\|warn" \
    | tee -a "$OUT/ab_decode_old_new_v244.txt" | cut -c1-60
done
echo "total ${SECONDS}s"
