#!/usr/bin/env bash
# v101: the staged gathered tile with grouped copies (t1, VNM_WG_COPY_STEPS = 4; v100: gate/up
# 128:2:8 T = 16 15.3 -> 12.6 us against one copy a stage) against the tile `auto` runs at T = 9-64
# for M >= 8 (r1, A by LDG into registers). Predicted: t1 -5..-10% on 11008-row shapes, even on
# 4096^2 (v100: CS = 4 changed nothing there). If it wins, T = 9-64 routes to it.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=""; S64=""; for t in 16 64; do for d in 11008x4096 4096x4096 4096x11008 1024x4096; do
  S="$S,${d}x$t:128:2:8,${d}x$t:128:2:16,${d}x$t:128:2:32"; S64="$S64,${d}x$t:64:2:8,${d}x$t:64:2:16"; done; done
timeout 200 python scripts/ab_wgmma.py TILE=wg128x64s12r1,wg128x64s12t1,wg128x64s12r1,wg128x64s12t1 --define VNM_WG_COPY_STEPS=4 \
  --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v101_128.txt"
timeout 150 python scripts/ab_wgmma.py TILE=wg64x64s12r1,wg64x64s8t1,wg64x64s12r1,wg64x64s8t1 --define VNM_WG_COPY_STEPS=4 \
  --shapes "${S64#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v101_64.txt"
echo "total ${SECONDS}s"
