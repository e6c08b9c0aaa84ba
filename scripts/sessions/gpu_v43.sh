#!/usr/bin/env bash
# v43: with v40-v42 (PDL, the push reduction) does the decode kernel beat wgmma.sp at T = 16 (as
# v36's route had it for V % 128 == 0, M <= 16)? The decode path (ab_decode) and `auto` (wgmma.sp
# at T = 16) on the same shapes, twice in turns; then the README's grid on main.
# Usage: OUT=$OUT bash scripts/sessions/gpu_v43.sh   (<= 8 files in $OUT)
source "$(dirname "$0")/../gpu_lib.sh"
warm
SHAPES=4096x4096x16:2:4,4096x4096x16:64:2:8,4096x4096x16:128:2:8,11008x4096x16:128:2:8,4096x11008x16:128:2:8,4096x4096x16:128:2:16,4096x4096x16:128:2:32,1024x4096x16:128:2:32,4096x1024x16:128:2:8,4096x4096x12:128:2:8
for i in 1 2; do
  echo "== decode"
  PYTHONPATH=$PYTHONPATH:$PWD/scripts timeout 60 python scripts/ab_decode.py DECODE_MIN_STEPS=2 --shapes $SHAPES 2>&1 | grep -v Warn | tail -10
  echo "== auto"
  PYTHONPATH=$PYTHONPATH:$PWD/scripts timeout 60 python scripts/ab_wgmma.py PATH=auto --path auto --shapes $SHAPES 2>&1 | grep -v Warn | tail -10
done | tee "$OUT/ab_decode_vs_auto_t16.txt"
quick_grid 200 h200_v43; rm -f "$OUT/bench.txt"
echo "total ${SECONDS}s"
