#!/usr/bin/env bash
# v126: what the transpose and split-reduction launches cost a gathered call in a graph (the call
# against X^T made beforehand / no reduction; scripts/probes/launch_cost.py). Predicted: ~1.5-2 us
# each at T <= 64 (NOTES v46/v59), 10-20% of the op at T >= 2048 for 2:8, more at 2:32.
source "$(dirname "$0")/../gpu_lib.sh"
export PYTHONPATH=$PYTHONPATH:$PWD/scripts
S=""; for t in 8 16 32 64; do for d in 4096x4096 11008x4096 4096x11008 28672x8192; do S="$S,${d}x$t:128:2:8,${d}x$t:128:2:16"; done; done
S="$S,4096x4096x4096:128:2:8,4096x4096x4096:128:2:32,11008x4096x4096:128:2:8,4096x11008x4096:128:2:32,4096x4096x4096:128:2:128"
timeout 300 python scripts/probes/launch_cost.py "${S#,}" 2>&1 | grep -v Warn | tee "$OUT/launch_cost_v126.txt"
echo "total ${SECONDS}s"
