#!/usr/bin/env bash
# v115: the v114 route (NARROW_GATHERED: V:2:M at T <= 32 on the 16- / 32-token staged tiles, and
# from NARROW_DECODE_MIN_TOKENS = 2 tokens instead of the decode kernel on weights >= 10 MB) on /
# off through vnmsparse.spmm, LLaMA-7B/13B/70B shapes, T = 1-32. Predicted from v114: -10..-25% on
# 7B gate/up and down at T = 8-32, more on 13B/70B; T = 2-4 unknown (the crossover of the decode
# kernel, which grows with T, and the flat staged tile).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
warm 240
for ts in "1 2 4" "8 16 32"; do
  S=""; for t in $ts; do for p in 128:2:8 128:2:16 64:2:8; do
    S="$S,11008x4096x$t:$p,4096x11008x$t:$p,4096x4096x$t:$p,5120x13824x$t:$p,28672x8192x$t:$p"; done; done
  timeout 250 python scripts/ab_wgmma.py NARROW_GATHERED=0,1,0,1 --path auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee -a "$OUT/ab_v115.txt" | tail -46
done
echo "total ${SECONDS}s"
