#!/usr/bin/env bash
# (VNM_WG_EARLY_A was reverted after this run: commit 5775999 has it.)
# v127: gathered staged tiles copy their first ring-full of A before the PDL wait (VNM_WG_EARLY_A), while
# the X^T transpose they wait for runs. v126 measured that transpose at 1.1-2.6 us of a call at T = 8-64
# (4096^2 128:2:8 T = 16 7.7 us, 6.5 with X^T made beforehand). Predicted: 4096^2 T = 16 7.7 -> ~6.8,
# 4096 x 11008 11.8 -> ~11.0, 70B gate/up 39.9 -> ~38; 7B gate/up even (its transpose was hidden).
# First the wgmma.sp and ops GPU suites and memcheck (28 gathered staged variants' SASS changed).
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
checks 260 150 tests/test_spmm_wgmma_sp.py tests/test_ops.py || exit 1
S=""; for t in 4 16 32 64; do for d in 4096x4096 11008x4096 4096x11008 28672x8192 5120x5120; do S="$S,${d}x$t:128:2:8,${d}x$t:128:2:16"; done; done
S="$S,4096x4096x16:64:2:8,4096x11008x16:64:2:8,11008x4096x64:64:2:16"
timeout 200 python scripts/ab_wgmma.py VNM_WG_EARLY_A=0,1,0,1 --path auto --shapes "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/ab_v127.txt"
echo "total ${SECONDS}s"
