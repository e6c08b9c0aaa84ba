#!/usr/bin/env bash
# v89: the staged wgmma.sp tile (narrow token tiles, X by TMA for 2:4) against the one-launch decode
# kernel at T = 1-8. Grid v84 read the staged tile at T = 16 faster than the decode kernel at
# T = 8 on plain 2:4 (LLaMA qkvo 8.9 vs 11.3 us, gate/up 17.3 vs 20.7, down 16.5 vs 22.1) and on some
# 2:8 / 2:16 cells. DECODE_DEFAULT_MAX_TOKENS = 8 (main) / 0 (no decode kernel except the few-rows rule).
# Predicted: 2:4 T = 1-8 on the LLaMA shapes -15..-25%; BERT FFN2 even; 128:2:8 slower.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 200
shapes() { local s="" ; for p in "$@"; do for t in 1 4 8; do for d in 4096x4096 11008x4096 4096x11008 1024x4096; do
  s="$s,${d}x$t:$p"; done; done; done; echo "${s#,}"; }
timeout 200 python scripts/ab_wgmma.py DECODE_DEFAULT_MAX_TOKENS=8,0,8,0 --path auto --shapes "$(shapes 2:4)" \
  2>&1 | grep -v Warn | tee "$OUT/ab_v89_24.txt"
timeout 300 python scripts/ab_wgmma.py DECODE_DEFAULT_MAX_TOKENS=8,0,8,0 --path auto --shapes "$(shapes 64:2:8 128:2:8 64:2:16 128:2:32)" \
  2>&1 | grep -v Warn | tee "$OUT/ab_v89_m.txt"
echo "total ${SECONDS}s"
