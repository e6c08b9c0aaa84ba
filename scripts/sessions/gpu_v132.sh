#!/usr/bin/env bash
# v132: mid T (128-1024) with the prefill tiles split along K to fill one wave (WIDE_SPLITS) instead of
# the 64-token decode tiles, which re-read each weight row tile once per 64 tokens (grid v104: LLaMA
# down 2:4 T = 256 55.1 us against cuBLAS's 37.7, q/k/v/o 21.9 against 16.9, BERT FFN2 T = 512 / 1024
# 14.9 / 21.7 against 10.8 / 14.0). Predicted: down T = 256 55 -> ~35 us, q/k/v/o -15%, BERT FFN2
# -20..-30%; gate/up (86 row tiles, the prefill tile already) unchanged.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=""; for t in 128 256 512 1024; do for d in 4096x4096 4096x11008 1024x4096 11008x4096; do S="$S,${d}x$t:2:4,${d}x$t:128:2:8,${d}x$t:128:2:32"; done; done
timeout 300 python scripts/ab_wgmma.py WIDE_SPLITS=0,1,0,1 --path auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v132.txt"
echo "total ${SECONDS}s"
