#!/usr/bin/env bash
# v96: the gathered wgmma.sp tile at T <= 64 takes ~0.44 us a stage whatever T (v95, LLaMA gate/up
# 128:2:8: 14.0 us at T = 1 and 8, 32 stages per CTA; v89/v90 T = 16 / 64 15.2 / 15.5), about one
# L2 round trip per 3 stages: the producer's column words are loaded VNM_WG_COLUMN_LOOKAHEAD = 3
# stages ahead (v17a tuned that at prefill, where the consumers set the pace). Predicted: with 8,
# T <= 64 gathered shapes -20..-40% if that chain bounds them; prefill even.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 200
S=""; for t in 16 64; do for d in 11008x4096 4096x4096 4096x11008 1024x4096; do
  S="$S,${d}x$t:128:2:8,${d}x$t:128:2:16,${d}x$t:64:2:8"; done; done
timeout 150 python scripts/ab_wgmma.py VNM_WG_COLUMN_LOOKAHEAD=3,8,3,8 --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v96.txt"
S1=""; for d in 11008x4096 4096x4096 4096x11008; do S1="$S1,${d}x1:128:2:8,${d}x1:128:2:16"; done
timeout 80 python scripts/ab_wgmma.py VNM_WG_COLUMN_LOOKAHEAD=3,8,3,8 --define TILE=wg128x64s12r1 --shapes "${S1#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v96_t1.txt"
timeout 80 python scripts/ab_wgmma.py VNM_WG_COLUMN_LOOKAHEAD=3,8,3,8 --shapes 4096x4096x8192:128:2:8,11008x4096x4096:128:2:16 2>&1 | grep -v Warn | tee "$OUT/ab_v96_prefill.txt"
echo "total ${SECONDS}s"
