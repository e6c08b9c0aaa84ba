#!/usr/bin/env bash
# v131: with X given feature-major (no transpose: auto_xt, Spatha's operand layout), the prefill kernel
# alone at 2:16-2:32 runs at ~0.35-0.5 of the activation-traffic roofline (grid v130): its CTAs are
# short (8 steps at 2:32 on K = 4096) and pay their fill and epilogue per tile. Persistent tiles (which
# overlap an epilogue with the next tile's loads) start at M = 64 because they were 0-3% slower at M <= 32
# with the transpose in the op (v24). Predicted: PERSISTENT_MIN_M = 32 / 16 -5..-15% at 2:32 / 2:16 here.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
WARM=0 gpu_tests 150 tests/test_bench.py
S=""; for d in 4096x4096 11008x4096 4096x11008 1024x4096; do for t in 2048 8192; do S="$S,${d}x$t:128:2:32,${d}x$t:128:2:16"; done; done
timeout 200 python scripts/ab_wgmma.py PERSISTENT_MIN_M=64,32,16,64 --path auto --xt 1 --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v131_xt.txt"
timeout 150 python scripts/ab_wgmma.py PERSISTENT_MIN_M=64,32,16,64 --path auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v131.txt"
echo "total ${SECONDS}s"
